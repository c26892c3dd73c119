package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

// The user a registry of a test of hints knows, and the password typed.
const hintUser, hintPassword = "hinted", "typed-secret"

// hintPattern finds the ways out a message offers: a stax command in
// backquotes, a stax command after "run", "with:" or a bracket up to where the
// sentence goes on ("to …", "without …", a bracket, ", "), and a flag
// to pass to the command that failed.
var hintPattern = regexp.MustCompile("`stax ([^`]+)`" +
	`|(?:(?:[Rr]un|with:) |\()stax ([a-z][^;()\n]*?)(?: to | without | lists |, |[;()\n]|$)` +
	`|[Pp]ass (--[a-z-]+)`)

// hintsIn are the commands msg suggests, as argument lists: a suggested
// flag is failed with the flag added.
func hintsIn(msg string, failed []string) [][]string {
	var out [][]string
	for _, m := range hintPattern.FindAllStringSubmatch(msg, -1) {
		switch {
		case m[1] != "":
			out = append(out, strings.Fields(m[1]))
		case m[2] != "":
			out = append(out, strings.Fields(m[2]))
		default:
			out = append(out, append(slices.Clone(failed), m[3]))
		}
	}
	return out
}

// hintCase is a situation a command fails in with a hint: setup makes it
// afresh (each hint is an alternative, run from the same state) and
// returns the failed command and, by command, the arguments that say
// where the user is (--dir, --registry-config): a user in the project
// runs the hint as it is written.
type hintCase struct {
	name  string
	setup func(t *testing.T) (failed []string, where map[string][]string)
	// resolved reports whether the hint's result answers the failure,
	// beyond the failed command now succeeding; nil checks only that.
	resolved func(t *testing.T, hint result)
	// rerun is false when the hint answers a question (which tags are
	// there) rather than clearing the way for the failed command.
	rerun bool
}

// TestEveryHintResolvesItsFailure runs each command a failure suggests, in
// the situation of the failure, and checks that it succeeds and that the
// failed command then does: a hint that backfires (uninstall --keep after
// an install, which removes every other skill and leaves the kept one in
// the way) fails here.
func TestEveryHintResolvesItsFailure(t *testing.T) {
	t.Parallel()
	cases := []hintCase{
		{name: "an installed skill changed since", rerun: true, setup: func(t *testing.T) ([]string, map[string][]string) {
			l := newLayering(t)
			if r, _ := l.install(t); r.Code != 0 {
				t.Fatalf("install: %s", r.Stderr)
			}
			filetest.WriteFile(t, filepath.Join(l.project, ".claude", "skills", "lint", "SKILL.md"), "changed\n")
			return []string{"install"}, map[string][]string{"install": {"--dir", l.project}}
		}},
		{name: "an uninstall of a skill changed since", rerun: true, setup: func(t *testing.T) ([]string, map[string][]string) {
			l := newLayering(t)
			if r, _ := l.install(t); r.Code != 0 {
				t.Fatalf("install: %s", r.Stderr)
			}
			filetest.WriteFile(t, filepath.Join(l.project, ".claude", "skills", "lint", "SKILL.md"), "changed\n")
			return []string{"uninstall"}, map[string][]string{"uninstall": {"--dir", l.project}}
		}},
		{name: "a skill of the user's in the way", rerun: true, setup: func(t *testing.T) ([]string, map[string][]string) {
			l := newLayering(t)
			filetest.WriteFile(t, filepath.Join(l.project, ".claude", "skills", "lint", "SKILL.md"), "mine\n")
			return []string{"install"}, map[string][]string{"install": {"--dir", l.project}}
		}},
		{name: "a frozen install of a source the lock lacks", rerun: true, setup: func(t *testing.T) ([]string, map[string][]string) {
			l := newLayering(t)
			if r, _ := l.install(t); r.Code != 0 {
				t.Fatalf("install: %s", r.Stderr)
			}
			filetest.WriteFile(t, filepath.Join(l.project, "stax.yaml"), "name: project\nversion: 0.1.0\npackages:\n  - "+l.team+
				"\ninstall:\n  sources: [\".\", "+l.org+"]\n  runtimes: [claude-code]\n")
			return []string{"install", "--frozen"}, map[string][]string{"install": {"--dir", l.project}}
		}},
		{name: "a frozen install of a range the lock does not hold", rerun: true, setup: func(t *testing.T) ([]string, map[string][]string) {
			l := newLayering(t)
			repo := strings.TrimSuffix(l.org, ":2.0.0")
			declare := func(version string) {
				filetest.WriteFile(t, filepath.Join(l.project, "stax.yaml"), "name: project\nversion: 0.1.0\ninstall:\n  sources:\n    - ref: "+repo+
					"\n      version: \""+version+"\"\n  runtimes: [claude-code]\n")
			}
			declare("^2.0.0")
			if r, _ := l.install(t); r.Code != 0 {
				t.Fatalf("install: %s", r.Stderr)
			}
			declare(">=2.0.0")
			return []string{"install", "--frozen"}, map[string][]string{"install": {"--dir", l.project}}
		}},
		{name: "a frozen install without a lock", rerun: true, setup: func(t *testing.T) ([]string, map[string][]string) {
			l := newLayering(t)
			return []string{"install", "--frozen"}, map[string][]string{"install": {"--dir", l.project}}
		}},
		{name: "a registry that wants credentials", rerun: true, setup: func(t *testing.T) ([]string, map[string][]string) {
			reg := registrytest.New(t, registrytest.WithBasicAuth(hintUser, hintPassword))
			publisher := filepath.Join(t.TempDir(), "config.json")
			if r := runStaxWith(t, &IOStreams{In: strings.NewReader(hintPassword)}, "login", reg.Host, "-u", hintUser, "--password-stdin", "--registry-config", publisher); r.Code != 0 {
				t.Fatal(r.Stderr)
			}
			dir := t.TempDir()
			filetest.WriteFile(t, filepath.Join(dir, "stax.yaml"), "name: private\nversion: 1.0.0\n")
			writeSkillFiles(t, filepath.Join(dir, "skills"), map[string]string{"lint/SKILL.md": skillMD("lint", "Lint.")})
			ref := reg.Host + "/org/private:1.0.0"
			if r := runStax(t, "push", dir, ref, "--registry-config", publisher); r.Code != 0 {
				t.Fatal(r.Stderr)
			}
			config := filepath.Join(t.TempDir(), "config.json")
			return []string{"install", ref, "--no-save"}, map[string][]string{
				"install": {"--dir", t.TempDir(), "--registry-config", config},
				"login":   {"--registry-config", config},
			}
		}},
		{name: "a tag that is not there", setup: func(t *testing.T) ([]string, map[string][]string) {
			l := newLayering(t)
			return []string{"install", strings.TrimSuffix(l.org, "2.0.0") + "2.0.1", "--no-save"}, map[string][]string{"install": {"--dir", l.project}}
		}, resolved: func(t *testing.T, hint result) {
			if !strings.Contains(hint.Stdout, "2.0.0") {
				t.Errorf("the hint does not list the tag there is:\n%s", hint.Stdout)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			useHome(t)
			failed, where := tc.setup(t)
			// The user answers a prompt (stax login's) at a terminal.
			run := func(t *testing.T, args []string) result {
				t.Helper()
				terminal := &scriptedTerminal{answers: map[string]string{"Username: ": hintUser, "Password: ": hintPassword}}
				return runStaxWith(t, &IOStreams{In: strings.NewReader(""), Prompter: terminal}, append(slices.Clone(args), where[args[0]]...)...)
			}
			r := run(t, failed)
			if r.Code == 0 {
				t.Fatalf("%v did not fail", failed)
			}
			hints := hintsIn(r.Stderr, failed)
			if len(hints) == 0 {
				t.Fatalf("no hint in: %s", r.Stderr)
			}
			for i, hint := range hints {
				t.Run(strings.Join(hint, " "), func(t *testing.T) {
					useHome(t)
					if i > 0 {
						// Each hint is an alternative: run it from the same state.
						failed, where = tc.setup(t)
						if r := run(t, failed); r.Code == 0 {
							t.Fatalf("%v did not fail again", failed)
						}
					}
					h := run(t, hint)
					if h.Code != 0 {
						t.Fatalf("the hint `stax %s` of %q fails: exit %d %s", strings.Join(hint, " "), r.Stderr, h.Code, h.Stderr)
					}
					if tc.resolved != nil {
						tc.resolved(t, h)
					}
					if tc.rerun {
						if again := run(t, failed); again.Code != 0 {
							t.Errorf("after `stax %s`, %v still fails: exit %d %s", strings.Join(hint, " "), failed, again.Code, again.Stderr)
						}
					}
				})
			}
		})
	}
}

// TestHintsInFindsEachForm pins the forms of hint the messages use.
func TestHintsInFindsEachForm(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		"x: run stax install to update the lock":                     "install",
		"re-run `stax install` without --frozen to update the lock":  "install",
		"or keep them as your own with: stax uninstall --keep a,b":   "uninstall --keep a,b",
		"; r has the tags 1.0.0 (stax tags reg/r lists them)":        "tags reg/r",
		"rename or remove them, or pass --force to replace them":     "install --force",
		"authentication required for h: run `stax login h` (denied)": "login h",
	} {
		got := hintsIn(msg, []string{"install"})
		if len(got) != 1 || strings.Join(got[0], " ") != want {
			t.Errorf("hintsIn(%q) = %q, want %q", msg, got, want)
		}
	}
}
