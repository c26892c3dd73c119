package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/internal/registrytest"
)

// jsonErrorOf decodes the one JSON error object of a run with --output json.
func jsonErrorOf(t *testing.T, r result) jsonError {
	t.Helper()
	var got struct {
		Error *jsonError `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.Stderr), &got); err != nil || got.Error == nil {
		t.Fatalf("exit %d: stderr is not one JSON error object (%v):\n%s", r.Code, err, r.Stderr)
	}
	return *got.Error
}

// `stax --version` prints what `stax version` prints, as gh and helm users
// expect of a CLI.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	want := runStax(t, "version")
	r := runStax(t, "--version")
	if r.Code != 0 || want.Code != 0 || r.Stdout != want.Stdout {
		t.Errorf("--version: exit %d, stdout %q, stderr %q; want exit 0 and %q", r.Code, r.Stdout, r.Stderr, want.Stdout)
	}
}

// A command whose required flag is missing is a usage error, exit 1,
// naming the flag, not a file-system failure.
func TestSignWithoutKeyIsUsage(t *testing.T) {
	useHome(t)
	r := runStax(t, "sign", "localhost:5000/acme/skills:1.0.0", "--output", "json")
	e := jsonErrorOf(t, r)
	if r.Code != 1 || e.Code != "usage" || !strings.Contains(e.Message, "--key") {
		t.Errorf("sign without --key: exit %d, error %+v; want exit 1, code usage, naming --key", r.Code, e)
	}
	// Flags that exclude each other are checked by cobra in the same place.
	r = runStax(t, "apply", "proposal.json", "--patch", "--minor", "--output", "json")
	if e := jsonErrorOf(t, r); r.Code != 1 || e.Code != "usage" {
		t.Errorf("apply --patch --minor: exit %d, error %+v; want exit 1, code usage", r.Code, e)
	}
}

// `stax push DIR` without a destination names the missing argument
// instead of reading DIR as the destination reference.
func TestPushWithoutDestinationNamesIt(t *testing.T) {
	useHome(t)
	for _, dir := range []string{".", examples} {
		r := runStax(t, "push", dir, "--output", "json")
		e := jsonErrorOf(t, r)
		if r.Code != 1 || e.Code != "usage" || !strings.Contains(e.Message, "destination") || !strings.Contains(e.Message, "stax push "+dir+" ") {
			t.Errorf("push %s: exit %d, error %+v; want exit 1, code usage, naming the missing destination with an example", dir, r.Code, e)
		}
	}
}

// `stax pull REF -o json` is someone asking for JSON output: -o is
// pull's output directory, so stax says so instead of creating ./json.
func TestPullOutputDirNamedLikeAFormat(t *testing.T) {
	useHome(t)
	dir := t.TempDir()
	t.Chdir(dir)
	for format, want := range map[string]string{"json": "json", "text": "text", "yaml": "json"} {
		r := runStax(t, "pull", "localhost:5000/acme/skills:1.0.0", "-o", format, "--output", "json")
		e := jsonErrorOf(t, r)
		if r.Code != 1 || e.Code != "usage" || !strings.Contains(e.Message, "--output "+want) || !strings.Contains(e.Message, "-o ./"+format) {
			t.Errorf("pull -o %s: exit %d, error %+v; want exit 1 suggesting --output %s or -o ./%s", format, r.Code, e, want, format)
		}
		if _, err := os.Lstat(filepath.Join(dir, format)); err == nil {
			t.Errorf("pull -o %s created %s", format, format)
		}
	}
}

// The --runtime flag of verify and uninstall says what it selects there.
func TestRuntimeFlagHelpSaysWhatItSelects(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{"install": "install into", "uninstall": "uninstall from", "verify": "verify"} {
		r := runStax(t, cmd, "--help")
		line := regexp.MustCompile(`(?m)^ +--runtime strings +(.*)$`).FindString(r.Stdout)
		if !strings.Contains(line, "runtimes") || !strings.Contains(line, want) || cmd != "install" && strings.Contains(line, "install into") {
			t.Errorf("%s --help: --runtime reads %q; want it to say %q", cmd, line, want)
		}
	}
}

// An invalid reference exits 1 in every command, pull included, and the
// table of error codes in docs/output-and-errors.md says so.
func TestInvalidReferenceExitsOneAsDocumented(t *testing.T) {
	useHome(t)
	for _, args := range [][]string{
		{"pull", "Bad/Ref:x"},
		{"inspect", "Bad/Ref:x"},
		{"tags", "Bad/Ref:x"},
		{"resolve", "Bad/Ref:x"},
		{"install", "Bad/Ref:x", "--dir", t.TempDir()},
	} {
		r := runStax(t, append(args, "--output", "json")...)
		if e := jsonErrorOf(t, r); r.Code != 1 || e.Code != "invalid-reference" {
			t.Errorf("%v: exit %d, error %+v; want exit 1, invalid-reference", args, r.Code, e)
		}
	}
	row := regexp.MustCompile("(?m)^\\| `invalid-reference` \\| ([^|]*) \\|").FindStringSubmatch(repoFile(t, "docs/output-and-errors.md"))
	if row == nil || strings.TrimSpace(row[1]) != "1" {
		t.Errorf("docs/output-and-errors.md's invalid-reference row gives the exit %q; want 1", row)
	}
}

// Registry flags are offered by the commands that can reach a registry,
// through an argument or a flag such as validate --against, and the
// transfer flags only by those that copy blobs (and --concurrency by
// outdated, which asks its repositories at once).
func TestRegistryFlagsOnlyWhereRegistriesAreReached(t *testing.T) {
	t.Parallel()
	connection := []string{"plain-http", "insecure", "ca-file", "registry-config", "timeout"}
	transfer := []string{"concurrency", "no-progress"}
	copiers := map[string]bool{"push": true, "pull": true, "copy": true, "install": true, "add": true, "remove": true, "update": true}
	reachers := map[string]bool{"validate": true, "pack": true, "inspect": true, "diff": true, "resolve": true,
		"sign": true, "verify": true, "login": true, "tags": true, "outdated": true}
	root, _ := newRootCmd(&IOStreams{In: strings.NewReader(""), Out: &strings.Builder{}, ErrOut: &strings.Builder{}}, environment{}, nil)
	visibleCommands(root, func(c *cobra.Command) {
		name := strings.TrimPrefix(c.CommandPath(), "stax ")
		has := func(flag string) bool { return c.Flags().Lookup(flag) != nil }
		for _, flag := range connection {
			// logout only edits the credential store --registry-config names.
			want := copiers[name] || reachers[name] || name == "logout" && flag == "registry-config"
			if has(flag) != want {
				t.Errorf("stax %s: has --%s = %v, want %v", name, flag, has(flag), want)
			}
		}
		for _, flag := range transfer {
			// outdated copies nothing, but asks its repositories at once.
			if want := copiers[name] || name == "outdated" && flag == "concurrency"; has(flag) != want {
				t.Errorf("stax %s: has --%s = %v, want %v", name, flag, has(flag), want)
			}
		}
	})
}

// scriptedTerminal is a terminal whose user types answers: what a prompt
// shows and whether it echoes are recorded, so a test sees that the
// password is asked for without echo.
type scriptedTerminal struct {
	answers map[string]string
	asked   []string
}

func (s *scriptedTerminal) Input(prompt string) (string, error) {
	s.asked = append(s.asked, "input "+prompt)
	return s.answers[prompt], nil
}

func (s *scriptedTerminal) Password(prompt string) (string, error) {
	s.asked = append(s.asked, "password "+prompt)
	return s.answers[prompt], nil
}

// stax login HOST on a terminal asks for the user name and the password
// (without echo), as docker login and oras login do; without a terminal
// it is a usage error naming the flags to pass.
func TestLoginPromptsOnATerminal(t *testing.T) {
	const user, password = "prompted", "typed-secret"
	reg := registrytest.New(t, registrytest.WithTokenAuth(user, password))
	useHome(t)
	config := filepath.Join(t.TempDir(), "config.json")

	terminal := &scriptedTerminal{answers: map[string]string{"Username: ": user, "Password: ": password}}
	r := runStaxWith(t, &IOStreams{In: strings.NewReader(""), Prompter: terminal}, "login", reg.Host, "--registry-config", config)
	if r.Code != 0 || !strings.Contains(r.Stderr, "Login to "+reg.Host+" succeeded") {
		t.Fatalf("login with prompts: exit %d %s", r.Code, r.Stderr)
	}
	if want := []string{"input Username: ", "password Password: "}; !slices.Equal(terminal.asked, want) {
		t.Errorf("asked %q, want %q", terminal.asked, want)
	}
	if saved, err := os.ReadFile(config); err != nil || !strings.Contains(string(saved), reg.Host) {
		t.Errorf("credentials not saved: %v %s", err, saved)
	}

	// With -u only the password is asked for.
	terminal = &scriptedTerminal{answers: map[string]string{"Password: ": password}}
	r = runStaxWith(t, &IOStreams{In: strings.NewReader(""), Prompter: terminal}, "login", reg.Host, "-u", user, "--registry-config", config)
	if r.Code != 0 || !slices.Equal(terminal.asked, []string{"password Password: "}) {
		t.Errorf("login -u on a terminal: exit %d, asked %q; %s", r.Code, terminal.asked, r.Stderr)
	}

	for _, args := range [][]string{{}, {"-u", user}} {
		r := runStaxWith(t, &IOStreams{In: strings.NewReader("")}, append([]string{"login", reg.Host, "--registry-config", config, "--output", "json"}, args...)...)
		e := jsonErrorOf(t, r)
		if r.Code != 1 || e.Code != "usage" || !strings.Contains(e.Message, "--password-stdin") || !strings.Contains(e.Message, "terminal") {
			t.Errorf("login %v without a terminal: exit %d, error %+v; want exit 1, usage, naming --password-stdin", args, r.Code, e)
		}
		if len(args) == 0 && !strings.Contains(e.Message, "--username") {
			t.Errorf("login without a user name or a terminal: %q does not name --username", e.Message)
		}
	}
}

// The terminal prompter reads one line and no more, so that what the user
// typed ahead is left for the next prompt.
func TestTerminalPrompterReadsOneLine(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := w.WriteString("ci-bot\r\nnext line\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var shown strings.Builder
	p := terminalPrompter{in: r, out: &shown}
	for _, want := range []string{"ci-bot", "next line", ""} {
		got, err := p.Input("Username: ")
		if err != nil || got != want {
			t.Errorf("Input = %q, %v; want %q", got, err, want)
		}
	}
	if !strings.HasPrefix(shown.String(), "Username: Username: ") {
		t.Errorf("prompts shown: %q", shown.String())
	}
}

// --debug traces each registry request and response on stderr, so that
// auth and proxy problems can be seen, and never shows a credential: not
// the password, not the Basic header, not a token.
func TestDebugTracesRegistryRequestsWithoutCredentials(t *testing.T) {
	reg := registrytest.New(t, registrytest.WithTokenAuth(echoUser, echoPassword))
	useHome(t)
	config := filepath.Join(t.TempDir(), "config.json")
	r := runStaxWith(t, &IOStreams{In: strings.NewReader(echoPassword + "\n")},
		"--debug", "login", reg.Host, "-u", echoUser, "--password-stdin", "--registry-config", config)
	if r.Code != 0 {
		t.Fatalf("login --debug: exit %d %s", r.Code, r.Stderr)
	}
	push := runStax(t, "push", examples, reg.Host+"/acme/skills:1.0.0", "--registry-config", config, "--debug")
	if push.Code != 0 {
		t.Fatalf("push --debug: exit %d %s", push.Code, push.Stderr)
	}
	for _, want := range []string{"> [1] GET " + reg.URL + "/v2/\n", "< [1] HTTP/1.1 401 Unauthorized\n", "Authorization: Basic ***\n"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("login --debug: stderr has no %q:\n%s", want, r.Stderr)
		}
	}
	for _, want := range []string{"PUT " + reg.URL + "/v2/acme/skills/manifests/1.0.0\n", "201 Created\n", "Authorization: Bearer ***\n"} {
		if !strings.Contains(push.Stderr, want) {
			t.Errorf("push --debug: stderr has no %q:\n%s", want, push.Stderr)
		}
	}
	if strings.Contains(push.Stdout, "> [") {
		t.Error("the trace went to stdout")
	}
	tokens := reg.IssuedTokens()
	if len(tokens) == 0 {
		t.Fatal("no token was issued")
	}
	assertNoCredential(t, r, append(tokens, echoPassword)...)
	assertNoCredential(t, push, append(tokens, echoPassword)...)

	// Without --debug nothing is traced.
	if quiet := runStax(t, "push", examples, reg.Host+"/acme/skills:1.0.0", "--registry-config", config); quiet.Code != 0 || strings.Contains(quiet.Stderr, "> [") {
		t.Errorf("push without --debug: exit %d, stderr %s", quiet.Code, quiet.Stderr)
	}
}

// STAX_DEBUG turns the trace on where the command line cannot be changed
// (a CI step, a script); a value that is not a boolean is a usage error.
// With the trace on, no progress bar is drawn over it.
func TestDebugFromTheEnvironment(t *testing.T) {
	reg := registrytest.New(t)
	useHome(t)
	t.Setenv("STAX_DEBUG", "1")
	r := runStaxWith(t, &IOStreams{In: strings.NewReader(""), ErrTTY: true}, "push", examples, reg.Host+"/acme/skills:1.0.0")
	if r.Code != 0 || !strings.Contains(r.Stderr, "> [1] ") {
		t.Errorf("STAX_DEBUG=1 push: exit %d, no trace on stderr:\n%s", r.Code, r.Stderr)
	}
	if strings.Contains(r.Stderr, "skills.tar.gz") {
		t.Errorf("progress bars drawn over the trace:\n%s", r.Stderr)
	}
	if r := runStax(t, "push", examples, reg.Host+"/acme/skills:1.0.0", "--debug=false"); r.Code != 0 || strings.Contains(r.Stderr, "> [") {
		t.Errorf("STAX_DEBUG=1 push --debug=false: exit %d, traced anyway:\n%s", r.Code, r.Stderr)
	}
	t.Setenv("STAX_DEBUG", "loud")
	r = runStax(t, "push", examples, reg.Host+"/acme/skills:1.0.0", "--output", "json")
	if e := jsonErrorOf(t, r); r.Code != 1 || e.Code != "usage" || !strings.Contains(e.Message, "STAX_DEBUG") {
		t.Errorf("STAX_DEBUG=loud: exit %d, error %+v; want exit 1, usage, naming STAX_DEBUG", r.Code, e)
	}
}

// visibleCommands walks the command tree as --help shows it: every
// command a user can run, help excluded.
func visibleCommands(c *cobra.Command, visit func(*cobra.Command)) {
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() || sub.Name() == "help" {
			continue
		}
		visit(sub)
		visibleCommands(sub, visit)
	}
}
