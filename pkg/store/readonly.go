package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

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
// through an os.Root, so that no symbolic link inside it leads out. It
// answers as oras-go's read-only layout store does, from index.json read
// an entry at a time, and reads the manifests only when asked for
// predecessors (see Store).
type ReadOnlyLayout struct {
	Dir   string
	root  *os.Root
	blobs *oci.ReadOnlyStorage
	// refs maps each tag, and each manifest's digest, to its descriptor.
	refs map[string]ocispec.Descriptor
	// referrersIndexes are the indexes of the referrers tag schema the
	// layout holds (see recordReferrer).
	referrersIndexes map[digest.Digest]bool

	// mu guards graph, built the first time predecessors are asked for.
	mu    sync.Mutex
	graph *predecessors
}

// Fetch reads the blob desc.
func (l *ReadOnlyLayout) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	return l.blobs.Fetch(ctx, desc)
}

// Exists says whether the blob desc is in the layout.
func (l *ReadOnlyLayout) Exists(ctx context.Context, desc ocispec.Descriptor) (bool, error) {
	return l.blobs.Exists(ctx, desc)
}

// Resolve returns the descriptor a tag or digest names (see resolveIn).
func (l *ReadOnlyLayout) Resolve(_ context.Context, reference string) (ocispec.Descriptor, error) {
	return resolveIn(l.refs, l.root, reference)
}

// Tags lists the layout's tags, sorted, after last.
func (l *ReadOnlyLayout) Tags(_ context.Context, last string, fn func([]string) error) error {
	return fn(tagsIn(l.refs, last))
}

// Predecessors returns the manifests that refer to node, but for the
// layout's referrers indexes.
func (l *ReadOnlyLayout) Predecessors(ctx context.Context, node ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.graph == nil {
		g, err := graphOf(ctx, l.blobs, l.refs)
		if err != nil {
			return nil, fmt.Errorf("read the manifests of OCI layout %s: %w", l.Dir, err)
		}
		l.graph = g
	}
	return withoutReferrersIndexes(l.graph.list(node), func() map[digest.Digest]bool { return l.referrersIndexes }), nil
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
		return nil, errdefs.MarkLocal(fmt.Errorf("open OCI layout %s: %w", dir, err))
	}
	refs, err := readRefs(root)
	if err == nil {
		err = checkLayoutFile(root)
	}
	if err != nil {
		root.Close()
		var rerr *readError
		if errors.As(err, &rerr) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, errdef.ErrUnsupportedVersion) {
			return nil, errdefs.MarkLocal(fmt.Errorf("open OCI layout %s: %w", dir, err))
		}
		// Reading never repairs; a writer does (see rebuildIndex).
		return nil, errdefs.MarkLocal(fmt.Errorf("open OCI layout %s: %w: its %s is damaged; copying a package into the layout (stax copy REF oci:%s) rebuilds it from the blobs", dir, err, ocispec.ImageIndexFile, dir))
	}
	return &ReadOnlyLayout{
		Dir: dir, root: root, blobs: oci.NewStorageFromFS(root.FS()),
		refs: refs, referrersIndexes: referrersIndexes(refs),
	}, nil
}

// readRefs reads the index.json of the layout at root, an entry at a time,
// into a map of each tag, and each manifest's digest, to its descriptor.
func readRefs(root *os.Root) (map[string]ocispec.Descriptor, error) {
	f, err := root.Open(ocispec.ImageIndexFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ix := newLayoutIndex(ocispec.Index{})
	if _, err := decodeIndex(f, func(desc ocispec.Descriptor) error { ix.add(desc); return nil }); err != nil {
		return nil, err
	}
	return ix.refs, nil
}

// CheckLayout says why dir is not an OCI image layout, if it is not: it
// does not exist, is not a directory, or has no oci-layout file. Each is
// the file system's error (exit 2), as a package directory that is not
// there is, whichever command reads the layout.
func CheckLayout(dir string) error {
	const fix = "name the directory of an OCI layout, such as one `stax copy REF oci:NEW-DIR` or `stax pack -t oci:NEW-DIR:TAG` writes"
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return errdefs.MarkLocal(fmt.Errorf("no OCI layout at %s: %s", dir, fix))
	}
	if err != nil {
		return errdefs.MarkLocal(fmt.Errorf("OCI layout %s: %w", dir, err))
	}
	if !info.IsDir() {
		return errdefs.MarkLocal(fmt.Errorf("%s is not an OCI image layout: it is not a directory; %s", dir, fix))
	}
	if _, err := os.Lstat(filepath.Join(dir, ocispec.ImageLayoutFile)); errors.Is(err, fs.ErrNotExist) {
		return errdefs.MarkLocal(fmt.Errorf("%s is not an OCI image layout (no %s file): %s", dir, ocispec.ImageLayoutFile, fix))
	} else if err != nil {
		return errdefs.MarkLocal(fmt.Errorf("OCI layout %s: %w", dir, err))
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
		return errdefs.MarkLocal(fmt.Errorf("OCI layout %s: %w", dir, err))
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
		return errdefs.MarkLocal(fmt.Errorf("OCI layout %s: %w", dir, err))
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
		return errdefs.MarkLocal(fmt.Errorf("OCI layout %s: %w", dir, rerr.err))
	}
	return errdefs.Invalid(fmt.Errorf("OCI layout %s: %s: %w", dir, ocispec.ImageIndexFile, err))
}
