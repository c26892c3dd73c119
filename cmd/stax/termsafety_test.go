package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

// hostileTexts are names a hostile registry or file may hold: an escape
// sequence that clears the screen, an OSC that retitles the terminal's
// window, a C1 control sequence introducer, and a carriage return and
// line feed that forge a line of their own.
var hostileTexts = []string{
	"1.0.1\x1b[2J",
	"x\x1b]0;PWNED\x07",
	"csi\u009b31m",
	"y\r\nError: FORGED LINE",
}

// assertNoRawControls fails t when out holds a character a terminal acts
// on (other than the newline and tab of ordinary output), or a line that
// a hostile text forged.
func assertNoRawControls(t *testing.T, what, out string) {
	t.Helper()
	if i := strings.IndexFunc(out, func(r rune) bool {
		return r != '\n' && r != '\t' && (r < 0x20 || r >= 0x7f && r <= 0x9f)
	}); i >= 0 {
		t.Errorf("%s prints a raw control character %q at byte %d:\n%q", what, out[i], i, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "Error: FORGED") {
			t.Errorf("%s prints a line a hostile text forged:\n%q", what, out)
		}
	}
}

// serveHostileTags starts, in front of reg, a registry whose tag lists are
// reg's tags and the tags hostile: everything else is reg's. It returns
// its host.
func serveHostileTags(t *testing.T, reg *registrytest.Registry, hostile []string) string {
	t.Helper()
	backend, err := url.Parse(reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(backend)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if !strings.HasSuffix(resp.Request.URL.Path, "/tags/list") || resp.StatusCode != http.StatusOK {
			return nil
		}
		var list struct {
			Name string   `json:"name"`
			Tags []string `json:"tags"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
			return err
		}
		resp.Body.Close()
		list.Tags = append(list.Tags, hostile...)
		body, err := json.Marshal(list)
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// stax tags prints a registry's tags escaped, one a line however many
// line feeds a tag holds; --output json keeps them as they are, in valid
// JSON.
func TestTagsPrintsHostileTagsEscaped(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	pushExamples(t, reg.Host+"/acme/org-skills:1.0.0")
	repo := serveHostileTags(t, reg, hostileTexts) + "/acme/org-skills"

	r := runStax(t, "tags", repo)
	if r.Code != 0 {
		t.Fatalf("stax tags: exit %d\n%s", r.Code, r.Stderr)
	}
	assertNoRawControls(t, "stax tags", r.Stdout+r.Stderr)
	lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
	for _, want := range []string{`1.0.1\x1b[2J`, `x\x1b]0;PWNED\a`, `csi\u009b31m`, `y\r\nError: FORGED LINE`, "1.0.0"} {
		if !slices.Contains(lines, want) {
			t.Errorf("stax tags does not print the line %s:\n%s", want, r.Stdout)
		}
	}
	if len(lines) != len(hostileTexts)+1 {
		t.Errorf("stax tags prints %d lines for %d tags:\n%s", len(lines), len(hostileTexts)+1, r.Stdout)
	}

	r = runStax(t, "tags", repo, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("stax tags --output json: exit %d\n%s", r.Code, r.Stderr)
	}
	var res struct{ Tags []string }
	decodeJSON(t, r.Stdout, &res)
	for _, tag := range hostileTexts {
		if !slices.Contains(res.Tags, tag) {
			t.Errorf("stax tags --output json does not keep the tag %q: %q", tag, res.Tags)
		}
	}
	assertNoRawControls(t, "stax tags --output json", r.Stdout)
}

// The message that no tag is in a range lists the repository's tags, each
// escaped, in text; as JSON, the error is still one valid JSON line.
func TestNoTagInRangeNamesHostileTagsEscaped(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	pushExamples(t, reg.Host+"/acme/org-skills:1.0.0")
	repo := serveHostileTags(t, reg, hostileTexts) + "/acme/org-skills"
	proj := t.TempDir()

	r := runStax(t, "add", repo, "--version", "^9.0.0", "--dir", proj, "--runtime", "claude-code")
	if r.Code != 4 || !strings.Contains(r.Stderr, "in the range ^9.0.0") {
		t.Fatalf("add --version ^9.0.0: exit %d, want 4 naming the range\n%s", r.Code, r.Stderr)
	}
	assertNoRawControls(t, "the error of add --version", r.Stderr)
	if !strings.Contains(r.Stderr, `x\x1b]0;PWNED\a`) || !strings.Contains(r.Stderr, `y\r\nError: FORGED LINE`) {
		t.Errorf("the error does not name the tags escaped:\n%s", r.Stderr)
	}

	r = runStax(t, "add", repo, "--version", "^9.0.0", "--dir", proj, "--runtime", "claude-code", "--output", "json")
	var e struct{ Error jsonError }
	decodeJSON(t, r.Stderr, &e)
	if r.Code != 4 || e.Error.Exit != 4 || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
		t.Errorf("add --version ^9.0.0 --output json: exit %d, want 4 on one JSON line\n%s", r.Code, r.Stderr)
	}
	// An error quotes outside text escaped, in JSON too
	// (docs/output-and-errors.md): the message is the text's.
	if !strings.Contains(e.Error.Message, `x\x1b]0;PWNED\a`) {
		t.Errorf("the JSON message does not quote the tag escaped:\n%q", e.Error.Message)
	}
	assertNoRawControls(t, "the JSON error of add --version", r.Stderr)
}

// A source in stax.yaml that is not a reference is named in the error
// escaped, where the message quotes it and where it says whose it is.
func TestHostileSourceIsEchoedEscaped(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	filetest.Write(t, proj, map[string]string{"stax.yaml": "install:\n  sources:\n" +
		"    - \"ghcr.io/acme/x\\e]0;PWNED\\a\\r\\nError: FORGED LINE\"\n  runtimes: [claude-code]\n"})
	r := runStax(t, "install", "--dir", proj)
	if r.Code != 1 || !strings.Contains(r.Stderr, "invalid reference") {
		t.Fatalf("install: exit %d, want 1 for an invalid reference\n%s", r.Code, r.Stderr)
	}
	assertNoRawControls(t, "the error of install", r.Stderr)
	if want := "Error: " + filepath.Join(proj, "stax.yaml") + `:3: ghcr.io/acme/x\x1b]0;PWNED\a\r\nError: FORGED LINE: `; !strings.HasPrefix(r.Stderr, want) {
		t.Errorf("install does not name the source escaped:\n%s", r.Stderr)
	}
}

// stax propose names the MEMORY.md section of each entry it proposes: a
// section title is the package's text, and is printed escaped.
func TestProposeEscapesSectionTitles(t *testing.T) {
	t.Parallel()
	useHome(t)
	source := copyExamples(t)
	memory := filepath.Join(source, "skills", "incident-postmortem", "MEMORY.md")
	text := readText(t, memory)
	if !strings.Contains(text, "\n## What worked") {
		t.Fatalf("MEMORY.md has no What worked section:\n%s", text)
	}
	text = strings.Replace(text, "\n## What worked", "\n## What worked\x1b]0;PWNED\x07\x1b[2J", 1)
	if err := os.WriteFile(memory, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	layout := filepath.Join(t.TempDir(), "layout")
	ref := "oci:" + layout + ":1.0.0"
	if r := runStax(t, "push", source, ref); r.Code != 0 {
		t.Fatalf("push: %d %s", r.Code, r.Stderr)
	}
	proj := t.TempDir()
	if r := runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code", "--oci-layout", layout); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	addMemoryEntry(t, filepath.Join(proj, ".claude", "skills", "incident-postmortem"), learned)

	out := filepath.Join(t.TempDir(), "proposal.json")
	r := runStax(t, "propose", "incident-postmortem", "--dir", proj, "--runtime", "claude-code", "--oci-layout", layout, "-o", out)
	if r.Code != 0 {
		t.Fatalf("propose: %d %s", r.Code, r.Stderr)
	}
	assertNoRawControls(t, "stax propose", r.Stdout+r.Stderr)
	if !strings.Contains(r.Stdout, `What worked\x1b]0;PWNED\a\x1b[2J entry by @ana`) {
		t.Errorf("propose does not name the section escaped:\n%s", r.Stdout)
	}
}

// A SKILL.md with control characters in its frontmatter, which YAML
// forbids, cannot be loaded by any runtime or by stax list: install
// refuses the package (exit 5), naming the file, and installs nothing.
// Written by another tool than stax, whose push would have refused it.
func TestInstallRefusesFrontmatterWithControlCharacters(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/evil:1"
	packagetest.RefImpl{Name: "evil", Version: "1.0.0", Skills: map[string]string{
		"evil/SKILL.md": "---\nname: evil\ndescription: Does things\x1b]0;PWNED\x07. Use when asked.\n---\nDo it.\n",
	}}.Push(t, ref)
	proj := t.TempDir()
	r := runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code")
	if r.Code != 5 || !strings.Contains(r.Stderr, "evil/SKILL.md: line 3: invalid YAML in frontmatter: control characters are not allowed") {
		t.Errorf("install: exit %d, want 5 naming the file\n%s", r.Code, r.Stderr)
	}
	assertNoRawControls(t, "install", r.Stdout+r.Stderr)
	if _, err := os.Stat(filepath.Join(proj, ".claude", "skills", "evil")); !os.IsNotExist(err) {
		t.Errorf("install left the skill it refused: %v", err)
	}
}

// A control character a YAML escape puts in a description ("\e") parses:
// the skill installs and stax list and show show it escaped.
func TestListEscapesDescriptions(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/evil:1"
	packagetest.RefImpl{Name: "evil", Version: "1.0.0", Skills: map[string]string{
		"evil/SKILL.md": "---\nname: evil\ndescription: \"Does things\\e]0;PWNED\\a\\r\\nError: FORGED LINE\"\n---\nDo it.\n",
	}}.Push(t, ref)
	proj := t.TempDir()
	if r := runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	r := runStax(t, "list", "--dir", proj, "--runtime", "claude-code")
	if r.Code != 0 || !strings.Contains(r.Stdout, `Does things\x1b]0;PWNED\a`) {
		t.Errorf("list: exit %d, want 0 and the description escaped\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	assertNoRawControls(t, "list", r.Stdout+r.Stderr)

	r = runStax(t, "show", "evil", "--dir", proj, "--runtime", "claude-code")
	if r.Code != 0 || !strings.Contains(r.Stdout, `Description: Does things\x1b]0;PWNED\a`) {
		t.Errorf("show: exit %d, want 0 and the description escaped\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	assertNoRawControls(t, "show", r.Stdout+r.Stderr)
}

// What a job warns of as it goes quotes registries, packages and files:
// the warnings of a command's environment, and of its store, reach the
// terminal escaped, as its errors do.
func TestWarningsAreEscaped(t *testing.T) {
	t.Parallel()
	var errOut bytes.Buffer
	home := t.TempDir()
	global := &globalOptions{errOut: &errOut, lookupEnv: func(key string) (string, bool) {
		if key == "STAX_HOME" {
			return home, true
		}
		return "", false
	}}
	env, finish, err := newFactory(&IOStreams{Out: io.Discard, ErrOut: &errOut}, global).Env(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer finish()
	// A warning is a line; a line feed in what it quotes is the job's to
	// escape, as for an error: the stream keeps the lines it is given.
	for _, w := range []io.Writer{env.Warnings, env.Opener.Warnings} {
		for _, text := range hostileTexts {
			fmt.Fprintf(w, "warning: %s\n", text)
		}
	}
	assertNoRawControls(t, "the warnings", errOut.String())
	if !strings.Contains(errOut.String(), "warning: x\\x1b]0;PWNED\\a\n") {
		t.Errorf("the warnings do not show the text escaped:\n%s", errOut.String())
	}
}

// verify --installed names the files added to an installed skill, whose
// names anyone who can write the folder chose: escaped.
func TestVerifyInstalledEscapesFileNames(t *testing.T) {
	t.Parallel()
	_, _, skillDir, proj := installExamplesFromLayout(t)
	name := "notes\x1b]0;PWNED\x07\r\nError: FORGED LINE.md"
	if err := os.WriteFile(filepath.Join(skillDir, name), []byte("added\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runStax(t, "verify", "--installed", "--dir", proj, "--runtime", "claude-code")
	if r.Code != 6 || !strings.Contains(r.Stdout, `skill incident-postmortem: added notes\x1b]0;PWNED\a\r\nError: FORGED LINE.md`) {
		t.Errorf("verify --installed: exit %d, want 6 naming the file escaped\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	assertNoRawControls(t, "verify --installed", r.Stdout+r.Stderr)
}

// inspect shows what the publisher wrote into the config and manifest: a
// description with escapes in it is shown escaped, as config and
// annotation.
func TestInspectEscapesWhatThePublisherWrote(t *testing.T) {
	t.Parallel()
	useHome(t)
	src := t.TempDir()
	filetest.Write(t, src, map[string]string{
		"stax.yaml":          "name: evil-pkg\nversion: 1.0.0\ndescription: \"Skills\\e]0;PWNED\\a\\r\\nError: FORGED LINE\"\nskills: skills\n",
		"skills/ok/SKILL.md": "---\nname: ok\ndescription: Does things. Use when asked.\n---\nBody.\n",
	})
	layout := filepath.Join(t.TempDir(), "layout")
	if r := runStax(t, "push", src, "oci:"+layout+":1.0.0"); r.Code != 0 {
		t.Fatalf("push: %d %s", r.Code, r.Stderr)
	}
	r := runStax(t, "inspect", "oci:"+layout+":1.0.0")
	if r.Code != 0 || !strings.Contains(r.Stdout, `Description:   Skills\x1b]0;PWNED\a\r\nError: FORGED LINE`) {
		t.Errorf("inspect: exit %d, want 0 and the description escaped\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	assertNoRawControls(t, "inspect", r.Stdout+r.Stderr)
}

// An oci: source in stax.yaml names a directory, whose name can hold
// anything: outdated's table and the messages naming the source show it
// escaped.
func TestOutdatedEscapesSources(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	name := "lay\x1b]0;PWNED\x07"
	if r := runStax(t, "push", examples, "oci:"+filepath.Join(proj, name)+":1.0.0"); r.Code != 0 {
		t.Fatalf("push: %d %s", r.Code, r.Stderr)
	}
	filetest.Write(t, proj, map[string]string{"stax.yaml": "install:\n  sources:\n    - \"oci:" + proj + "/lay\\e]0;PWNED\\a:1.0.0\"\n  runtimes: [claude-code]\n"})
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	r := runStax(t, "outdated", "--dir", proj)
	if r.Code != 0 || !strings.Contains(r.Stdout, `/lay\x1b]0;PWNED\a`) {
		t.Errorf("outdated: exit %d, want 0 naming the source escaped\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	assertNoRawControls(t, "outdated", r.Stdout+r.Stderr)
}

// A registry's error message is its own text: a line feed in it must not
// forge a line of stax's error output. The registry is a real one behind a
// proxy that denies the tag list with a message of its own.
func TestRegistryErrorMessageIsEscaped(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	pushExamples(t, reg.Host+"/acme/org-skills:1.0.0")
	backend, err := url.Parse(reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(backend)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if !strings.HasSuffix(resp.Request.URL.Path, "/tags/list") {
			return nil
		}
		body := `{"errors":[{"code":"DENIED","message":"no\r\nError: FORGED LINE"}]}`
		resp.Body.Close()
		resp.StatusCode, resp.Status = http.StatusForbidden, "403 Forbidden"
		resp.Body = io.NopCloser(strings.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		resp.Header.Set("Content-Type", "application/json")
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	r := runStax(t, "tags", strings.TrimPrefix(srv.URL, "http://")+"/acme/org-skills")
	if r.Code != 3 || !strings.Contains(r.Stderr, `access to`) || !strings.Contains(r.Stderr, `no\r\nError: FORGED LINE`) {
		t.Fatalf("tags: exit %d, want 3 saying access was denied, with the registry's message escaped\n%s", r.Code, r.Stderr)
	}
	assertNoRawControls(t, "the error of tags", r.Stderr)
}

// A package's layer media types are the publisher's: install's warning
// that names the layers it did not install names them escaped.
func TestInstallNotesAreEscaped(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/evil:1"
	packagetest.RefImpl{Name: "evil", Version: "1.0.0", Skills: map[string]string{
		"evil/SKILL.md": "---\nname: evil\ndescription: Does things. Use when asked.\n---\nDo it.\n",
	}, Layers: []packagetest.Layer{{MediaType: "application/x\x1b]0;PWNED\x07\r\nError: FORGED LINE", Data: []byte("x")}}}.Push(t, ref)
	r := runStax(t, "install", ref, "--dir", t.TempDir(), "--runtime", "claude-code")
	if r.Code != 0 || !strings.Contains(r.Stderr, `application/x\x1b]0;PWNED\a\r\nError: FORGED LINE`) {
		t.Errorf("install: exit %d, want 0 naming the layer escaped\n%s", r.Code, r.Stderr)
	}
	assertNoRawControls(t, "install", r.Stdout+r.Stderr)
}

// The "updated" line of install names the package's versions, which its
// publisher wrote: escaped.
func TestInstallUpdatedLineIsEscaped(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	skills := map[string]string{"evil/SKILL.md": "---\nname: evil\ndescription: Does things. Use when asked.\n---\nDo it.\n"}
	packagetest.RefImpl{Name: "evil", Version: "1.0.0", Skills: skills}.Push(t, reg.Host+"/acme/evil:1")
	skills2 := map[string]string{"evil/SKILL.md": "---\nname: evil\ndescription: Does other things. Use when asked.\n---\nDo it.\n"}
	packagetest.RefImpl{Name: "evil", Version: "2.0.0\x1b]0;PWNED\x07\r\nError: FORGED LINE", Skills: skills2}.Push(t, reg.Host+"/acme/evil:2")
	proj := t.TempDir()
	if r := runStax(t, "install", reg.Host+"/acme/evil:1", "--dir", proj, "--runtime", "claude-code", "--no-save"); r.Code != 0 {
		t.Fatalf("install 1: exit %d\n%s", r.Code, r.Stderr)
	}
	r := runStax(t, "install", reg.Host+"/acme/evil:2", "--dir", proj, "--runtime", "claude-code", "--no-save")
	if r.Code != 0 || !strings.Contains(r.Stdout, `1.0.0 → 2.0.0\x1b]0;PWNED\a\r\nError: FORGED LINE`) {
		t.Errorf("install 2: exit %d, want 0 naming the version escaped\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	assertNoRawControls(t, "install", r.Stdout+r.Stderr)
}

// stax diff names the frontmatter fields a publisher wrote: escaped.
func TestDiffEscapesFieldNames(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	skills := map[string]string{"evil/SKILL.md": "---\nname: evil\ndescription: Does things. Use when asked.\nmetadata:\n  a: b\n---\nDo it.\n"}
	packagetest.RefImpl{Name: "evil", Version: "1.0.0", Skills: skills}.Push(t, reg.Host+"/acme/evil:1")
	skills2 := map[string]string{"evil/SKILL.md": "---\nname: evil\ndescription: Does things. Use when asked.\nmetadata:\n  a: b\n  \"k\\e]0;PWNED\\a\\r\\nError: FORGED LINE\": v\n---\nDo it.\n"}
	packagetest.RefImpl{Name: "evil", Version: "2.0.0", Skills: skills2}.Push(t, reg.Host+"/acme/evil:2")
	r := runStax(t, "diff", reg.Host+"/acme/evil:1", reg.Host+"/acme/evil:2")
	if !strings.Contains(r.Stdout, `k\x1b]0;PWNED\a\r\nError: FORGED LINE`) {
		t.Errorf("diff: exit %d, want the field named escaped\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	assertNoRawControls(t, "diff", r.Stdout+r.Stderr)
}

// A guard: a folder the runtime reads whose name holds a line feed cannot forge a
// line of list's warnings: each warning is one line, escaped.
func TestListWarningsAreALineEach(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	bad := filepath.Join(proj, ".claude", "skills", "bad\nwarning: FORGED LINE")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Skip("no line feed in a file name here:", err)
	}
	filetest.WriteFile(t, filepath.Join(bad, "SKILL.md"), "---\nname: [unclosed\n---\nBody.\n")
	r := runStax(t, "list", "--dir", proj, "--runtime", "claude-code")
	for _, line := range strings.Split(r.Stderr, "\n") {
		if strings.HasPrefix(line, "warning: FORGED LINE") {
			t.Errorf("list printed a forged warning line:\n%s", r.Stderr)
		}
	}
	if !strings.Contains(r.Stderr, `bad\nwarning: FORGED LINE`) {
		t.Errorf("list does not name the folder escaped:\n%s", r.Stderr)
	}
}
