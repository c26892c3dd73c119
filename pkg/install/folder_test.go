package install

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/skill"
)

// A folder with no record holds the skills as their packages do: SKILL.md
// is written with its path variables as they are, and nothing is
// recorded beside the skills.
func TestWriteFolderWritesSkillsAsPackaged(t *testing.T) {
	t.Parallel()
	l, digests, opened := testLayer(t, map[string]string{"a": "a\n", "b": "b ${STAX_SKILL_DIR}\n", "loser": "x\n"})
	dir := t.TempDir()
	skills := []Skill{{Path: "a", Layer: l, Package: "p", Digest: digests["a"]}, {Path: "b", Layer: l, Package: "p", Digest: digests["b"]}}
	if err := WriteFolder(context.Background(), dir, skills, 0); err != nil {
		t.Fatal(err)
	}
	if *opened != 1 {
		t.Errorf("layer opened %d times, want once", *opened)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "a,b" {
		t.Errorf("folder holds %v, want the skills a and b alone", names)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "b", "SKILL.md")); err != nil || !strings.HasSuffix(string(got), "b ${STAX_SKILL_DIR}\n") {
		t.Errorf("b/SKILL.md = %q (%v), want the package's bytes", got, err)
	}
}

// A skill whose files do not hash to the digest its package records fails
// the write as corrupt, naming the skill and its package.
func TestWriteFolderChecksSkillDigests(t *testing.T) {
	t.Parallel()
	l, digests, _ := testLayer(t, map[string]string{"org-own": "o\n", "team-own": "t\n"})
	skills := []Skill{
		{Path: "org-own", Layer: l, Package: "./team", Digest: digests["org-own"]},
		{Path: "team-own", Layer: l, Package: "./team", Digest: digest.FromString("not these files")},
	}
	l.Name = "./team"
	err := WriteFolder(context.Background(), t.TempDir(), skills, 0)
	if errdefs.Of(err) != errdefs.DataLoss || !strings.Contains(err.Error(), "skill team-own of ./team: its files hash to") {
		t.Fatalf("err = %v (%v), want team-own's digest named as data loss", err, errdefs.Of(err))
	}
}

// Layers are written at once, and of layers failing at once the error is
// the first one's in order, as an install's.
func TestWriteFolderExtractsLayersConcurrently(t *testing.T) {
	t.Parallel()
	la, da, _ := testLayer(t, map[string]string{"a": "a\n"})
	lb, db, _ := testLayer(t, map[string]string{"b": "b\n"})
	g := newGate(2)
	g.wrap(la)
	g.wrap(lb)
	dir := t.TempDir()
	skills := []Skill{{Path: "a", Layer: la, Package: "pa", Digest: da["a"]}, {Path: "b", Layer: lb, Package: "pb", Digest: db["b"]}}
	if err := WriteFolder(context.Background(), dir, skills, 2); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		if _, err := os.Stat(filepath.Join(dir, name, "SKILL.md")); err != nil {
			t.Errorf("skill %s: %v", name, err)
		}
	}
	failed := errors.New("pa's failure")
	la.Open = func(context.Context, func(io.Reader) error) error { return failed }
	if err := WriteFolder(context.Background(), t.TempDir(), skills, 2); !errors.Is(err, failed) {
		t.Errorf("err = %v, want pa's", err)
	}
}

// WriteFolderFiles keeps each skill's SKILL.md as written, for stax mcp
// --package to list the skills without reading them back; not one over
// skill.MaxFileSize, which is read from its file to be refused.
func TestWriteFolderFilesKeepsSkillFiles(t *testing.T) {
	t.Parallel()
	large := strings.Repeat("x", skill.MaxFileSize+1)
	l, digests, _ := testLayer(t, map[string]string{"a": "a ${STAX_SKILL_DIR}\n", "large": large})
	skills := []Skill{{Path: "a", Layer: l, Package: "p", Digest: digests["a"]}, {Path: "large", Layer: l, Package: "p", Digest: digests["large"]}}
	dir := t.TempDir()
	got, err := WriteFolderFiles(context.Background(), dir, skills, 0)
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := os.ReadFile(filepath.Join(dir, "a", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	if a := got["a"]; a == nil || string(a.SkillFile) != string(onDisk) {
		t.Errorf("a's SkillFile = %q, want the bytes written, %q", a.SkillFile, onDisk)
	}
	if g := got["large"]; g == nil || g.SkillFile != nil {
		t.Errorf("large's SkillFile holds %d bytes, want none over the limit", len(g.SkillFile))
	}
}
