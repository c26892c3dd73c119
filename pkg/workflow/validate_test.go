package workflow_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stax-dev/stax/pkg/workflow"
)

// Without Against, Validate reads no package, and needs no Opener.
func TestValidateReportsWithoutAnOpener(t *testing.T) {
	t.Parallel()
	dir := writePackage(t, t.TempDir(), "org", "review")
	report, err := workflow.Validate(context.Background(), &workflow.Env{}, workflow.ValidateOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !report.Valid {
		t.Errorf("report %+v: want valid skills", report)
	}

	// A skill whose name is not its directory's is a warning, which
	// Strict makes an error: reported, not returned.
	skill := filepath.Join(dir, "skills", "review", "SKILL.md")
	if err := os.WriteFile(skill, []byte("---\nname: other\ndescription: Misnamed, for tests.\n---\n\nBody.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	report, err = workflow.Validate(context.Background(), &workflow.Env{}, workflow.ValidateOptions{Dir: dir, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if report.Valid {
		t.Errorf("report %+v: want the misnamed skill invalid with Strict", report)
	}
}
