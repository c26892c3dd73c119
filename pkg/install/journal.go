package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/opencontainers/go-digest"
	"github.com/stax-dev/stax/internal/atomicfile"
	"github.com/stax-dev/stax/internal/regularfile"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// journalData is what an install writes, and syncs, before its first
// rename: enough for the next run to put the folder and the lock file back
// as they were, or to finish the install if it was committed. It lives in
// the user's lock directory, beside the folder's lock, so a project cannot
// plant one.
type journalData struct {
	// ID names the transaction; its commit marker is ID+".committed" in
	// the lock directory.
	ID string `json:"id"`
	// Base is the directory every move is relative to, and confined to.
	Base   string `json:"base"`
	Folder string `json:"folder"`
	// Staging is the staging directory's name in the folder.
	Staging string `json:"staging"`
	// Moves are the renames of the install, in order.
	Moves [][2]string `json:"moves"`
	// HadRecord says whether the folder had a record where it is kept
	// (in RecordDir when set). RecordCopied says
	// that a copy of it is in the staging directory (previousRecord);
	// journals of older installs held it in Record instead.
	HadRecord    bool   `json:"hadRecord"`
	RecordCopied bool   `json:"recordCopied,omitempty"`
	Record       string `json:"record,omitempty"`
	// RecordDir is where the folder's record is kept when not in the
	// folder (see Options.Records).
	RecordDir string `json:"recordDir,omitempty"`
	// Files are the files written with the install (see Options.Files),
	// each with a copy of it as it was in the staging directory. Lock is
	// the one file of the journals of older installs.
	Files []*lockChange `json:"files,omitempty"`
	Lock  *lockChange   `json:"lock,omitempty"`
	// Backup is the install's backup directory under Base, BackupMade
	// the first of its directories the install creates, and StateMade
	// whether its transaction creates StateDir there: a rollback removes
	// what the install made (see removeBackupDir).
	Backup     string `json:"backup,omitempty"`
	BackupMade string `json:"backupMade,omitempty"`
	StateMade  bool   `json:"stateMade,omitempty"`
}

// lockChange is a file written with an install, as it was and as it will
// be. Neither is held in memory: the lock of a large install lists every
// skill. A copy of the file as it was is kept in the staging directory of
// each folder, for a rollback to put back.
type lockChange struct {
	Path    string        `json:"path"`
	Existed bool          `json:"existed"`
	Old     digest.Digest `json:"old,omitempty"`
	New     digest.Digest `json:"new"`
	// Mode is the file's permissions when it is written; 0 is 0644.
	Mode fs.FileMode `json:"mode,omitempty"`
	// Copy is the name of the copy of the file as it was in the staging
	// directory; empty in older journals, whose copy is previousLock.
	Copy string `json:"copy,omitempty"`
	// Previous is the file as it was, in the journals of older installs,
	// which kept it there rather than a copy (they have no Old).
	Previous string `json:"previous,omitempty"`
	write    func(io.Writer) error
	// given is Path as the caller named it, which Outcome.Changed reports:
	// the caller looks its own name up there.
	given string
}

// newLockChange is the change of the i-th file an install writes.
func newLockChange(l LockFile, i int) (*lockChange, error) {
	h := digest.SHA256.Digester()
	if err := l.Write(h.Hash()); err != nil {
		return nil, fmt.Errorf("encode %s: %w", l.Path, err)
	}
	// The journal names the file by its absolute path: the run that
	// recovers it may be started from another directory.
	path, err := filepath.Abs(l.Path)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	lc := &lockChange{Path: path, New: h.Digest(), Mode: l.Mode, Copy: previousFile(i), write: l.Write, given: l.Path}
	old, err := digestOf(path)
	switch {
	case err == nil:
		lc.Existed, lc.Old = true, old
	case !errors.Is(err, fs.ErrNotExist):
		return nil, errdefs.MarkLocal(fmt.Errorf("read %s: %w", l.Path, err))
	}
	return lc, nil
}

func (lc *lockChange) changes() bool {
	return !lc.Existed || lc.Old != lc.New
}

func (lc *lockChange) writeFile() error {
	return atomicfile.Write(lc.Path, lc.mode(), lc.write)
}

func (lc *lockChange) mode() fs.FileMode {
	if lc.Mode == 0 {
		return 0o644
	}
	return lc.Mode.Perm()
}

// copyIn is where, in the staging directory, the file as it was is kept.
func (lc *lockChange) copyIn(staging string) string {
	if !strings.HasPrefix(lc.Copy, previousFile(0)) || strings.ContainsAny(lc.Copy, `/\`) {
		return previousLock(staging)
	}
	return filepath.Join(staging, lc.Copy)
}

// keep copies the file as it is into the staging directory of folder,
// and checks that it is still the file as it was.
func (lc *lockChange) keep(folder *os.Root, staging string) error {
	if !lc.Existed {
		return nil
	}
	in, err := regularfile.Open(lc.Path)
	if err != nil {
		return err
	}
	defer in.Close()
	d, err := keepCopy(folder, lc.copyIn(staging), in)
	if err == nil && d != lc.Old {
		err = fmt.Errorf("%s changed while stax was installing", lc.Path)
	}
	return err
}

// restore puts the file back as it was, from the copy kept in the
// staging directory of folder (or an older journal's Previous), unless
// something other than this install has written it since.
func (lc *lockChange) restore(folder *os.Root, staging string) error {
	if !filepath.IsAbs(lc.Path) {
		// Relative to a working directory that is not known any more:
		// the file is not where this run would look, and finding nothing
		// there is no sign that there is nothing to restore.
		return fmt.Errorf("the journal names it by a relative path: put it back as it was before the install, in the project it was installed from, then remove the journal")
	}
	now, err := digestOf(lc.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed since: by something else than the install
	}
	if err != nil {
		return err
	}
	if now != lc.New || (lc.Existed && now == lc.Old) {
		return nil
	}
	if !lc.Existed {
		return os.Remove(lc.Path)
	}
	if lc.Old == "" {
		return atomicfile.WriteFile(lc.Path, []byte(lc.Previous), lc.mode())
	}
	return atomicfile.Write(lc.Path, lc.mode(), func(w io.Writer) error {
		f, err := folder.Open(lc.copyIn(staging))
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	})
}

// previousLock is where, in the staging directory, an install keeps the
// first of its files as it was; no skill can have the name.
func previousLock(staging string) string {
	return filepath.Join(staging, previousFile(0))
}

// previousFile is the name, in the staging directory, of the copy of the
// i-th file of an install as it was.
func previousFile(i int) string {
	if i == 0 {
		return ".previous-lock"
	}
	return fmt.Sprintf(".previous-lock-%d", i)
}

// digestOf is the digest of the file at path, which must be a regular
// file: stax.lock or stax.yaml may be a named pipe, which an open for
// reading would wait on for ever, holding the project's and the folders'
// locks.
func digestOf(path string) (digest.Digest, error) {
	f, err := regularfile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return digest.SHA256.FromReader(f)
}

// transaction ties the folders of one install together: it is committed,
// for all of them at once, when its marker file is written.
type transaction struct {
	id     string
	marker string
	// stateDirs are the bases under which the transaction creates
	// StateDir, for each of its folders to know.
	stateDirs map[string]bool
}

// createsStateDir records that the transaction creates StateDir under
// base when creates is true, and says whether it does.
func (t *transaction) createsStateDir(base string, creates bool) bool {
	if creates {
		if t.stateDirs == nil {
			t.stateDirs = map[string]bool{}
		}
		t.stateDirs[base] = true
	}
	return t.stateDirs[base]
}

func newTransaction(lockDir string) *transaction {
	id := randomID()
	return &transaction{id: id, marker: filepath.Join(lockDir, id+".committed")}
}

func (t *transaction) commit() error {
	return atomicfile.WriteFile(t.marker, nil, 0o644)
}

// forget removes the marker once every folder's journal is gone.
func (t *transaction) forget() { os.Remove(t.marker) }

// sweepMarkers removes the commit markers in lockDir that no journal
// names. A run killed after its commit leaves its marker for the next run
// to complete each folder by; the marker outlives the folders' journals,
// so a marker no journal names belongs to a transaction whose folders are
// all complete, and nothing needs it any more. That holds of a transaction
// still running in another process too: its journals are written before
// its marker and removed before it, and the markers here are listed before
// the journals are read.
func sweepMarkers(lockDir string) {
	markers, err := filepath.Glob(filepath.Join(lockDir, "*.committed"))
	if err != nil || len(markers) == 0 {
		return
	}
	journals, err := filepath.Glob(filepath.Join(lockDir, "*.journal.json"))
	if err != nil {
		return
	}
	named := map[string]bool{}
	for _, path := range journals {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // its folder was completed since
		}
		var j journalData
		if err != nil || json.Unmarshal(data, &j) != nil {
			return // a journal that cannot be read may name any of them
		}
		named[j.ID] = true
	}
	for _, m := range markers {
		if !named[strings.TrimSuffix(filepath.Base(m), ".committed")] {
			os.Remove(m)
		}
	}
}

func writeJournal(path string, j *journalData) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// recoverJournal finishes or undoes the install a crash interrupted, if
// the journal at path says there was one, and says which. The caller holds
// the folder's lock.
func recoverJournal(path, lockDir string) (string, error) {
	// A journal a killed run was still writing never took effect.
	if partial, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"*")); len(partial) > 0 {
		for _, p := range partial {
			os.Remove(p)
		}
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", errdefs.MarkLocal(fmt.Errorf("read the install journal %s: %w", path, err))
	}
	var j journalData
	if err := json.Unmarshal(data, &j); err != nil || layers.CheckName(j.ID) != nil || !stagingName(j.Staging) {
		return "", errdefs.MarkLocal(fmt.Errorf("the install journal %s is damaged (%v): check the folder it names, then remove the journal", path, err))
	}
	dir := filepath.Join(j.Base, j.Folder)
	base, err := os.OpenRoot(j.Base)
	var folder *os.Root
	if err == nil {
		defer base.Close()
		folder, err = base.OpenRoot(j.Folder)
	}
	if errors.Is(err, fs.ErrNotExist) {
		// The folder is gone, and with it what there was to recover.
		os.Remove(path)
		return fmt.Sprintf("an install into %s was interrupted, and the folder is gone since; nothing to recover", dir), nil
	}
	if err != nil {
		return "", errdefs.MarkLocal(fmt.Errorf("recover the interrupted install into %s: %w", dir, err))
	}
	defer folder.Close()
	if _, err := os.Stat(filepath.Join(lockDir, j.ID+".committed")); err == nil {
		if err := folder.RemoveAll(j.Staging); err != nil {
			return "", errdefs.MarkLocal(err)
		}
		os.Remove(path)
		return fmt.Sprintf("an install into %s was interrupted after it was committed; it is now complete", dir), nil
	}
	record := folder
	if j.RecordDir != "" {
		record, _, err = openRecordDir(j.RecordDir, false)
		if errors.Is(err, fs.ErrNotExist) && !j.HadRecord {
			// There is no record to remove, nor a directory to hold one.
			record, err = nil, nil
		}
		if err != nil {
			return "", errdefs.MarkLocal(fmt.Errorf("roll back the interrupted install into %s: %w", dir, err))
		}
		if record != nil {
			defer record.Close()
		}
	}
	if err := errors.Join(undoMoves(base, j.Moves), restoreRecord(folder, record, j.HadRecord, copiedRecord(&j), []byte(j.Record))); err != nil {
		// The journal stays, so that the next run tries again.
		return "", errdefs.MarkLocal(fmt.Errorf("roll back the interrupted install into %s: %w", dir, err))
	}
	if j.Backup != "" && filepath.IsLocal(j.Backup) && (j.BackupMade == "" || filepath.IsLocal(j.BackupMade)) {
		removeBackupDir(base, j.Backup, j.BackupMade, j.StateMade)
	}
	if err := restoreFiles(folder, j.Staging, j.files()); err != nil {
		// The journal stays, so that the next run tries again.
		return "", errdefs.MarkLocal(fmt.Errorf("roll back the interrupted install into %s (journal %s): %w", dir, path, err))
	}
	if err := folder.RemoveAll(j.Staging); err != nil {
		return "", errdefs.MarkLocal(err)
	}
	os.Remove(path)
	return fmt.Sprintf("an install into %s was interrupted; it was rolled back to the install before it", dir), nil
}

// files are the files the journal's install writes, from either field.
func (j *journalData) files() []*lockChange {
	if j.Lock != nil {
		return append([]*lockChange{j.Lock}, j.Files...)
	}
	return j.Files
}

// restoreFiles puts back each of files that an install wrote, from the
// copies kept in the staging directory of folder.
func restoreFiles(folder *os.Root, staging string, files []*lockChange) error {
	var errs []error
	for _, lc := range files {
		if err := lc.restore(folder, staging); err != nil {
			errs = append(errs, fmt.Errorf("restore %s: %w", lc.Path, err))
		}
	}
	return errors.Join(errs...)
}

// Recover finishes or undoes, under the folder's lock, an install into dir
// that a crash interrupted, and says which; "" when there was none.
func Recover(ctx context.Context, dir, lockDir string) (string, error) {
	unlock, journal, err := lockFolder(ctx, lockDir, dir)
	if err != nil {
		return "", err
	}
	defer unlock()
	note, err := recoverJournal(journal, lockDir)
	if err != nil {
		return "", err
	}
	sweepMarkers(lockDir)
	if folder, err := os.OpenRoot(dir); err == nil {
		removeLeftovers(folder)
		folder.Close()
	}
	return note, nil
}

// undoMoves renames back, last first, every move whose result is there
// and whose source is free: it can be run again after a crash of its own.
// It returns the moves it could not undo.
func undoMoves(base *os.Root, moves [][2]string) error {
	var errs []error
	for i := len(moves) - 1; i >= 0; i-- {
		from, to := moves[i][0], moves[i][1]
		if _, err := base.Lstat(to); err != nil {
			continue
		}
		if _, err := base.Lstat(from); err == nil {
			continue
		}
		if err := base.Rename(to, from); err != nil {
			errs = append(errs, fmt.Errorf("move %s back to %s: %w", to, from, err))
		}
	}
	return errors.Join(errs...)
}

// restoreRecord puts the folder's record, kept in record (the folder or
// its directory of records), back as it was: removed if there was none,
// else from the copy in the folder's staging directory, or from data (an
// older install's journal); without either it was not touched.
func restoreRecord(folder, record *os.Root, had bool, copied string, data []byte) error {
	if record == nil {
		return nil
	}
	if !had {
		if err := record.Remove(RecordFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", RecordFile, err)
		}
		return nil
	}
	write := func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
	switch {
	case copied != "":
		want, err := fileDigest(folder, copied)
		if err != nil {
			return fmt.Errorf("restore %s: %w", RecordFile, err)
		}
		if now, err := fileDigest(record, RecordFile); err == nil && now == want {
			return nil
		}
		write = func(w io.Writer) error {
			f, err := folder.Open(copied)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(w, f)
			return err
		}
	case data != nil:
		if now, err := record.ReadFile(RecordFile); err == nil && bytes.Equal(now, data) {
			return nil
		}
	default:
		return nil
	}
	if err := atomicfile.WriteIn(record, RecordFile, 0o644, write); err != nil {
		return fmt.Errorf("restore %s: %w", RecordFile, err)
	}
	return nil
}

// previousRecord is where, in the staging directory, an install keeps the
// record as it was: no skill has the name, names starting with a dot are
// refused.
func previousRecord(staging string) string {
	return filepath.Join(staging, ".previous-record")
}

// copiedRecord is the copy of the record j kept, if it did.
func copiedRecord(j *journalData) string {
	if !j.RecordCopied {
		return ""
	}
	return previousRecord(j.Staging)
}

// step is called before each step of a commit; tests make it fail, or
// panic as a kill would stop the process, at each step in turn.
var step = func(string) error { return nil }

// afterCommit is called once an install is committed, and after each of
// its folders is complete; nothing can fail there, but tests panic in it
// as a kill would stop the process.
var afterCommit = func(string) {}

// stagingName reports whether name is one directory of the staging kind.
func stagingName(name string) bool {
	return strings.HasPrefix(name, layers.StagingPrefix) && len(name) > len(layers.StagingPrefix) && !strings.ContainsAny(name, `/\`)
}
