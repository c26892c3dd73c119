package workflow_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/workflow"
)

// TestInstallWarnsOfASkillARuntimeSeesTwice pins the warning for a skill
// one runtime would load from two of its folders: Cursor reads
// .cursor/skills and .claude/skills, so installing for Cursor and Claude
// Code puts review twice where Cursor looks. Claude Code reads one of the
// two, and draws no warning.
func TestInstallWarnsOfASkillARuntimeSeesTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	proj := t.TempDir()
	ref := packLayout(t, writePackage(t, t.TempDir(), "team", "review"), nil)
	env := homeEnv(t, t.TempDir())
	res, err := workflow.Install(ctx, env, workflow.InstallOptions{
		Where: workflow.Where{ProjectDir: proj, Runtimes: []string{"cursor", "claude-code"}}, Sources: []string{ref},
	})
	if err != nil {
		t.Fatal(err)
	}
	var twice []string
	for _, w := range res.Warnings {
		if strings.Contains(w, "twice") {
			twice = append(twice, w)
		}
	}
	if len(twice) != 1 {
		t.Fatalf("warnings %q: want one of Cursor seeing review twice", res.Warnings)
	}
	for _, want := range []string{"review", "Cursor", filepath.Join(".cursor", "skills", "review"), filepath.Join(".claude", "skills", "review")} {
		if !strings.Contains(twice[0], want) {
			t.Errorf("warning %q does not name %q", twice[0], want)
		}
	}
}
