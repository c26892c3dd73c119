// Package store opens OCI image layouts: the local package store under
// $STAX_HOME, and layout directories named by oci: references.
package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/oci"

	"github.com/stax-dev/stax/internal/atomicfile"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
)

// EnvHome overrides where stax keeps its data.
const EnvHome = "STAX_HOME"

// Home is where stax keeps its data: $STAX_HOME, else
// $XDG_DATA_HOME/stax, else ~/.local/share/stax.
func Home() (string, error) {
	if home := os.Getenv(EnvHome); home != "" {
		return home, nil
	}
	if data := os.Getenv("XDG_DATA_HOME"); data != "" {
		return filepath.Join(data, "stax"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errdefs.IO(fmt.Errorf("locate the stax data directory: %w (set %s)", err, EnvHome))
	}
	return filepath.Join(home, ".local", "share", "stax"), nil
}

// DefaultDir is the local store, Home()/store.
func DefaultDir() (string, error) {
	home, err := Home()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "store"), nil
}

// LockDir is where stax keeps the locks of folders it installs into.
func LockDir() (string, error) {
	home, err := Home()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "locks"), nil
}

// Store is an OCI image layout opened for writing: the local store, or a
// layout a command copies, pushes or builds into. It is oras-go's layout
// store with index.json kept by stax: oras-go rewrites index.json in place,
// so a process killed while writing it left it empty, and every later
// command failed until a person repaired it. Here every change of the
// index replaces index.json atomically (see saveIndex), and an index a
// writer of another kind left damaged is rebuilt when the layout is opened
// (see loadIndex).
type Store struct {
	Dir string
	// Repaired says what opening the store rebuilt of a damaged
	// index.json, for a warning; empty when it was sound.
	Repaired string

	layout *oci.Store
	root   *os.Root
	lock   *flock.Flock
	// writer says the store holds the exclusive lock of the local store.
	writer bool

	closeOnce sync.Once
	closeErr  error

	// mu serializes changes to index and the writes of index.json.
	mu    sync.Mutex
	index *layoutIndex
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
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, errdefs.IO(fmt.Errorf("create local store: %w", err))
	}
	lock := flock.New(dir + ".lock")
	lockFn := lock.TryRLockContext
	if mode == ReadWrite {
		lockFn = lock.TryLockContext
	}
	if _, err := lockFn(ctx, lockRetryDelay); err != nil {
		return nil, errdefs.IO(fmt.Errorf("lock local store %s: %w", dir, err))
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

// removeIngest removes the partial blobs a killed writer left in the
// store's ingest directory, where oras-go writes a blob before moving it
// into place. Every writer holds the store's exclusive lock, which the
// caller now holds: whatever is there belongs to a dead process.
func removeIngest(dir string) {
	ingest := filepath.Join(dir, "ingest")
	entries, err := os.ReadDir(ingest)
	if err != nil {
		return
	}
	for _, e := range entries {
		os.RemoveAll(filepath.Join(ingest, e.Name()))
	}
}

// OpenLayout opens (creating if needed) the OCI image layout at dir.
func OpenLayout(ctx context.Context, dir string) (*Store, error) {
	return openLayout(ctx, dir, "OCI layout")
}

func openLayout(ctx context.Context, dir, what string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, errdefs.IO(fmt.Errorf("create %s %s: %w", what, dir, err))
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, errdefs.IO(fmt.Errorf("open %s %s: %w", what, dir, err))
	}
	s := &Store{Dir: dir, root: root}
	if _, err := root.Lstat(ocispec.ImageLayoutFile); errors.Is(err, fs.ErrNotExist) {
		if err := writeLayoutFile(root); err != nil {
			root.Close()
			return nil, errdefs.IO(fmt.Errorf("create %s %s: %w", what, dir, err))
		}
	}
	// Temporary files of index writes that were killed before their rename.
	atomicfile.RemoveStale(filepath.Join(dir, ocispec.ImageIndexFile))
	if err := s.loadIndex(ctx, what); err != nil {
		root.Close()
		return nil, err
	}
	layout, err := oci.NewWithContext(ctx, dir)
	if err != nil {
		root.Close()
		return nil, errdefs.IO(fmt.Errorf("open %s %s: %w", what, dir, err))
	}
	// index.json is written by saveIndex alone, in one step.
	layout.AutoSaveIndex = false
	s.layout = layout
	return s, nil
}

// writeLayoutFile writes the oci-layout file of a new layout.
func writeLayoutFile(root *os.Root) error {
	return atomicfile.WriteFileIn(root, ocispec.ImageLayoutFile, []byte(`{"imageLayoutVersion":"`+ocispec.ImageLayoutVersion+`"}`), 0o644)
}

// Close releases the lock of a local store and removes what a writer
// left in the ingest directory.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.writer {
			// What a failed copy left half written is of no use to anyone.
			removeIngest(s.Dir)
		}
		s.root.Close()
		if s.lock != nil {
			s.closeErr = s.lock.Unlock()
		}
	})
	return s.closeErr
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

// lockRetryDelay is how often a blocked lock is tried again.
const lockRetryDelay = 50 * time.Millisecond
