package merge_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/merge"
)

// plantStaging leaves beside a pull target what a run leaves there while
// it stages: a staging directory holding its lock file and half the skills,
// aged as a run killed a while ago.
func plantStaging(t *testing.T, parent, name string) string {
	t.Helper()
	dir := filepath.Join(parent, ".stax-staging-merge-"+name)
	filetest.WriteFile(t, filepath.Join(dir, ".stax-scratch.lock"), "")
	filetest.WriteFile(t, filepath.Join(dir, "out", "half", "SKILL.md"), "half\n")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A pull beside a killed pull's staging directory removes it; a live
// pull's (its lock held) stays, and so does a folder of that name stax did
// not make (no lock file in it).
func TestMaterializeRemovesDeadRunsStaging(t *testing.T) {
	root := layered(t)
	g := resolveDirs(t, root, "./org", "./team")
	parent := t.TempDir()
	dead := plantStaging(t, parent, "dead")
	live := plantStaging(t, parent, "live")
	held := flock.New(filepath.Join(live, ".stax-scratch.lock"))
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	foreign := filepath.Join(parent, ".stax-staging-merge-"+"not-ours")
	filetest.WriteFile(t, filepath.Join(foreign, "notes.md"), "mine\n")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(foreign, old, old); err != nil {
		t.Fatal(err)
	}

	if err := merge.Merge(g.Order).Materialize(context.Background(), filepath.Join(parent, "skills"), merge.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a killed pull's staging %s is still there (%v)", dead, err)
	}
	for _, keep := range []string{filepath.Join(live, "out", "half", "SKILL.md"), filepath.Join(foreign, "notes.md")} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s was removed: %v", keep, err)
		}
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 3 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("beside the target: %v; want skills, the live staging and the foreign folder only", names)
	}
}

// A target named with a trailing separator is the same directory: the
// skills go into it, and nothing is staged inside it.
func TestMaterializeIntoADirectoryNamedWithATrailingSeparator(t *testing.T) {
	t.Parallel()
	root := layered(t)
	g := resolveDirs(t, root, "./org", "./team")
	parent := t.TempDir()
	dest := filepath.Join(parent, "skills") + string(filepath.Separator)
	if err := merge.Merge(g.Order).Materialize(context.Background(), dest, merge.Options{}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 || entries[0].Name() != "skills" {
		t.Errorf("beside the target: %v; want skills alone", entries)
	}
	inside, _ := os.ReadDir(dest)
	for _, e := range inside {
		if strings.HasPrefix(e.Name(), ".stax") {
			t.Errorf("%s left in the target", e.Name())
		}
	}
}
