package install

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The install record is committed with the folder: it holds no file
// times, and a re-install still takes a file whose size and modification
// time are as this machine wrote them as recorded, unread, from the stat
// cache kept with the folder's lock. Without that cache (a fresh clone)
// every file is read: the same size and time in another checkout say
// nothing of its content.
func TestRecordHoldsNoStatAndTheCacheSkipsUnchangedFiles(t *testing.T) {
	dir, locks := filepath.Join(t.TempDir(), "skills"), t.TempDir()
	skill := testSkill(t, "a", "original\n")
	opts := Options{Dir: dir, LockDir: locks}
	if _, err := Install(context.Background(), []Skill{skill}, opts); err != nil {
		t.Fatal(err)
	}
	record, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(record), `"stat"`) {
		t.Fatalf("the record holds this checkout's file times:\n%s", record)
	}
	caches, _ := filepath.Glob(filepath.Join(locks, "*"+statCacheSuffix))
	if len(caches) != 1 {
		t.Fatalf("stat caches in the lock directory: %v, want one", caches)
	}

	// Same size, same modification time, other content: the cache says
	// it is as written, so it is not read.
	file := filepath.Join(dir, "a", "SKILL.md")
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("edited!!\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	res, err := Install(context.Background(), []Skill{skill}, opts)
	if err != nil || len(res.Unchanged) != 1 {
		t.Fatalf("re-install with the cache: %v %+v, want the skill unchanged, unread", err, res)
	}

	// Without the cache the file is read, and the edit seen.
	os.Remove(caches[0])
	_, err = Install(context.Background(), []Skill{skill}, opts)
	var modified *ModifiedError
	if !errors.As(err, &modified) {
		t.Fatalf("re-install without the cache: %v, want the edit found", err)
	}
}

// A record an older stax wrote holds the stat: it is read, its stat
// moved to the cache, and the record written again without it.
func TestRecordWithStatIsMigrated(t *testing.T) {
	dir, locks := filepath.Join(t.TempDir(), "skills"), t.TempDir()
	skill := testSkill(t, "a", "original\n")
	opts := Options{Dir: dir, LockDir: locks}
	if _, err := Install(context.Background(), []Skill{skill}, opts); err != nil {
		t.Fatal(err)
	}
	caches, _ := filepath.Glob(filepath.Join(locks, "*"+statCacheSuffix))
	if len(caches) != 1 {
		t.Fatalf("stat caches: %v", caches)
	}
	// Put the stat back into the record, as an older stax kept it.
	rec, err := ReadRecordIn(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	cache := openStatCache(caches[0])
	s := rec.Skills["a"]
	s.Stat = cache.lookup("a", s.Files)
	cache.close()
	if s.Stat == nil {
		t.Fatal("no stat cached for a")
	}
	rec.Skills["a"] = s
	writeJSON(t, filepath.Join(dir, RecordFile), rec)
	os.Remove(caches[0])

	res, err := Install(context.Background(), []Skill{skill}, opts)
	if err != nil || len(res.Unchanged) != 1 {
		t.Fatalf("re-install of an old record: %v %+v", err, res)
	}
	record, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(record), `"stat"`) {
		t.Errorf("the old record's stat stayed in it:\n%s", record)
	}
	if _, err := os.Stat(caches[0]); err != nil {
		t.Errorf("the old record's stat did not move to the cache: %v", err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Without the stat cache (a fresh clone), a skill whose files are all
// as recorded is kept as it is: read once, not staged again from its
// package; and the cache is written for the next install.
func TestMissingStatCacheKeepsSkillsAsRecorded(t *testing.T) {
	dir, locks := filepath.Join(t.TempDir(), "skills"), t.TempDir()
	skill := testSkill(t, "a", "original\n")
	opts := Options{Dir: dir, LockDir: locks}
	if _, err := Install(context.Background(), []Skill{skill}, opts); err != nil {
		t.Fatal(err)
	}
	caches, _ := filepath.Glob(filepath.Join(locks, "*"+statCacheSuffix))
	if len(caches) != 1 {
		t.Fatalf("stat caches: %v", caches)
	}
	os.Remove(caches[0])
	// Staging the skill again would read its source: there is none.
	if err := os.RemoveAll(skill.Source); err != nil {
		t.Fatal(err)
	}
	res, err := Install(context.Background(), []Skill{skill}, opts)
	if err != nil || len(res.Unchanged) != 1 {
		t.Fatalf("re-install without the cache: %v %+v, want the skill kept unread from its package", err, res)
	}
	if _, err := os.Stat(caches[0]); err != nil {
		t.Errorf("the stat cache was not written again: %v", err)
	}
}

// A file the user edits while an install reads the skill is not cached as
// what was read: the stat is taken before and after, and kept only when
// they agree, so the next install reads the file and finds the edit.
func TestStatOfASkillEditedWhileReadIsNotCached(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "a", "SKILL.md")
	if err := os.WriteFile(file, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, edit := range []bool{false, true} {
		s := &InstalledSkill{Files: map[string]string{"SKILL.md": "sha256:x"}}
		d, err := statAround(root, "a", s, false, func() (*Drift, error) {
			if edit { // the user saves the file as it is being hashed
				if err := os.WriteFile(file, []byte("the user's edit\n"), 0o644); err != nil {
					return nil, err
				}
			}
			return nil, nil // found as recorded
		})
		switch {
		case err != nil || d != nil:
			t.Fatalf("edit %v: %v %v", edit, d, err)
		case edit && s.Stat != nil:
			t.Errorf("a file edited while read was cached: %v", s.Stat)
		case !edit && (s.Stat["SKILL.md"] == "" || s.Stat["./"] == ""):
			t.Errorf("a skill read unchanged was not cached with its directories: %v", s.Stat)
		}
	}
}
