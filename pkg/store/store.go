// Package store opens OCI image layouts: the local package store under
// $STAX_HOME, and layout directories named by oci: references.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"

	"github.com/gofrs/flock"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/oci"
	"oras.land/oras-go/v2/errdef"

	"github.com/stax-dev/stax/internal/atomicfile"
	"github.com/stax-dev/stax/internal/filelock"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/scratch"
)

// EnvHome overrides where stax keeps its data.
const EnvHome = "STAX_HOME"

// Home is where stax keeps its data: $STAX_HOME, else
// $XDG_DATA_HOME/stax, else ~/.local/share/stax.
func Home() (string, error) {
	return HomeFrom(os.Getenv)
}

// HomeFrom is Home with the variables read through getenv, for a caller
// that carries its own environment (a command run in-process by a test).
func HomeFrom(getenv func(string) string) (string, error) {
	if home := getenv(EnvHome); home != "" {
		return home, nil
	}
	if data := getenv("XDG_DATA_HOME"); data != "" {
		return filepath.Join(data, "stax"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errdefs.MarkLocal(fmt.Errorf("locate the stax data directory: %w (set %s)", err, EnvHome))
	}
	return filepath.Join(home, ".local", "share", "stax"), nil
}

// DefaultDir is the local store, Home()/store.
func DefaultDir() (string, error) {
	return DefaultDirFrom(os.Getenv)
}

// DefaultDirFrom is DefaultDir with the variables read through getenv.
func DefaultDirFrom(getenv func(string) string) (string, error) {
	home, err := HomeFrom(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "store"), nil
}

// LockDir is where stax keeps the locks of folders it installs into.
func LockDir() (string, error) {
	return LockDirFrom(os.Getenv)
}

// LockDirFrom is LockDir with the variables read through getenv.
func LockDirFrom(getenv func(string) string) (string, error) {
	home, err := HomeFrom(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "locks"), nil
}

// Store is an OCI image layout stax may write: the local store (opened
// for reading too, since opening it may repair it), or a layout a command
// copies, pushes or builds into. ReadOnlyLayout reads the others. It is
// oras-go's layout store on oras-go's blob storage, with index.json kept
// by stax: oras-go rewrites index.json in place, so a process killed while
// writing it left it empty, and every later command failed until a person
// repaired it. Here every change of the index replaces index.json
// atomically (see saveIndex), an index a writer of another kind left
// damaged is rebuilt when the layout is opened (see loadIndex), and
// opening reads index.json alone, an entry at a time (see predecessors).
type Store struct {
	Dir string
	// Repaired says what opening the store rebuilt of a damaged
	// index.json, for a warning; empty when it was sound.
	Repaired string

	// blobs is the layout's blobs/, as oras-go stores them.
	blobs *oci.Storage
	root  *os.Root
	lock  *flock.Flock
	// writer says the store holds the exclusive lock of the local store.
	writer bool
	// removeOnClose is set for an oci: layout opened for writing: what
	// the command leaves in its ingest directory is of no use.
	removeOnClose bool
	// created is what opening the layout created, for Discard.
	created created
	// release is what Close releases before the store's own lock: locks
	// taken after it and held as long as the store (see ReleaseOnClose).
	release []func()

	closeOnce sync.Once
	closeErr  error

	// mu serializes changes to index and graph, and the writes of
	// index.json.
	mu    sync.Mutex
	index *layoutIndex
	// graph is built the first time predecessors are asked for.
	graph *predecessors
}

// Mode says whether a store is opened for reading or writing.
type Mode int

const (
	ReadOnly Mode = iota
	ReadWrite
)

// OpenLocal opens the local store at dir and holds a lock on it until
// Close: shared for reading, exclusive for writing. The store rewrites
// index.json whole, so two unserialized writers would lose each other's
// tags.
func OpenLocal(ctx context.Context, dir string, mode Mode) (*Store, error) {
	// The lock file goes beside dir: refuse a directory that cannot be a
	// store before writing anything there (--oci-layout /etc would leave
	// /etc.lock behind otherwise).
	if _, err := checkLayoutDir(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("create local store: %w", err))
	}
	lock := flock.New(lockFile(dir))
	lockFn := lock.TryRLockContext
	if mode == ReadWrite {
		lockFn = lock.TryLockContext
	}
	if _, err := lockFn(ctx, filelock.RetryDelay); err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("lock local store %s: %w", dir, err))
	}
	if mode == ReadWrite {
		removeIngest(dir)
	}
	// A reader may rebuild a damaged index.json too: the shared lock keeps
	// writers out, and two readers rebuilding at once write the same
	// index, each in one step.
	s, err := openLayout(ctx, dir, "local store")
	if err != nil {
		_ = lock.Unlock()
		return nil, err
	}
	s.lock, s.writer = lock, mode == ReadWrite
	return s, nil
}

// lockFile is the file whose flock guards the local store at dir, beside
// it: every opener of the store locks this one file, or they would not
// keep each other out.
func lockFile(dir string) string { return dir + ".lock" }

// removeIngest removes the partial blobs a killed writer left in the
// store's ingest directory, where oras-go writes a blob before moving it
// into place. Every writer holds the store's exclusive lock, which the
// caller now holds: whatever is there belongs to a dead process. It
// removes through an os.Root: an ingest directory that is a link out of
// the layout, as a layout from elsewhere may hold, is left alone.
func removeIngest(dir string) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ingestDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		root.RemoveAll(path.Join(ingestDir, e.Name()))
	}
}

// ingestDir is where oras-go and WriteBlob write a blob before moving it
// into place.
const ingestDir = "ingest"

// OpenLayout opens the OCI image layout at dir for writing. A directory
// that does not exist, or is empty, is made a layout; one that holds
// anything but a layout is refused, so that a mistyped path never turns
// a directory of other files into one. Discard removes what it created.
func OpenLayout(ctx context.Context, dir string) (*Store, error) {
	s, err := openLayout(ctx, dir, "OCI layout")
	if err != nil {
		return nil, err
	}
	s.removeOnClose = true
	return s, nil
}

func openLayout(ctx context.Context, dir, what string) (*Store, error) {
	made, err := prepareLayout(dir)
	if err != nil {
		return nil, err
	}
	s, err := openPrepared(ctx, dir, what, made)
	if err != nil {
		made.remove()
		return nil, err
	}
	return s, nil
}

func openPrepared(ctx context.Context, dir, what string, made created) (*Store, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("open %s %s: %w", what, dir, err))
	}
	s := &Store{Dir: dir, root: root, created: made}
	// Temporary files of index writes that were killed before their rename.
	atomicfile.RemoveStale(filepath.Join(dir, ocispec.ImageIndexFile))
	if err := s.loadIndex(ctx, what); err != nil {
		root.Close()
		return nil, err
	}
	if err := root.Mkdir(ocispec.ImageBlobsDir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		root.Close()
		return nil, errdefs.MarkLocal(fmt.Errorf("create %s %s: %w", what, dir, err))
	}
	// The oci-layout file of a new layout comes last: a reader that finds
	// it (see CheckLayout) finds index.json too.
	if _, err := root.Lstat(ocispec.ImageLayoutFile); errors.Is(err, fs.ErrNotExist) {
		if err := writeLayoutFile(root); err != nil {
			root.Close()
			return nil, errdefs.MarkLocal(fmt.Errorf("create %s %s: %w", what, dir, err))
		}
	} else if err := checkLayoutFile(root); err != nil {
		root.Close()
		return nil, errdefs.MarkLocal(fmt.Errorf("open %s %s: %w", what, dir, err))
	}
	if s.blobs, err = oci.NewStorage(dir); err != nil {
		root.Close()
		return nil, errdefs.MarkLocal(fmt.Errorf("open %s %s: %w", what, dir, err))
	}
	return s, nil
}

// OpenScratch opens a new layout in a scratch directory (see
// scratch.Dir), for a package built on the fly; release closes it and
// removes the directory.
func OpenScratch(ctx context.Context, name string) (s *Store, release func(), err error) {
	dir, releaseDir, err := scratch.Dir(name)
	if err != nil {
		return nil, nil, errdefs.MarkLocal(err)
	}
	// The scratch directory holds its lock file: the layout is beside it.
	s, err = OpenLayout(ctx, filepath.Join(dir, "layout"))
	if err != nil {
		releaseDir()
		return nil, nil, err
	}
	return s, func() { s.Close(); releaseDir() }, nil
}

// prepareLayout checks that dir may be written as a layout, and creates
// it if it does not exist: what it created is returned.
func prepareLayout(dir string) (created, error) {
	state, err := checkLayoutDir(dir)
	switch {
	case err != nil:
		return created{}, err
	case state == layoutMissing:
		return createDir(dir)
	case state == layoutEmpty:
		return created{path: dir, contentsOnly: true}, nil
	}
	return created{}, nil
}

// layoutState is what checkLayoutDir found at a directory to be written
// as a layout.
type layoutState int

const (
	// layoutPresent: a layout, or one a killed writer began.
	layoutPresent layoutState = iota
	// layoutMissing: nothing is there yet.
	layoutMissing
	// layoutEmpty: an empty directory.
	layoutEmpty
)

// checkLayoutDir says whether dir may be written as a layout, and what is
// there, without changing anything: a directory of other files, or a file,
// is refused.
func checkLayoutDir(dir string) (layoutState, error) {
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return layoutMissing, nil
	}
	if err != nil {
		return 0, errdefs.MarkLocal(fmt.Errorf("open OCI layout %s: %w", dir, err))
	}
	if !info.IsDir() {
		return 0, errdefs.Invalid(fmt.Errorf("%s is not an OCI image layout: it is not a directory", dir))
	}
	if _, err := os.Lstat(filepath.Join(dir, ocispec.ImageLayoutFile)); err == nil {
		return layoutPresent, nil
	}
	empty, err := onlyLayoutEntries(dir)
	switch {
	case err != nil:
		return 0, err
	case empty:
		return layoutEmpty, nil
	}
	return layoutPresent, nil
}

// onlyLayoutEntries checks that dir, which has no oci-layout file, holds
// nothing but what a layout holds, and says whether it is empty. A
// directory with only blobs/, ingest/ or index.json is a layout a killed
// process began to write, which is finished; one with any other file is
// refused.
func onlyLayoutEntries(dir string) (empty bool, err error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, errdefs.MarkLocal(fmt.Errorf("open OCI layout %s: %w", dir, err))
	}
	defer f.Close()
	empty = true
	for {
		names, err := f.Readdirnames(64)
		if err == io.EOF {
			return empty, nil
		}
		if err != nil {
			return false, errdefs.MarkLocal(fmt.Errorf("open OCI layout %s: %w", dir, err))
		}
		for _, name := range names {
			switch {
			case name == ocispec.ImageBlobsDir, name == ingestDir, name == ocispec.ImageIndexFile,
				atomicfile.IsTemporary(name, ocispec.ImageIndexFile), atomicfile.IsTemporary(name, ocispec.ImageLayoutFile):
				empty = false
			default:
				return false, errdefs.Invalid(fmt.Errorf("%s is not an OCI image layout (no %s file) and is not empty: name an existing layout, or a new or empty directory to create one", dir, ocispec.ImageLayoutFile))
			}
		}
	}
}

// createDir creates dir and the parents it lacks, and returns the topmost
// directory it created.
func createDir(dir string) (created, error) {
	top := filepath.Clean(dir)
	for {
		parent := filepath.Dir(top)
		if parent == top {
			break
		}
		if _, err := os.Lstat(parent); err == nil {
			break
		}
		top = parent
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return created{}, errdefs.MarkLocal(fmt.Errorf("create OCI layout %s: %w", dir, err))
	}
	return created{path: filepath.Clean(dir), top: top}, nil
}

// created is what opening a layout for writing created: a directory and
// everything in it, with the parents made for it up to top, or only what
// is in a directory that was empty.
type created struct {
	path         string
	top          string
	contentsOnly bool
}

func (c created) remove() error {
	switch {
	case c.path == "":
		return nil
	case !c.contentsOnly:
		if err := os.RemoveAll(c.path); err != nil {
			return err
		}
		// A parent made for the layout goes only while it is empty: another
		// run may have made a layout of its own beside this one since.
		for dir := c.path; dir != c.top && os.Remove(filepath.Dir(dir)) == nil; dir = filepath.Dir(dir) {
		}
		return nil
	}
	root, err := os.OpenRoot(c.path)
	if err != nil {
		return err
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		errs = append(errs, root.RemoveAll(e.Name()))
	}
	return errors.Join(errs...)
}

// checkLayoutFile checks the oci-layout file of a layout, as oras-go's
// layout store does: a layout of another version is not read.
func checkLayoutFile(root *os.Root) error {
	f, err := root.Open(ocispec.ImageLayoutFile)
	if err != nil {
		return err
	}
	defer f.Close()
	var layout ocispec.ImageLayout
	if err := json.NewDecoder(io.LimitReader(f, 4<<10)).Decode(&layout); err != nil {
		return fmt.Errorf("%s: %w", ocispec.ImageLayoutFile, err)
	}
	if layout.Version != ocispec.ImageLayoutVersion {
		return fmt.Errorf("%s: image layout version %q: %w", ocispec.ImageLayoutFile, layout.Version, errdef.ErrUnsupportedVersion)
	}
	return nil
}

// writeLayoutFile writes the oci-layout file of a new layout.
func writeLayoutFile(root *os.Root) error {
	return atomicfile.WriteFileIn(root, ocispec.ImageLayoutFile, []byte(`{"imageLayoutVersion":"`+ocispec.ImageLayoutVersion+`"}`), 0o644)
}

// Close releases the lock of a local store and removes what a writer
// left in the ingest directory.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.writer || s.removeOnClose {
			// What a failed copy left half written is of no use to anyone.
			removeIngest(s.Dir)
		}
		s.root.Close()
		for i := len(s.release) - 1; i >= 0; i-- {
			s.release[i]()
		}
		if s.lock != nil {
			s.closeErr = s.lock.Unlock()
		}
	})
	return s.closeErr
}

// ReleaseOnClose has Close call release, before it releases the store's
// own lock, for a lock taken after the store's that must be held as long
// as the store is open. Calls to release run in the reverse order of the
// ReleaseOnClose calls.
func (s *Store) ReleaseOnClose(release func()) {
	s.release = append(s.release, release)
}

// Discard closes a layout opened for writing after what was written into
// it failed, and removes what opening it created: the directory, or the
// content of a directory that was empty. A layout that existed before is
// left as it is.
func (s *Store) Discard() error {
	err := s.Close()
	if rmErr := s.created.remove(); rmErr != nil {
		err = errors.Join(err, errdefs.MarkLocal(fmt.Errorf("remove the OCI layout %s: %w", s.Dir, rmErr)))
	}
	s.created = created{}
	return err
}

// Key is the name a reference is tagged with in the local store, which
// holds many repositories: the familiar name and tag. (An oci: layout holds
// one repository and is tagged with the tag alone, as ORAS does.) A
// reference without a tag has no key: its manifest is found by digest.
func Key(ref reference.Reference) string {
	if ref.Tag == "" {
		return ""
	}
	ref.Digest = ""
	return ref.Familiar()
}
