package store

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
)

// WriteBlob stores, in the OCI layout at dir, the blob write produces:
// write streams it into a file of the layout's ingest directory and
// returns its digest (computed as it wrote), and the file is then renamed
// into place. A blob whose digest is only known once written needs no
// copy in a temporary directory, and no second write. A file a killed
// run leaves in ingest is removed by the next writer of the store.
func WriteBlob(dir string, write func(io.Writer) (digest.Digest, error)) error {
	ingest := filepath.Join(dir, ingestDir)
	if err := os.MkdirAll(ingest, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(ingest, "stax-blob-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // fails once renamed
	d, err := write(f)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return err
	}
	if err := d.Validate(); err != nil {
		return fmt.Errorf("store blob: %w", err)
	}
	target := filepath.Join(dir, filepath.FromSlash(blobPath(d)))
	if _, err := os.Stat(target); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, target)
}

// Holds reports whether the OCI layout at dir has a file of desc's size
// where it keeps desc's blob. It reads no index and takes no lock: it is
// a hint, which saves work when true (what the file holds is checked
// when it is read), and which a writer checks again under the store's
// lock before it counts on it.
func Holds(dir string, desc ocispec.Descriptor) bool {
	if desc.Digest.Validate() != nil {
		return false
	}
	info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(blobPath(desc.Digest))))
	return err == nil && info.Mode().IsRegular() && info.Size() == desc.Size
}

// TeeBlob stores the blob desc, which r streams, in the OCI layout at dir
// while read consumes the very same bytes: one pass over them, hashed as
// they are written into the layout's ingest directory. What read leaves
// unread is stored too. The blob is renamed into place only when read
// returned nil and the bytes match desc's size and digest; otherwise
// nothing is kept, and the error is, in this order, the first failure of
// reading r (a *SourceError), a mismatch (content.ErrMismatchedDigest: the bytes are to
// blame for whatever read made of them), or read's own. The bytes read
// hands on are unverified until TeeBlob returns: read must keep what it
// does with them where it can undo it.
func TeeBlob(dir string, desc ocispec.Descriptor, r io.Reader, read func(io.Reader) error) error {
	if err := desc.Digest.Validate(); err != nil {
		return fmt.Errorf("store blob: %w", err)
	}
	return WriteBlob(dir, func(w io.Writer) (digest.Digest, error) {
		digester := desc.Digest.Algorithm().Digester()
		// One byte past the size is enough to notice a longer blob.
		src := &sourceReader{r: io.LimitReader(r, desc.Size+1)}
		counted := &countingWriter{w: io.MultiWriter(w, digester.Hash())}
		tee := bufio.NewReaderSize(io.TeeReader(src, counted), teeBufferSize)
		readErr := read(tee)
		if _, err := io.Copy(io.Discard, tee); err != nil && src.err == nil {
			return "", err // writing into ingest failed
		}
		switch {
		case src.err != nil:
			return "", &SourceError{Err: src.err}
		case counted.n != desc.Size || digester.Digest() != desc.Digest:
			return "", fmt.Errorf("blob %s (%d bytes read, %d expected): %w", desc.Digest, counted.n, desc.Size, content.ErrMismatchedDigest)
		case readErr != nil:
			return "", readErr
		}
		return desc.Digest, nil
	})
}

// SourceError is TeeBlob's failure to read the blob's stream.
type SourceError struct{ Err error }

func (e *SourceError) Error() string { return e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// teeBufferSize is how much TeeBlob reads from its source at once, and so
// the size of its writes into ingest.
const teeBufferSize = 256 << 10

// sourceReader keeps the first error of reading r other than its end.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
