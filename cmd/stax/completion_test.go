package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

// complete runs cobra's completion entry point and returns the values
// offered.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	r := runStax(t, append([]string{"__complete"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("__complete %v: %d %s", args, r.Code, r.Stderr)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if !strings.HasPrefix(line, ":") {
			out = append(out, strings.SplitN(line, "\t", 2)[0])
		}
	}
	return out
}

func TestCompletionValues(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	for _, cmd := range []string{"list", "show", "install", "uninstall", "verify"} {
		got := complete(t, cmd, "--runtime", "")
		for _, want := range []string{"claude-code", "claude", "copilot", "github-copilot", "codex"} {
			if !slices.Contains(got, want) {
				t.Errorf("%s --runtime: %v lacks %s", cmd, got, want)
			}
		}
	}

	skills := filepath.Join(examples, "skills")
	for _, cmd := range []string{"render", "bump"} {
		got := complete(t, cmd, "--dir", skills, "")
		if !slices.Equal(got, []string{"fix-issue", "incident-postmortem", "review-pr", "write-changelog"}) {
			t.Errorf("%s: %v", cmd, got)
		}
	}

	project := t.TempDir()
	filetest.WriteFile(t, filepath.Join(project, ".claude", "skills", "hello", "SKILL.md"), skillMD("hello", "Hi."))
	if got := complete(t, "show", "--runtime", "claude", "--dir", project, ""); !slices.Contains(got, "hello") {
		t.Errorf("show: %v", got)
	}

	if got := complete(t, "inspect", ""); len(got) != 0 {
		t.Errorf("inspect with no store: %v", got)
	}
	if _, err := os.Stat(filepath.Join(home, "store")); !os.IsNotExist(err) {
		t.Error("completion created the local store")
	}
	if r := runStax(t, "pack", examples, "-t", "example-skills:1.0.0"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	for _, cmd := range []string{"inspect", "push"} {
		if got := complete(t, cmd, ""); !slices.Equal(got, []string{"example-skills:1.0.0"}) {
			t.Errorf("%s: %v", cmd, got)
		}
	}
}

func TestRuntimeAliases(t *testing.T) {
	t.Parallel()
	useHome(t)
	project := t.TempDir()
	filetest.WriteFile(t, filepath.Join(project, ".github", "skills", "hello", "SKILL.md"), skillMD("hello", "Hi."))
	r := runStax(t, "list", "--runtime", "copilot", "--dir", project)
	if r.Code != 0 || !strings.Contains(r.Stdout, "hello") {
		t.Errorf("--runtime copilot: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	r = runStax(t, "list", "--runtime", "claud", "--dir", project)
	if r.Code != 1 || !strings.Contains(r.Stderr, "known runtimes: agents, claude-code (claude), cline, codex") {
		t.Errorf("unknown runtime: %d %s", r.Code, r.Stderr)
	}
}
