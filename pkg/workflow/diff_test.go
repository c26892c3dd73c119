package workflow_test

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/workflow"
)

// Two directories are built and compared; each build is reported as it
// is made.
func TestDiffComparesTwoDirectories(t *testing.T) {
	t.Parallel()
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)
	before := writePackage(t, t.TempDir(), "org", "review")
	after := writePackage(t, t.TempDir(), "org", "review", "style")
	built := 0
	res, err := workflow.Diff(context.Background(), env, workflow.DiffOptions{
		A: before, B: after, Built: func(*pack.Result) { built++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Identical || !slices.Equal(res.Added, []string{"style"}) || len(res.Removed) != 0 || len(res.Changed) != 0 {
		t.Errorf("identical %v, added %v, removed %v, changed %v: want style added alone", res.Identical, res.Added, res.Removed, res.Changed)
	}
	if built != 2 || res.A.Source != "directory" {
		t.Errorf("built %d, A's source %q: want two directories built", built, res.A.Source)
	}
}
