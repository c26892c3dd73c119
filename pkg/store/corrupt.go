package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/gofrs/flock"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// ErrBusy is RemoveCorruptIn finding the local store's lock held: by
// another stax, or by this one through another open of the store.
var ErrBusy = errors.New("the local store is in use")

// RemoveCorrupt removes the local store's copy of the blob desc if its
// content does not match desc's digest, and says whether it did. The local store
// is stax's cache, as npm's and Go's are theirs: a copy that does not
// verify is of no use, and one left in place is found by every later
// run, which then fetches nothing in its stead. A copy that matches (it
// was not the one at fault, or was replaced meanwhile) is left. s must be
// the local store opened for writing: its exclusive lock keeps out every
// other reader and writer of the blob.
func (s *Store) RemoveCorrupt(desc ocispec.Descriptor) (bool, error) {
	if !s.writer {
		return false, ErrBusy
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return removeCorrupt(s.root, desc)
}

// RemoveCorruptIn is RemoveCorrupt for the local store at dir, read
// without its lock or under its shared one: it takes the exclusive lock
// if it is free, and returns ErrBusy if it is not. It never waits: a
// reader waiting for the lock while it holds the shared one, or while a
// writer of the same command holds the exclusive one, would wait for
// ever.
func RemoveCorruptIn(dir string, desc ocispec.Descriptor) (bool, error) {
	lock := flock.New(lockFile(dir))
	locked, err := lock.TryLock()
	if err != nil {
		return false, err
	}
	if !locked {
		return false, ErrBusy
	}
	defer lock.Unlock()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return false, err
	}
	defer root.Close()
	return removeCorrupt(root, desc)
}

// BlobFile is the file where the OCI layout at dir keeps the blob desc,
// for a message that names it.
func BlobFile(dir string, desc ocispec.Descriptor) string {
	return filepath.Join(dir, filepath.FromSlash(blobPath(desc.Digest)))
}

// removeCorrupt removes the blob desc from the layout at root if its
// file does not match desc. The file is moved into the ingest directory
// first, then removed there: a run killed between the two leaves it
// where the next writer of the store removes what is left (see
// removeIngest), never a blob half removed in blobs/.
func removeCorrupt(root *os.Root, desc ocispec.Descriptor) (bool, error) {
	if err := desc.Digest.Validate(); err != nil {
		return false, errdefs.Invalid(fmt.Errorf("blob %s: %w", desc.Digest, err))
	}
	name := blobPath(desc.Digest)
	ok, err := matches(root, name, desc)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && ok) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := root.Mkdir(ingestDir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return false, err
	}
	aside := path.Join(ingestDir, "corrupt-"+desc.Digest.Encoded())
	if err := root.Rename(name, aside); err != nil {
		return false, err
	}
	// Out of blobs/ already: what a failure leaves is the ingest
	// directory's, which the next writer empties.
	_ = root.Remove(aside)
	return true, nil
}

// matches says whether the regular file name in root holds desc's
// digest. Its size is not compared with desc's: a blob is its digest,
// and a descriptor that gives a good copy's digest with another size (a
// manifest may say anything) must not have the copy removed, which other
// packages, or a package no registry has, may hold.
func matches(root *os.Root, name string, desc ocispec.Descriptor) (bool, error) {
	info, err := root.Lstat(name)
	if err != nil {
		return false, err
	}
	if !info.Mode().IsRegular() {
		return false, nil
	}
	f, err := root.Open(name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	digester := desc.Digest.Algorithm().Digester()
	if _, err := io.Copy(digester.Hash(), f); err != nil {
		return false, err
	}
	return digester.Digest() == desc.Digest, nil
}
