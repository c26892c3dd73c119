package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	"github.com/stax-dev/stax/layers"
)

// skillsIn renders the skills of the folder dir with their files, leaving
// out stax's own entries there (the record, staging directories), whose
// names start with a dot as no skill's can.
func skillsIn(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		for _, line := range strings.SplitAfter(listTree(t, filepath.Join(dir, e.Name())), "\n") {
			if strings.TrimSpace(line) != "" {
				b.WriteString(e.Name() + "/" + line)
			}
		}
	}
	return b.String()
}

// versioned is testSkill at a version of its own: a skill of the digest
// of one already installed is taken as that one.
func versioned(t *testing.T, name, body string) Skill {
	s := testSkill(t, name, body)
	s.Digest = digest.FromString(body)
	return s
}

// A skill named previous, which the staging directory once named the
// entry that held what an install replaces (installing it failed with
// "file exists"), is installed, updated, removed and uninstalled as any
// other.
func TestSkillNamedPrevious(t *testing.T) {
	t.Parallel()
	dir, locks := t.TempDir(), t.TempDir()
	opts := Options{Dir: dir, LockDir: locks}
	steps := []struct {
		skills []Skill
		want   string // what the result says changed
		tree   string
	}{
		{[]Skill{versioned(t, "previous", "v1\n"), versioned(t, "other", "v1\n")},
			"installed [other previous] updated [] removed []", "other/SKILL.md: v1\nprevious/SKILL.md: v1\n"},
		{[]Skill{versioned(t, "previous", "v2\n"), versioned(t, "other", "v1\n")},
			"installed [] updated [previous] removed []", "other/SKILL.md: v1\nprevious/SKILL.md: v2\n"},
		{[]Skill{versioned(t, "other", "v2\n")},
			"installed [] updated [other] removed [previous]", "other/SKILL.md: v2\n"},
		{[]Skill{versioned(t, "previous", "v3\n"), versioned(t, "other", "v2\n")},
			"installed [previous] updated [] removed []", "other/SKILL.md: v2\nprevious/SKILL.md: v3\n"},
	}
	for i, s := range steps {
		res, err := Install(context.Background(), s.skills, opts)
		if err != nil {
			t.Fatalf("install %d: %v", i, err)
		}
		if got := fmt.Sprintf("installed %v updated %v removed %v", res.Installed, res.Updated, res.Removed); got != s.want {
			t.Errorf("install %d: %s, want %s", i, got, s.want)
		}
		if got := skillsIn(t, dir); got != s.tree {
			t.Errorf("install %d left the folder:\n%s\nwant:\n%s", i, got, s.tree)
		}
	}
	res, err := Uninstall(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Removed) != "[other previous]" {
		t.Errorf("uninstall removed %v, want [other previous]", res.Removed)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("uninstall left %v in the folder", entries)
	}
}

// Every entry an install makes in its staging directory for itself has
// a name the safe-name rule refuses a skill: a skill of the same name
// would collide with it. By the commit, the staged skills are in the
// folders, and the crash world's install has made each kind of entry (a
// record and files kept, skills moved aside).
func TestStagingEntriesAreNoSkillNames(t *testing.T) {
	w := newCrashWorldUpdating(t, recordPlaces[0], "other")
	var seen []string
	step = func(s string) error {
		if s != "commit" {
			return nil
		}
		for _, dir := range w.dirs {
			stagings, _ := filepath.Glob(filepath.Join(dir, layers.StagingPrefix+"*"))
			for _, staging := range stagings {
				entries, err := os.ReadDir(staging)
				if err != nil {
					return err
				}
				for _, e := range entries {
					seen = append(seen, e.Name())
					if layers.CheckName(e.Name()) == nil {
						t.Errorf("the staging directory %s holds %s, which a skill may be named", staging, e.Name())
					}
				}
			}
		}
		return nil
	}
	defer func() { step = func(string) error { return nil } }()
	if err := w.next(t); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{previousDir, spoolName, filepath.Base(previousRecord("")), previousFile(0), previousFile(1)} {
		if !slices.Contains(seen, kind) {
			t.Errorf("the staging directories held %q, not %s: not every kind of entry was made", seen, kind)
		}
	}
}

// An older stax, killed in the middle of an install, left a staging
// directory in which what the install replaced was under "previous", and
// a journal that names it so: this stax rolls it back all the same, as
// the journal names every move in full.
func TestOlderStagingDirectoryIsRolledBack(t *testing.T) {
	// The older stax could not install a skill named previous.
	older := func(t *testing.T) *crashWorld { return newCrashWorldUpdating(t, recordPlaces[0], "other") }
	var steps []string
	counted := older(t)
	step = func(s string) error { steps = append(steps, s); return nil }
	err := counted.next(t)
	step = func(string) error { return nil }
	if err != nil {
		t.Fatal(err)
	}
	for k, name := range steps {
		if !strings.HasPrefix(name, "move ") && !strings.HasPrefix(name, "record ") && name != "lock" {
			continue
		}
		t.Run(fmt.Sprintf("%d %s", k, name), func(t *testing.T) {
			w := older(t)
			old := w.state(t)
			func() {
				defer func() { recover() }()
				atStep(k, func() error { panic(errInjected) }, func() error { return w.next(t) })
			}()
			asOlderStax(t, w.locks)
			for _, dir := range w.dirs {
				if _, err := Recover(context.Background(), dir, w.locks); err != nil {
					t.Fatal(err)
				}
			}
			if got := w.state(t); got != old {
				t.Fatalf("after an older stax's crash at %s and recovery:\n%s\nwant the old install:\n%s", name, got, old)
			}
			if err := w.next(t); err != nil {
				t.Fatalf("rerun: %v", err)
			}
			if l := w.leftovers(t); len(l) > 0 {
				t.Errorf("left behind: %v", l)
			}
		})
	}
}

// asOlderStax rewrites what a crashed install left, journals in lockDir
// and the staging directories they name, as an older stax left them: what
// the install replaced in "previous" rather than previousDir.
func asOlderStax(t *testing.T, lockDir string) {
	t.Helper()
	journals := rewriteJournals(t, lockDir, func(j *journalData) {
		staging := filepath.Join(j.Base, j.Folder, j.Staging)
		if err := os.Rename(filepath.Join(staging, previousDir), filepath.Join(staging, "previous")); err != nil {
			t.Fatal(err)
		}
		ours := filepath.Join(j.Folder, j.Staging, previousDir) + string(filepath.Separator)
		for i, m := range j.Moves {
			if rest, ok := strings.CutPrefix(m[1], ours); ok {
				j.Moves[i][1] = filepath.Join(j.Folder, j.Staging, "previous", rest)
			}
		}
	})
	if len(journals) == 0 {
		t.Fatal("the crash left no journal")
	}
}
