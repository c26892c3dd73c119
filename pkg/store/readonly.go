package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/oci"
	"oras.land/oras-go/v2/errdef"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// ReadOnlyLayout is an OCI image layout opened for reading. Opening it
// creates and changes nothing: an oci: reference can come from a file
// someone else wrote (a stax.yaml names install sources), and reading a
// package must never write into whatever directory it names. It is read
// through an os.Root, so that no symbolic link inside it leads out.
type ReadOnlyLayout struct {
	*oci.ReadOnlyStore
	Dir  string
	root *os.Root
	// referrersIndexes are the indexes of the referrers tag schema the
	// layout holds (see recordReferrer).
	referrersIndexes map[digest.Digest]bool
}

// Predecessors returns the manifests that refer to node, but for the
// layout's referrers indexes.
func (l *ReadOnlyLayout) Predecessors(ctx context.Context, node ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	preds, err := l.ReadOnlyStore.Predecessors(ctx, node)
	if err != nil {
		return nil, err
	}
	return withoutReferrersIndexes(preds, func() map[digest.Digest]bool { return l.referrersIndexes }), nil
}

// OpenLayoutReadOnly opens the OCI image layout at dir for reading. A
// directory without an oci-layout file is refused, as one that does not
// exist is.
func OpenLayoutReadOnly(ctx context.Context, dir string) (*ReadOnlyLayout, error) {
	if err := CheckLayout(dir); err != nil {
		return nil, err
	}
	if err := CheckIndexFile(dir); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, errdefs.IO(fmt.Errorf("open OCI layout %s: %w", dir, err))
	}
	s, err := oci.NewFromFS(ctx, root.FS())
	if err != nil {
		root.Close()
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			// Reading never repairs; a writer does (see rebuildIndex).
			return nil, errdefs.IO(fmt.Errorf("open OCI layout %s: %w: its %s is damaged; copying a package into the layout (stax copy REF oci:%s) rebuilds it from the blobs", dir, err, ocispec.ImageIndexFile, dir))
		}
		return nil, errdefs.IO(fmt.Errorf("open OCI layout %s: %w", dir, err))
	}
	tags, err := referrersTags(ctx, s)
	if err != nil {
		root.Close()
		return nil, errdefs.IO(fmt.Errorf("open OCI layout %s: %w", dir, err))
	}
	return &ReadOnlyLayout{ReadOnlyStore: s, Dir: dir, root: root, referrersIndexes: referrersIndexes(tags)}, nil
}

// CheckLayout says why dir is not an OCI image layout, if it is not: it
// does not exist, is not a directory, or has no oci-layout file.
func CheckLayout(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return errdefs.Invalid(fmt.Errorf("OCI layout %s: %w", dir, err))
	}
	if !info.IsDir() {
		return errdefs.Invalid(fmt.Errorf("%s is not an OCI image layout: it is not a directory", dir))
	}
	if _, err := os.Lstat(filepath.Join(dir, ocispec.ImageLayoutFile)); errors.Is(err, fs.ErrNotExist) {
		return errdefs.Invalid(fmt.Errorf("%s is not an OCI image layout (no %s file): name the directory of a layout, such as one `stax copy REF oci:NEW-DIR` writes", dir, ocispec.ImageLayoutFile))
	} else if err != nil {
		return errdefs.IO(fmt.Errorf("OCI layout %s: %w", dir, err))
	}
	return nil
}

// Push refuses: the layout was opened for reading.
func (l *ReadOnlyLayout) Push(context.Context, ocispec.Descriptor, io.Reader) error {
	return fmt.Errorf("OCI layout %s is opened for reading: %w", l.Dir, errdef.ErrUnsupported)
}

// Tag refuses: the layout was opened for reading.
func (l *ReadOnlyLayout) Tag(context.Context, ocispec.Descriptor, string) error {
	return fmt.Errorf("OCI layout %s is opened for reading: %w", l.Dir, errdef.ErrUnsupported)
}

// Close releases the layout's directory.
func (l *ReadOnlyLayout) Close() error { return l.root.Close() }

// MaxIndexSize bounds the index.json of a layout: what stax reads, since
// a layout can come from anyone, and what it writes, so that it never
// writes an index it then refuses to read. An entry of the local store is
// about 250 bytes: this is some 250,000 tags, what a long-lived CI cache
// or mirror holds. The store reads and writes it an entry at a time.
const MaxIndexSize = 64 << 20

// CheckIndexFile says why the index.json of the layout at dir cannot be
// read, if it cannot: it is not a regular file (a named pipe would
// block the reader for ever) or it is over MaxIndexSize. A missing one is
// for the caller to judge.
func CheckIndexFile(dir string) error {
	info, err := os.Lstat(filepath.Join(dir, ocispec.ImageIndexFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return errdefs.IO(fmt.Errorf("OCI layout %s: %w", dir, err))
	case !info.Mode().IsRegular():
		return errdefs.Invalid(fmt.Errorf("OCI layout %s: %s is not a regular file", dir, ocispec.ImageIndexFile))
	case info.Size() > MaxIndexSize:
		return errdefs.Invalid(fmt.Errorf("OCI layout %s: %s is over %d bytes", dir, ocispec.ImageIndexFile, MaxIndexSize))
	}
	return nil
}

// ReadIndexFile reads the index.json of the layout at dir, handing each
// entry of its manifests to each as it is read (see decodeIndex); an
// error each returns stops the reading and is returned as it is.
func ReadIndexFile(dir string, each func(ocispec.Descriptor) error) error {
	if err := CheckIndexFile(dir); err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(dir, ocispec.ImageIndexFile))
	if err != nil {
		return errdefs.IO(fmt.Errorf("OCI layout %s: %w", dir, err))
	}
	defer f.Close()
	var stopped error
	_, err = decodeIndex(f, func(desc ocispec.Descriptor) error {
		stopped = each(desc)
		return stopped
	})
	var rerr *readError
	switch {
	case err == nil:
		return nil
	case stopped != nil:
		return stopped
	case errors.As(err, &rerr):
		return errdefs.IO(fmt.Errorf("OCI layout %s: %w", dir, rerr.err))
	}
	return errdefs.Invalid(fmt.Errorf("OCI layout %s: %s: %w", dir, ocispec.ImageIndexFile, err))
}
