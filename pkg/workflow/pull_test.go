package workflow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/workflow"
)

// writePackage lays out a package directory named name holding skills.
func writePackage(t *testing.T, root, name string, skills ...string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	files := map[string]string{"stax.yaml": "name: " + name + "\nversion: 1.0.0\n"}
	for _, s := range skills {
		// A skill's name is lower case; a directory that is not gets
		// a name of its own.
		skillName := strings.ToLower(s)
		if skillName != s {
			skillName += "-upper"
		}
		files["skills/"+s+"/SKILL.md"] = "---\nname: " + skillName + "\ndescription: The " + s + " skill of " + name + ", for tests.\n---\n\nFrom " + name + ".\n"
	}
	for path, body := range files {
		path = filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// newEnv is an environment over a store of the test's own.
func newEnv(t *testing.T, warnings *bytes.Buffer) *workflow.Env {
	return &workflow.Env{
		Opener:   &target.Opener{StoreDir: filepath.Join(t.TempDir(), "store")},
		Getenv:   func(string) string { return "" },
		Warnings: warnings,
	}
}

func TestPullLayersPackagesIntoADirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	org := writePackage(t, root, "org", "review", "style")
	team := writePackage(t, root, "team", "review")
	var warnings bytes.Buffer
	out := filepath.Join(root, "out")

	res, err := workflow.Pull(context.Background(), newEnv(t, &warnings), workflow.PullOptions{Refs: []string{org, team}, OutputDir: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Packages) != 2 || len(res.Skills) != 2 || len(res.Overrides) != 1 {
		t.Fatalf("packages %v, skills %v, overrides %v: want 2 packages, 2 skills, 1 override", res.Packages, res.Skills, res.Overrides)
	}
	got, err := os.ReadFile(filepath.Join(out, "review", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "From team.") {
		t.Errorf("review/SKILL.md = %q: want the team's, which comes later", got)
	}
	if _, err := os.Stat(filepath.Join(out, "style", "SKILL.md")); err != nil {
		t.Errorf("the org's style skill is missing: %v", err)
	}
}

func TestPullStrictRefusesCaseCollisionsBeforeWriting(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	upper := writePackage(t, root, "upper", "Review")
	lower := writePackage(t, root, "lower", "review")
	if _, err := os.Stat(filepath.Join(upper, "skills", "review")); err == nil {
		t.Skip("case-insensitive file system")
	}
	out := filepath.Join(root, "out")
	var warnings bytes.Buffer

	_, err := workflow.Pull(context.Background(), newEnv(t, &warnings), workflow.PullOptions{Refs: []string{upper, lower}, OutputDir: out, Strict: true})
	if errdefs.Of(err) != errdefs.FailedPrecondition {
		t.Fatalf("err = %v: want a precondition error naming the collision", err)
	}
	if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
		t.Errorf("%s exists after a refused pull", out)
	}

	_, err = workflow.Pull(context.Background(), newEnv(t, &warnings), workflow.PullOptions{Refs: []string{upper, lower}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warnings.String(), "warning: ") {
		t.Errorf("warnings = %q: want the case collision", warnings.String())
	}
}
