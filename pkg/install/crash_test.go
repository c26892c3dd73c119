package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// crashWorld is two folders of one project installed together with a
// lock file and a manifest (as stax.lock and stax.yaml are), holding an
// old install, about to get a new one. With
// records set, their records are kept there (as user scope keeps them
// under $STAX_HOME) rather than in the folders.
type crashWorld struct {
	root, locks string
	dirs        []string
	lockPath    string
	manifest    string
	records     string
	// updated names a skill the new install updates, unchanged by the
	// user: previous, as the staging directory's entry for what an
	// install replaces was once named, unless a test names another.
	updated string
}

// recordPlaces are where the crash tests keep the records: in the
// folders, and out of them.
var recordPlaces = []string{"in the folder", "out of the folder"}

func newCrashWorld(t *testing.T, place string) *crashWorld {
	return newCrashWorldUpdating(t, place, "previous")
}

// newCrashWorldUpdating is newCrashWorld with the skill named updated.
func newCrashWorldUpdating(t *testing.T, place, updated string) *crashWorld {
	t.Helper()
	root := t.TempDir()
	w := &crashWorld{root: root, locks: t.TempDir(), lockPath: filepath.Join(root, "stax.lock"), manifest: filepath.Join(root, "stax.yaml"),
		dirs: []string{filepath.Join(root, ".claude", "skills"), filepath.Join(root, ".agents", "skills")}, updated: updated}
	if place == recordPlaces[1] {
		w.records = filepath.Join(t.TempDir(), "records")
	}
	if err := os.MkdirAll(w.dirs[0], 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.dirs[0], "MEMORY-mine.md"), []byte("the user's file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := []Skill{testSkill(t, "keep", "v1\n"), testSkill(t, "gone", "bye\n"), versioned(t, updated, "v1\n")}
	if _, err := InstallAll(context.Background(), w.dirs, old, w.options([]byte("old\n"))); err != nil {
		t.Fatal(err)
	}
	// The user has added to an installed skill: the new install, with
	// --force, moves it to a backup.
	if err := os.WriteFile(filepath.Join(w.dirs[0], "keep", "MEMORY.md"), []byte("learned\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// options write lock into both the lock file and the manifest (unless
// it is ""): the two say the same whenever an install is complete.
func (w *crashWorld) options(lock []byte) Options {
	write := func(out io.Writer) error { _, err := out.Write(lock); return err }
	files := []LockFile{{Path: w.lockPath, Write: write}}
	if w.manifest != "" {
		files = append(files, LockFile{Path: w.manifest, Mode: 0o600, Write: write})
	}
	return Options{Root: w.root, LockDir: w.locks, Files: files, Force: true, Records: w.records}
}

// check compares the record of dir with the folder, wherever it is kept.
func (w *crashWorld) check(t *testing.T, dir string) ([]Drift, error) {
	recordDir, err := RecordDir(w.records, w.root, dir)
	if err != nil {
		t.Fatal(err)
	}
	return CheckIn(dir, recordDir)
}

func (w *crashWorld) next(t *testing.T) error {
	_, err := InstallAll(context.Background(), w.dirs, w.nextSkills(t), w.options([]byte("new\n")))
	return err
}

// nextSkills are the skills of the new install.
func (w *crashWorld) nextSkills(t *testing.T) []Skill {
	return []Skill{testSkill(t, "keep", "v2\n"), testSkill(t, "new", "hi\n"), versioned(t, w.updated, "v2\n")}
}

// state is every file of the project, the lock file included, and the
// records kept out of the folders.
func (w *crashWorld) state(t *testing.T) string {
	if w.records == "" {
		return listTree(t, w.root)
	}
	return listTree(t, w.root) + "records:\n" + listTree(t, filepath.Dir(w.records))
}

// leftovers lists what a finished install must not leave: staging
// directories, journals, commit markers, temporary files.
func (w *crashWorld) leftovers(t *testing.T) []string {
	var found []string
	dirs := append(w.dirs, w.locks, w.root)
	for _, dir := range w.dirs {
		if recordDir, _ := RecordDir(w.records, w.root, dir); recordDir != "" {
			dirs = append(dirs, recordDir)
		}
	}
	for _, dir := range dirs {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			n := e.Name()
			if strings.HasPrefix(n, ".stax-staging-") || strings.HasSuffix(n, ".journal.json") || strings.HasSuffix(n, ".committed") ||
				strings.HasPrefix(n, "..stax") || strings.HasPrefix(n, ".stax.lock") || strings.HasPrefix(n, ".stax.yaml") {
				found = append(found, filepath.Join(dir, n))
			}
		}
	}
	return found
}

// countSteps runs an install with a hook that only counts.
func countSteps(t *testing.T, place string) []string {
	w := newCrashWorld(t, place)
	var steps []string
	step = func(s string) error { steps = append(steps, s); return nil }
	defer func() { step = func(string) error { return nil } }()
	if err := w.next(t); err != nil {
		t.Fatal(err)
	}
	return steps
}

var errInjected = errors.New("injected failure")

// atStep runs install with the k-th step (from 0) replaced by what.
func atStep(k int, what func() error, install func() error) error {
	n := 0
	step = func(string) error {
		if n++; n == k+1 {
			return what()
		}
		return nil
	}
	defer func() { step = func(string) error { return nil } }()
	return install()
}

// A failure at any step of the commit leaves the old install and lock
// file exactly, and a rerun without --force installs the new one.
func TestFailureAtEveryStepRollsBack(t *testing.T) {
	for _, place := range recordPlaces {
		t.Run(place, func(t *testing.T) { failureAtEveryStep(t, place) })
	}
}

func failureAtEveryStep(t *testing.T, place string) {
	steps := countSteps(t, place)
	if len(steps) < 8 {
		t.Fatalf("too few steps to test: %v", steps)
	}
	for k, name := range steps {
		t.Run(fmt.Sprintf("%d %s", k, name), func(t *testing.T) {
			w := newCrashWorld(t, place)
			old := w.state(t)
			err := atStep(k, func() error { return errInjected }, func() error { return w.next(t) })
			if !errors.Is(err, errInjected) {
				t.Fatalf("err = %v", err)
			}
			if got := w.state(t); got != old {
				t.Fatalf("after a failure at %s:\n%s\nwant the old install:\n%s", name, got, old)
			}
			if l := w.leftovers(t); len(l) > 0 {
				t.Errorf("left behind: %v", l)
			}
			// The project had no .stax: the directories the install made
			// for its backups go with them.
			if _, err := os.Stat(filepath.Join(w.root, ".stax")); !errors.Is(err, os.ErrNotExist) {
				backups, _ := os.ReadDir(filepath.Join(w.root, BackupDir))
				t.Errorf("a rolled back install left its backup directory (%v): %v", err, backups)
			}
			if err := w.next(t); err != nil {
				t.Fatalf("rerun: %v", err)
			}
			_, stillThere := os.Stat(filepath.Join(w.dirs[0], "keep", "MEMORY.md"))
			if got := w.state(t); !strings.Contains(got, "keep/MEMORY.md: learned") || stillThere == nil {
				t.Errorf("the user's addition is not in a backup:\n%s", got)
			}
			if got := w.state(t); !strings.Contains(got, "keep/SKILL.md: v2") || strings.Contains(got, "gone/") || !strings.Contains(got, "stax.lock: new") ||
				strings.Count(got, "previous/SKILL.md: v2") != 2 {
				t.Errorf("rerun did not install the new one:\n%s", got)
			}
		})
	}
}

// A crash (here a panic, which like a kill runs no rollback) at any step
// leaves a state the next run repairs: old or new, never a mix, with the
// record and the lock file describing what is on disk; and a rerun
// without --force installs the new one.
func TestCrashAtEveryStepIsRecovered(t *testing.T) {
	for _, place := range recordPlaces {
		t.Run(place, func(t *testing.T) { crashAtEveryStep(t, place) })
	}
}

func crashAtEveryStep(t *testing.T, place string) {
	steps := countSteps(t, place)
	for k, name := range steps {
		t.Run(fmt.Sprintf("%d %s", k, name), func(t *testing.T) {
			w := newCrashWorld(t, place)
			old := w.state(t)
			func() {
				defer func() { recover() }()
				atStep(k, func() error { panic(errInjected) }, func() error { return w.next(t) })
			}()

			var notes []string
			for _, dir := range w.dirs {
				note, err := Recover(context.Background(), dir, w.locks)
				if err != nil {
					t.Fatal(err)
				}
				notes = append(notes, note)
			}
			got := w.state(t)
			newState := strings.Contains(got, "keep/SKILL.md: v2")
			switch {
			case got == old:
			case newState && !strings.Contains(got, "gone/") && strings.Contains(got, "stax.lock: new") && strings.Contains(got, "stax.yaml: new") &&
				strings.Count(got, "new/SKILL.md: hi") == 2 && strings.Count(got, "previous/SKILL.md: v2") == 2 && strings.Contains(got, BackupDir) &&
				strings.Contains(got, "keep/MEMORY.md: learned"):
			default:
				t.Fatalf("after a crash at %s and recovery (%q), a mix:\n%s", name, notes, got)
			}
			for i, dir := range w.dirs {
				drift, err := w.check(t, dir)
				// In the old install, the user's addition is the one
				// difference; the new one matches its record exactly.
				userEdit := i == 0 && !newState && len(drift) == 1 && drift[0].Skill == "keep" && fmt.Sprint(drift[0].Added) == "[MEMORY.md]" &&
					len(drift[0].Changed)+len(drift[0].Removed) == 0
				if err != nil || len(drift) > 0 && !userEdit {
					t.Errorf("%s: the record does not describe the folder: %v %+v", dir, err, drift)
				}
			}
			if err := w.next(t); err != nil {
				t.Fatalf("rerun without --force: %v", err)
			}
			if l := w.leftovers(t); len(l) > 0 {
				t.Errorf("left behind: %v", l)
			}
		})
	}
}

// An install that changes nothing, in any folder nor the lock file, has
// nothing to commit: it writes no journal and no commit marker, nor
// anything else in the lock directory.
func TestUnchangedReinstallWritesNothing(t *testing.T) {
	for _, place := range recordPlaces {
		t.Run(place, func(t *testing.T) { unchangedReinstall(t, place) })
	}
}

func unchangedReinstall(t *testing.T, place string) {
	w := newCrashWorld(t, place)
	if err := w.next(t); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(w.locks)
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	step = func(s string) error { steps = append(steps, s); return nil }
	defer func() { step = func(string) error { return nil } }()
	if err := w.next(t); err != nil {
		t.Fatal(err)
	}
	if len(steps) > 0 {
		t.Errorf("an unchanged re-install took the steps %q, want none", steps)
	}
	if after, err := os.Stat(w.locks); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("an unchanged re-install wrote in the lock directory (%v)", err)
	}
}

// A kill after the commit marker is written, before or while the folders
// are completed, leaves an install the next run completes: it is the new
// install, whole, and neither the marker nor a journal is left behind.
func TestCrashAfterCommitIsCompletedAndForgotten(t *testing.T) {
	for _, place := range recordPlaces {
		t.Run(place, func(t *testing.T) { crashAfterCommit(t, place) })
	}
}

func crashAfterCommit(t *testing.T, place string) {
	var points []string
	counted := newCrashWorld(t, place)
	afterCommit = func(p string) { points = append(points, p) }
	if err := counted.next(t); err != nil {
		t.Fatal(err)
	}
	afterCommit = func(string) {}
	if len(points) != 3 {
		t.Fatalf("crash points %q; want the commit and each of the two folders", points)
	}
	for k, name := range points {
		for _, rerun := range []string{"install", "recover"} {
			t.Run(fmt.Sprintf("%d %s/%s", k, strings.Fields(name)[0], rerun), func(t *testing.T) {
				w := newCrashWorld(t, place)
				func() {
					n := 0
					afterCommit = func(string) {
						if n++; n == k+1 {
							panic(errInjected)
						}
					}
					defer func() { afterCommit = func(string) {}; recover() }()
					w.next(t)
					t.Fatal("the install was not stopped")
				}()
				if rerun == "recover" {
					for _, dir := range w.dirs {
						if _, err := Recover(context.Background(), dir, w.locks); err != nil {
							t.Fatal(err)
						}
					}
				} else if err := w.next(t); err != nil {
					t.Fatalf("rerun: %v", err)
				}
				got := w.state(t)
				if !strings.Contains(got, "keep/SKILL.md: v2") || strings.Count(got, "new/SKILL.md: hi") != 2 || strings.Contains(got, "gone/") ||
					!strings.Contains(got, "stax.lock: new") || strings.Count(got, "previous/SKILL.md: v2") != 2 {
					t.Errorf("after a kill at %s and a run, not the new install:\n%s", name, got)
				}
				if l := w.leftovers(t); len(l) > 0 {
					t.Errorf("left behind: %v", l)
				}
				for _, dir := range w.dirs {
					if drift, err := w.check(t, dir); err != nil || len(drift) > 0 {
						t.Errorf("%s: the record does not describe the folder: %v %+v", dir, err, drift)
					}
				}
			})
		}
	}
}

// migratingWorld is a crashWorld installed by an older stax, which kept
// each record in its folder, about to be installed again by one that
// keeps them out of the folders.
func migratingWorld(t *testing.T) *crashWorld {
	w := newCrashWorld(t, recordPlaces[0])
	w.records = filepath.Join(t.TempDir(), "records")
	return w
}

// assertMigrated fails unless each folder's record is out of the folder,
// none is left in it, and the record describes the new install.
func (w *crashWorld) assertMigrated(t *testing.T) {
	t.Helper()
	for _, dir := range w.dirs {
		if _, err := os.Stat(filepath.Join(dir, RecordFile)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the older stax's record is still in the folder (%v)", dir, err)
		}
		recordDir, _ := RecordDir(w.records, w.root, dir)
		rec, err := ReadRecordIn(dir, recordDir)
		if err != nil || len(rec.Skills) != 3 || rec.Skills["new"].Package == "" {
			t.Errorf("%s: the record in %s: %+v %v", dir, recordDir, rec, err)
		}
		if drift, err := w.check(t, dir); err != nil || len(drift) > 0 {
			t.Errorf("%s: the record does not describe the folder: %v %+v", dir, err, drift)
		}
	}
}

// A record an older stax kept in the folder is read, so the skills it
// lists are stax's to update, written in its new place, and removed from
// the folder once the install is committed.
func TestRecordInTheFolderIsMigrated(t *testing.T) {
	t.Parallel()
	w := migratingWorld(t)
	out, err := InstallAll(context.Background(), w.dirs, w.nextSkills(t), w.options([]byte("new\n")))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out.Results {
		if fmt.Sprint(r.Removed, r.Replaced) != "[gone] []" {
			t.Errorf("%s: removed %v, replaced %v: want gone removed as the old record lists it, and no skill of the user's replaced", r.Dir, r.Removed, r.Replaced)
		}
	}
	w.assertMigrated(t)
	if l := w.leftovers(t); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

// A crash at any step of the install that migrates the records, before
// or after its commit, leaves a state the next run repairs: the folders'
// records describe them wherever they are, and the rerun ends with the
// records out of the folders and none left in them.
func TestCrashWhileMigratingTheRecordIsRecovered(t *testing.T) {
	var steps, points []string
	counted := migratingWorld(t)
	step = func(s string) error { steps = append(steps, s); return nil }
	afterCommit = func(p string) { points = append(points, p) }
	err := counted.next(t)
	step, afterCommit = func(string) error { return nil }, func(string) {}
	if err != nil || len(steps) < 8 || len(points) != 3 {
		t.Fatalf("steps %q, points %q: %v", steps, points, err)
	}
	crashes := len(steps) + len(points)
	for k := range crashes {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			w := migratingWorld(t)
			func() {
				n := 0
				crash := func() {
					if n++; n == k+1 {
						panic(errInjected)
					}
				}
				step = func(string) error { crash(); return nil }
				afterCommit = func(string) { crash() }
				defer func() { step, afterCommit = func(string) error { return nil }, func(string) {}; recover() }()
				w.next(t)
				t.Fatal("the install was not stopped")
			}()
			for _, dir := range w.dirs {
				if _, err := Recover(context.Background(), dir, w.locks); err != nil {
					t.Fatal(err)
				}
				drift, err := w.check(t, dir)
				// The old install differs from its record by the user's
				// addition alone.
				if err != nil || len(drift) > 1 || len(drift) == 1 && drift[0].Skill != "keep" {
					t.Errorf("%s: the record does not describe the folder: %v %+v", dir, err, drift)
				}
			}
			if err := w.next(t); err != nil {
				t.Fatalf("rerun: %v", err)
			}
			w.assertMigrated(t)
			if l := w.leftovers(t); len(l) > 0 {
				t.Errorf("left behind: %v", l)
			}
		})
	}
}

// A re-install that changes no skill still moves an older stax's record
// out of the folder, whole.
func TestUnchangedReinstallMigratesTheRecord(t *testing.T) {
	t.Parallel()
	w := migratingWorld(t)
	if err := os.Remove(filepath.Join(w.dirs[0], "keep", "MEMORY.md")); err != nil {
		t.Fatal(err)
	}
	skills := []Skill{testSkill(t, "keep", "v1\n"), testSkill(t, "gone", "bye\n"), versioned(t, "previous", "v1\n")}
	out, err := InstallAll(context.Background(), w.dirs, skills, w.options([]byte("old\n")))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range out.Results {
		if len(r.Unchanged) != 3 {
			t.Errorf("%s: unchanged %v, want every skill", r.Dir, r.Unchanged)
		}
		if _, err := os.Stat(filepath.Join(w.dirs[i], RecordFile)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the older stax's record is still in the folder (%v)", r.Dir, err)
		}
		recordDir, _ := RecordDir(w.records, w.root, w.dirs[i])
		if rec, err := ReadRecordIn(w.dirs[i], recordDir); err != nil || len(rec.Skills) != 3 {
			t.Errorf("%s: the record in %s: %+v %v", r.Dir, recordDir, rec, err)
		}
	}
}

// A crash at any step of an install leaves the lock file and the
// manifest a pair, once RecoverFiles, which a command runs under the
// project's lock before it reads them, has recovered the install that
// writes them: both old, or both new, never the one new and the other
// old (an update --latest killed between them left stax.yaml's range
// behind stax.lock's).
func TestCrashAtEveryStepLeavesFilesAPair(t *testing.T) {
	steps := countSteps(t, recordPlaces[0])
	for k, name := range steps {
		t.Run(fmt.Sprintf("%d %s", k, name), func(t *testing.T) {
			w := newCrashWorld(t, recordPlaces[0])
			func() {
				defer func() { recover() }()
				atStep(k, func() error { panic(errInjected) }, func() error { return w.next(t) })
			}()
			if _, err := RecoverFiles(context.Background(), w.locks, w.manifest, w.lockPath); err != nil {
				t.Fatal(err)
			}
			lock, manifest := readFile(t, w.lockPath), readFile(t, w.manifest)
			if lock != manifest {
				t.Fatalf("after a crash at %s and recovery: stax.lock %q, stax.yaml %q", name, lock, manifest)
			}
			if info, err := os.Stat(w.manifest); err != nil || info.Mode().Perm() != 0o600 {
				t.Errorf("the manifest's mode after recovery: %v %v, want 0600", info.Mode(), err)
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

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A crash of an install run in the project, which names stax.lock and
// stax.yaml by relative paths, is recovered by the next command run from
// another directory (stax --dir): it finds the journal of the project's
// files, and puts them back in the project, not in its own working
// directory, where a rollback found nothing, said it had rolled back and
// removed the journal, leaving the pair torn.
func TestCrashRecoveredFromAnotherDirectory(t *testing.T) {
	steps := countSteps(t, recordPlaces[0])
	for k, name := range steps {
		t.Run(fmt.Sprintf("%d %s", k, name), func(t *testing.T) {
			w := newCrashWorld(t, recordPlaces[0])
			elsewhere := t.TempDir()
			t.Chdir(w.root)
			abs := *w
			w.lockPath, w.manifest = "stax.lock", "stax.yaml"
			func() {
				defer func() { recover() }()
				atStep(k, func() error { panic(errInjected) }, func() error { return w.next(t) })
			}()
			t.Chdir(elsewhere)
			if _, err := RecoverFiles(context.Background(), w.locks, abs.lockPath, abs.manifest); err != nil {
				t.Fatal(err)
			}
			lock, manifest := readFile(t, abs.lockPath), readFile(t, abs.manifest)
			if lock != manifest {
				t.Errorf("after a crash at %s and recovery from elsewhere: stax.lock %q, stax.yaml %q", name, lock, manifest)
			}
			for _, d := range abs.dirs {
				if _, err := Recover(context.Background(), d, w.locks); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range []string{"stax.lock", "stax.yaml"} {
				if _, err := os.Stat(filepath.Join(elsewhere, f)); err == nil {
					t.Errorf("after a crash at %s: recovery wrote %s in the working directory %s", name, f, elsewhere)
				}
			}
		})
	}
}

// A journal of an older stax that names a file by a relative path is not
// rolled back from a directory where the file is not: the rollback
// fails, naming the journal, which stays for the user to act on, rather
// than finding nothing there, removing the journal and leaving the file
// torn from the rest of the install.
func TestJournalWithARelativePathIsKept(t *testing.T) {
	w := newCrashWorld(t, recordPlaces[0])
	steps := countSteps(t, recordPlaces[0])
	k := slices.Index(steps, "commit") // the files are written
	if k < 0 {
		t.Fatalf("no commit step in %v", steps)
	}
	func() {
		defer func() { recover() }()
		atStep(k, func() error { panic(errInjected) }, func() error { return w.next(t) })
	}()
	var rewritten int
	journals := rewriteJournals(t, w.locks, func(j *journalData) {
		for _, lc := range j.files() {
			lc.Path, rewritten = filepath.Base(lc.Path), rewritten+1
		}
	})
	if rewritten == 0 {
		t.Fatal("no journal names the files")
	}
	t.Chdir(t.TempDir())
	_, err := Recover(context.Background(), w.dirs[0], w.locks)
	if err == nil || !strings.Contains(err.Error(), "relative path") {
		t.Fatalf("recover: %v, want a refusal naming the relative path", err)
	}
	if left, _ := filepath.Glob(filepath.Join(w.locks, "*.journal.json")); len(left) != len(journals) {
		t.Errorf("journals %v after a failed rollback, want %v kept", left, journals)
	}
}

// rewriteJournals has edit change each install journal in lockDir, as an
// older stax would have written it, writes it back and returns their
// paths.
func rewriteJournals(t *testing.T, lockDir string, edit func(*journalData)) []string {
	t.Helper()
	journals, _ := filepath.Glob(filepath.Join(lockDir, "*"+journalSuffix))
	for _, path := range journals {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var j journalData
		if err := json.Unmarshal(data, &j); err != nil {
			t.Fatal(err)
		}
		edit(&j)
		if err := writeJournal(path, &j); err != nil {
			t.Fatal(err)
		}
	}
	return journals
}
