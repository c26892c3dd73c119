package workflow

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/gittest"
	"github.com/stax-dev/stax/pkg/semver"
)

// update --to moves a git source to a tag by its REF alone: a token the
// user wrote in its URL stays in stax.yaml (docs/sources.md), where the
// source written again without credentials left the next install unable
// to read a private repository.
func TestMoveGitToKeepsTheURLAsWritten(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "private")
	for _, v := range []string{"1.0.0", "1.1.0"} {
		repo.Write(map[string]string{"skills/pdf/SKILL.md": "---\nname: pdf\ndescription: PDF " + v + ". Use for PDFs.\n---\n\nRead PDFs.\n"})
		repo.Commit(v)
		repo.Tag("v"+v, "")
	}
	withToken := "git+" + strings.Replace(repo.URL, "://", "://user:s3cret@", 1) + "//skills/pdf"
	proj := t.TempDir()
	yaml := "install:\n  sources:\n    - ref: " + withToken + "#v1.1.0\n"
	if err := os.WriteFile(filepath.Join(proj, "stax.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := &Env{Getenv: func(k string) string {
		if k == "STAX_HOME" {
			return home
		}
		return os.Getenv(k)
	}}
	m, err := readProjectFile(proj)
	if err != nil {
		t.Fatal(err)
	}
	decls, err := m.declared(m.sources(), nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := semver.Parse("1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := moveGitTo(context.Background(), env, m, decls[0], v); err != nil {
		t.Fatal(err)
	}
	if want := withToken + "#v1.0.0"; !strings.Contains(string(m.edited), want) {
		t.Errorf("stax.yaml after update --to 1.0.0 does not name %s:\n%s", want, m.edited)
	}
}
