package workflow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/scaffold"
	"github.com/stax-dev/stax/pkg/workflow"
)

// TestPushRefusesPlaceholders pins that a skill still holding what stax
// new skill scaffolded is not published by accident: push refuses it,
// naming the file and line and the flag, and pushes nothing; with
// AllowPlaceholders it is pushed as it is.
func TestPushRefusesPlaceholders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := writePackage(t, t.TempDir(), "team", "review")
	if _, err := scaffold.Skill(scaffold.Options{SkillsDir: filepath.Join(dir, "skills"), Name: "draft"}); err != nil {
		t.Fatal(err)
	}
	dst := layout(t)
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)

	_, err := workflow.Push(ctx, env, workflow.PushOptions{Source: dir, Destination: dst})
	if err == nil || errdefs.Of(err) != errdefs.InvalidArgument {
		t.Fatalf("push of a scaffolded skill: %v; want a refusal of class invalid", err)
	}
	for _, want := range []string{filepath.Join("draft", "SKILL.md") + ":4", "--allow-placeholders"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if _, err := os.Stat(strings.TrimPrefix(dst, "oci:")); !os.IsNotExist(err) {
		t.Errorf("the refused push created its destination: %v", err)
	}

	if _, err := workflow.Push(ctx, env, workflow.PushOptions{Source: dir, Destination: dst, AllowPlaceholders: true}); err != nil {
		t.Errorf("push with AllowPlaceholders: %v", err)
	}
}
