package workflow_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/workflow"
)

// TestInstallSaysOnceThatARuntimeReadsAnothersFolder pins the warning
// for skills one runtime would load from two of its folders because the
// install fills both: Cursor reads .cursor/skills and .claude/skills, so
// installing for Cursor and Claude Code puts every skill twice where
// Cursor looks. That is said once, not once a skill; Claude Code reads one
// of the two, and draws no warning.
func TestInstallSaysOnceThatARuntimeReadsAnothersFolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	proj := t.TempDir()
	ref := packLayout(t, writePackage(t, t.TempDir(), "team", "review", "lint", "deploy"), nil)
	env := homeEnv(t, t.TempDir())
	res, err := workflow.Install(ctx, env, workflow.InstallOptions{
		Where: workflow.Folders{ProjectDir: proj, Runtimes: []string{"cursor", "claude-code"}}, Sources: []string{ref},
	})
	if err != nil {
		t.Fatal(err)
	}
	var overlaps []string
	for _, w := range res.Warnings {
		switch w.Kind {
		case install.KindRuntimesOverlap:
			overlaps = append(overlaps, w.Message)
		case install.KindSeenTwice:
			t.Errorf("a warning a skill for what the overlap says once: %q", w.Message)
		}
	}
	if len(overlaps) != 1 {
		t.Fatalf("warnings %+v: want one of Cursor reading .claude/skills", res.Warnings)
	}
	for _, want := range []string{"Cursor reads " + filepath.Join(".claude", "skills"), "Claude Code", "leave cursor out"} {
		if !strings.Contains(overlaps[0], want) {
			t.Errorf("warning %q does not say %q", overlaps[0], want)
		}
	}
}
