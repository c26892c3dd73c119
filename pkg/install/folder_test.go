package install

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
	got, err := WriteFolderFiles(context.Background(), dir, skills, 0, nil)
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

// WriteFolderFiles hands each skill, once written, to its each func, once,
// with what it returns of the skill; outside the lock the stagers of
// layers extracted at once share, so that the caller's work on one
// skill holds up no other layer: here each skill's call waits for the
// other's, which one lock held across both would never let happen.
func TestWriteFolderFilesHandsOnEachSkill(t *testing.T) {
	t.Parallel()
	la, da, _ := testLayer(t, map[string]string{"a": "a\n"})
	lb, db, _ := testLayer(t, map[string]string{"b": "b\n"})
	skills := []Skill{{Path: "a", Layer: la, Package: "pa", Digest: da["a"]}, {Path: "b", Layer: lb, Package: "pb", Digest: db["b"]}}
	var mu sync.Mutex
	handed := map[string][]*InstalledSkill{}
	var both sync.WaitGroup
	both.Add(2)
	each := func(path string, in *InstalledSkill) error {
		mu.Lock()
		handed[path] = append(handed[path], in)
		mu.Unlock()
		both.Done()
		met := make(chan struct{})
		go func() { both.Wait(); close(met) }()
		select {
		case <-met:
			return nil
		case <-time.After(deadline):
			return errors.New("each was called for one skill at a time")
		}
	}
	dir := t.TempDir()
	got, err := WriteFolderFiles(context.Background(), dir, skills, 2, each)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		if len(handed[name]) != 1 || handed[name][0] != got[name] {
			t.Errorf("skill %s handed on %d times, want once, with what WriteFolderFiles returns", name, len(handed[name]))
			continue
		}
		in := handed[name][0]
		onDisk, err := os.ReadFile(filepath.Join(dir, name, skill.FileName))
		if err != nil {
			t.Fatal(err)
		}
		if string(in.SkillFile) != string(onDisk) || in.Files[skill.FileName] != fileEntry(0o644, digest.FromBytes(onDisk)) || in.Stat[skill.FileName] == "" {
			t.Errorf("skill %s handed on with SkillFile %q, files %v, stat %v; want what was written, %q", name, in.SkillFile, in.Files, in.Stat, onDisk)
		}
	}
}

// An error of each ends the extraction with it.
func TestWriteFolderFilesEndsOnEachError(t *testing.T) {
	t.Parallel()
	l, digests, _ := testLayer(t, map[string]string{"a": "a\n", "b": "b\n"})
	skills := []Skill{{Path: "a", Layer: l, Package: "p", Digest: digests["a"]}, {Path: "b", Layer: l, Package: "p", Digest: digests["b"]}}
	failed := errors.New("the caller's failure")
	calls := 0
	_, err := WriteFolderFiles(context.Background(), t.TempDir(), skills, 0, func(string, *InstalledSkill) error {
		calls++
		return failed
	})
	if !errors.Is(err, failed) || calls != 1 {
		t.Errorf("err = %v after %d calls, want the caller's failure after the first", err, calls)
	}
}
