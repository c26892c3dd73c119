package install

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// An entry the spool could not write, encoded after add returned, is
// still an error: flush reports it, and the record is not written.
func TestSpoolReportsAWriteError(t *testing.T) {
	folder, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer folder.Close()
	if err := folder.Mkdir("staging", 0o700); err != nil {
		t.Fatal(err)
	}
	sp, err := newSpool(folder, "staging")
	if err != nil {
		t.Fatal(err)
	}
	sp.f.Close() // every write fails
	if err := sp.add("a", &InstalledSkill{Package: "p"}); err != nil {
		t.Fatal(err)
	}
	if err := sp.flush(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("flush: %v, want the write's error", err)
	}
	if err := sp.write(folder); !errors.Is(err, os.ErrClosed) || errdefs.Of(err) != errdefs.Local {
		t.Errorf("write: %v, want the write's error, an I/O error", err)
	}
	if _, err := folder.Stat(RecordFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a record was written: %v", err)
	}
}

// The record an install writes from its spool, one skill at a time, is
// the bytes json.MarshalIndent gives for the whole record.
func TestSpoolWritesWhatMarshalIndentWrites(t *testing.T) {
	folder, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer folder.Close()
	if err := folder.Mkdir("staging", 0o700); err != nil {
		t.Fatal(err)
	}
	sp, err := newSpool(folder, "staging")
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	want := &Record{InstalledBy: "stax", Skills: map[string]InstalledSkill{}}
	stats := map[string]InstalledSkill{}
	for i, name := range []string{"zeta", "a&b<c>", "ünï", "skill-1", "Skill-1", "x"} {
		s := InstalledSkill{Package: "oci:p<" + name + ">:1", PackageDigest: digest.FromString(name), Digest: digest.FromString(name + "!"),
			Files: map[string]string{"SKILL.md": "644 " + digest.FromString(name).String(), "scripts/run.sh": "755 sha256:x"}}
		if i%2 == 0 {
			s.Stat = map[string]string{"SKILL.md": fmt.Sprint(i, " 1")}
			s.Vars = "sha256:v"
		}
		// An entry added again replaces the first.
		if err := sp.add(name, &InstalledSkill{Package: "first"}); err != nil {
			t.Fatal(err)
		}
		if err := sp.add(name, &s); err != nil {
			t.Fatal(err)
		}
		// The record holds no stat: it is this checkout's, kept in the
		// stat cache.
		recorded := s
		recorded.Stat = nil
		want.Skills[name] = recorded
		stats[name] = s
	}
	var got bytes.Buffer
	if err := sp.writeTo(&got); err != nil {
		t.Fatal(err)
	}
	whole, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if whole = append(whole, '\n'); !bytes.Equal(got.Bytes(), whole) {
		t.Fatalf("spool wrote\n%s\nwant\n%s", got.Bytes(), whole)
	}
	if d, _ := sp.digest(); d != digest.FromBytes(whole) {
		t.Errorf("digest %s, want %s", d, digest.FromBytes(whole))
	}

	// The stat goes to the cache, read back in the record's order, and
	// only for the files it was taken of.
	cachePath := filepath.Join(t.TempDir(), "k"+statCacheSuffix)
	sp.writeStat(cachePath)
	cache := openStatCache(cachePath)
	if cache == nil {
		t.Fatal("no stat cache written")
	}
	defer cache.close()
	for _, name := range slices.Sorted(maps.Keys(stats)) {
		s := stats[name]
		files := s.Files
		if name == "zeta" {
			files = map[string]string{"SKILL.md": "644 sha256:other"}
		}
		got := cache.lookup(name, files)
		switch {
		case name == "zeta" && got != nil:
			t.Errorf("%s: the stat of other files was taken: %v", name, got)
		case name != "zeta" && !maps.Equal(got, s.Stat):
			t.Errorf("%s: stat %v, want %v", name, got, s.Stat)
		}
	}
}

// A record that names a skill twice was not written by stax: nothing is
// done (exit 2), rather than one entry silently winning.
func TestRecordNamingASkillTwiceIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "skills")
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	rec := `{"installedBy":"stax","skills":{"a":{"digest":"sha256:1","files":{}},"a":{"digest":"sha256:2","files":{}}}}`
	if err := os.WriteFile(filepath.Join(dir, RecordFile), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Uninstall(context.Background(), Options{Dir: dir, LockDir: t.TempDir()})
	if errdefs.Of(err) != errdefs.Local || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("err = %v (%v), want a local error naming the entry", err, errdefs.Of(err))
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err != nil {
		t.Errorf("the skill was removed: %v", err)
	}
}

// A journal written by an older stax holds the record and the lock file
// in itself, not copies beside it: a crash it describes is still rolled
// back.
func TestRecoverFromAnOlderJournal(t *testing.T) {
	steps := countSteps(t, recordPlaces[0])
	// The records and the lock file are written by the commit, which
	// comes a step earlier than in steps: the install here writes one
	// file, not two.
	k := slices.Index(steps, "commit") - 1
	w := newCrashWorld(t, recordPlaces[0])
	// An older stax wrote one file with the folders.
	w.manifest = ""
	old := w.state(t)
	func() {
		defer func() { recover() }()
		atStep(k, func() error { panic(errInjected) }, func() error { return w.next(t) })
	}()
	for _, dir := range w.dirs {
		unlock, journal, err := lockFolder(context.Background(), w.locks, dir)
		if err != nil {
			t.Fatal(err)
		}
		unlock()
		var j journalData
		data, err := os.ReadFile(journal)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &j); err != nil || !j.RecordCopied || len(j.Files) != 1 || j.Files[0].Old == "" {
			t.Fatalf("journal %s: %v", data, err)
		}
		// Older journals name their one file Lock.
		j.Lock, j.Files = j.Files[0], nil
		j.Lock.Copy, j.Lock.Mode = "", 0
		for _, kept := range []struct {
			copy, now string
			into      *string
		}{
			{previousRecord(j.Staging), filepath.Join(dir, RecordFile), &j.Record},
			{previousLock(j.Staging), w.lockPath, &j.Lock.Previous},
		} {
			was, err := os.ReadFile(filepath.Join(dir, kept.copy))
			if err != nil {
				t.Fatal(err)
			}
			if now, _ := os.ReadFile(kept.now); bytes.Equal(now, was) {
				t.Fatalf("%s was not written before the crash: nothing to restore", kept.now)
			}
			*kept.into = string(was)
			os.Remove(filepath.Join(dir, kept.copy))
		}
		j.RecordCopied, j.Lock.Old = false, ""
		if data, err = json.Marshal(j); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(journal, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range w.dirs {
		if _, err := Recover(context.Background(), dir, w.locks); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.state(t); got != old {
		t.Fatalf("after recovery:\n%s\nwant the old install:\n%s", got, old)
	}
}

// A layer whose skill is split, its entries on either side of another
// skill's, is refused before anything is swapped in: an install settles
// each skill when the layer moves past it. pull -o, which extracted such
// a layer before it wrote through install, refuses it too.
func TestLayerWithASplitSkillIsRefused(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	files := [][2]string{{"a/SKILL.md", "a\n"}, {"b/SKILL.md", "b\n"}, {"a/more.md", "more\n"}}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, f[1])
	}
	tw.Close()
	zw.Close()
	var digests []layers.FileDigest
	for _, f := range files {
		digests = append(digests, layers.FileDigest{Path: f[0], Digest: digest.NewDigestFromBytes(digest.SHA256, sum(f[1]))})
	}
	skillDigests := layers.SkillDigests(digests)
	l := &Layer{Name: "split", Open: func(_ context.Context, read func(io.Reader) error) error {
		return read(bytes.NewReader(buf.Bytes()))
	}}
	dir := filepath.Join(t.TempDir(), "skills")
	skills := []Skill{{Path: "a", Layer: l, Package: "p", Digest: skillDigests["a"]}, {Path: "b", Layer: l, Package: "p", Digest: skillDigests["b"]}}
	_, err := Install(context.Background(), skills, Options{Dir: dir, LockDir: t.TempDir()})
	var unsafe *layers.UnsafeEntryError
	if !errors.As(err, &unsafe) || !strings.Contains(err.Error(), "skill a are not together") || errdefs.Of(err) != errdefs.FailedPrecondition {
		t.Fatalf("err = %v (%v), want the split skill named", err, errdefs.Of(err))
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the folder was left: %v", err)
	}
	// A folder with no record (pull -o) is written by the same
	// extraction, and refuses it alike.
	err = WriteFolder(context.Background(), t.TempDir(), skills, 0)
	if !errors.As(err, &unsafe) || !strings.Contains(err.Error(), "skill a are not together") || errdefs.Of(err) != errdefs.FailedPrecondition {
		t.Fatalf("WriteFolder: err = %v (%v), want the split skill named", err, errdefs.Of(err))
	}
}

func sum(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// A re-install lists again only the directories whose time changed, so a
// file added anywhere in an installed skill changes the time of the
// directory that holds it, and is found: in a subdirectory, in an empty
// one, and at the top; as is one removed.
func TestReinstallFindsChangesInEveryDirectory(t *testing.T) {
	for _, change := range []struct {
		name string
		do   func(skill string) error
		want string
	}{
		{"added in a subdirectory", func(skill string) error {
			return os.WriteFile(filepath.Join(skill, "scripts", "new.sh"), []byte("x"), 0o644)
		}, "added scripts/new.sh"},
		{"added in an empty directory", func(skill string) error {
			return os.WriteFile(filepath.Join(skill, "assets", "empty", "x.txt"), []byte("x"), 0o644)
		}, "added assets/empty/x.txt"},
		{"added at the top", func(skill string) error {
			return os.WriteFile(filepath.Join(skill, "MEMORY.md"), []byte("x"), 0o644)
		}, "added MEMORY.md"},
		{"removed", func(skill string) error {
			return os.Remove(filepath.Join(skill, "scripts", "run.sh"))
		}, "removed scripts/run.sh"},
		{"a directory in a file's place", func(skill string) error {
			p := filepath.Join(skill, "scripts", "run.sh")
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.MkdirAll(filepath.Join(p, "deeper"), 0o755)
		}, "removed scripts/run.sh"},
	} {
		t.Run(change.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "s")
			for _, d := range []string{"scripts", filepath.Join("assets", "empty")} {
				if err := os.MkdirAll(filepath.Join(src, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for f, body := range map[string]string{"SKILL.md": "s\n", "scripts/run.sh": "#!/bin/sh\n"} {
				if err := os.WriteFile(filepath.Join(src, filepath.FromSlash(f)), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			skills := []Skill{{Path: "s", Source: src, Package: "p", Digest: digest.FromString("s")}}
			opts := Options{Dir: filepath.Join(t.TempDir(), "skills"), LockDir: t.TempDir()}
			for range 2 { // the second records the stat the first left
				if _, err := Install(context.Background(), skills, opts); err != nil {
					t.Fatal(err)
				}
			}
			if err := change.do(filepath.Join(opts.Dir, "s")); err != nil {
				t.Fatal(err)
			}
			skills[0].Digest = digest.FromString("s2") // an update, which would replace the skill
			_, err := Install(context.Background(), skills, opts)
			var modified *ModifiedError
			if !errors.As(err, &modified) || !strings.Contains(err.Error(), change.want) {
				t.Fatalf("err = %v, want the change (%s) named", err, change.want)
			}
		})
	}
}

// The stat keys of a record name directories a re-install opens: one that
// is not a path inside a skill is refused with the record named, and
// nothing is changed (exit 2).
func TestRecordWithAHostileDirectoryKeyIsRefused(t *testing.T) {
	for _, key := range []string{"../", "a/../../", "/etc/", "x\x00/"} {
		t.Run(fmt.Sprintf("%q", key), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "skills")
			if err := os.MkdirAll(filepath.Join(dir, "s"), 0o755); err != nil {
				t.Fatal(err)
			}
			rec, _ := json.Marshal(Record{InstalledBy: "stax", Skills: map[string]InstalledSkill{"s": {
				Digest: "sha256:1", Files: map[string]string{}, Stat: map[string]string{"./": "0 0", key: "0 0"}}}})
			if err := os.WriteFile(filepath.Join(dir, RecordFile), rec, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Install(context.Background(), nil, Options{Dir: dir, LockDir: t.TempDir()})
			if errdefs.Of(err) != errdefs.Local || !strings.Contains(err.Error(), RecordFile) || !strings.Contains(err.Error(), "cannot be in a skill") {
				t.Fatalf("err = %v (%v), want the record and the entry named", err, errdefs.Of(err))
			}
			if _, err := os.Stat(filepath.Join(dir, "s")); err != nil {
				t.Errorf("the skill was removed: %v", err)
			}
		})
	}
}
