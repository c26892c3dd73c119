package workflow_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stax-dev/stax/pkg/workflow"
)

// A package read from a layout has each skill checked against its config.
func TestInspectVerifiesTheSkillsOfALayout(t *testing.T) {
	t.Parallel()
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)
	layout := writeLayout(t, env, writePackage(t, t.TempDir(), "org", "review", "style"))

	res, err := workflow.Inspect(context.Background(), env, workflow.InspectOptions{Ref: layout + ":1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != "layout" || res.Config.Name != "org" || len(res.Skills) != 2 {
		t.Fatalf("source %s, package %s, skills %v: want the layout's org with 2 skills", res.Source, res.Config.Name, res.Skills)
	}
	for _, s := range res.Skills {
		if s.Verified == nil || !*s.Verified || s.Files != 1 || s.Frontmatter["name"] != s.Path {
			t.Errorf("skill %+v: want verified, with its one file and frontmatter", s)
		}
	}
	if res.Mismatched() {
		t.Error("Mismatched() on a package whose skills match")
	}
}
