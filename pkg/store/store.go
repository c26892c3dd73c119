// Package store opens OCI image layouts: the local package store under
// $STAX_HOME, and layout directories named by oci: references.
package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
	"oras.land/oras-go/v2/content/oci"

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

// Store is an OCI image layout.
type Store struct {
	*oci.Store
	Dir  string
	lock *flock.Flock
	// writer says the store holds the exclusive lock.
	writer bool
}

// Mode says whether a store is opened for reading or writing.
type Mode int

const (
	ReadOnly Mode = iota
	ReadWrite
)

// OpenLocal opens the local store at dir and holds a lock on it until
// Close: shared for reading, exclusive for writing. oras-go rewrites
// index.json whole, so two unserialized writers would lose each other's tags.
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
	s, err := OpenLayout(ctx, dir)
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
	s, err := oci.NewWithContext(ctx, dir)
	if err != nil {
		return nil, errdefs.IO(fmt.Errorf("open OCI layout %s: %w", dir, err))
	}
	return &Store{Store: s, Dir: dir}, nil
}

// Close releases the lock of a local store.
func (s *Store) Close() error {
	if s.lock == nil {
		return nil
	}
	if s.writer {
		// What a failed copy left half written is of no use to anyone.
		removeIngest(s.Dir)
	}
	return s.lock.Unlock()
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
