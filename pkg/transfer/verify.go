package transfer

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"

	"github.com/stax-dev/stax/pkg/artifact"
)

// source wraps the source of a copy: every blob is verified as it is read,
// so a mismatch names the blob, and reported to the progress when there is
// one. A blob in a file (the local store, an OCI layout) is verified
// before it is handed on, as the file itself: an upload then goes out with
// sendfile rather than through read and write calls.
type source struct {
	oras.ReadOnlyGraphTarget
	progress Progress
	// failed keeps the first error of reading from the source, which the
	// destination reports as its own when it was the one reading.
	failed *firstError
}

// firstError keeps the first error set; it is safe for concurrent use.
type firstError struct {
	mu  sync.Mutex
	err error
}

func (f *firstError) set(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

func (f *firstError) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (s source) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	rc, err := s.ReadOnlyGraphTarget.Fetch(ctx, desc)
	if err != nil {
		return nil, err
	}
	// Progress bars count the bytes read; sendfile reads none.
	if f, ok := rc.(*os.File); ok && s.progress == nil {
		if err := verifyFile(f, desc); err != nil {
			f.Close()
			s.failed.set(err)
			return nil, err
		}
		return f, nil
	}
	rc = &errorKeeper{ReadCloser: artifact.VerifyReader(rc, desc), failed: s.failed}
	if s.progress != nil {
		rc = s.progress.Track(desc, rc)
	}
	return rc, nil
}

// verifyFile reads the blob in f through once to check it against desc,
// and rewinds f.
func verifyFile(f *os.File, desc ocispec.Descriptor) error {
	start, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	// The struct hides io.Discard's ReaderFrom, which would read in small
	// pieces, for the buffer to be used.
	if _, err := io.CopyBuffer(struct{ io.Writer }{io.Discard}, artifact.VerifyReader(io.NopCloser(f), desc), make([]byte, 256<<10)); err != nil {
		return err
	}
	_, err = f.Seek(start, io.SeekStart)
	return err
}

// errorKeeper keeps the first error of reading a source blob, other than
// its end. It keeps Seek so that uploads fed by it can be resent.
type errorKeeper struct {
	io.ReadCloser
	failed *firstError
}

func (k *errorKeeper) Read(p []byte) (int, error) {
	n, err := k.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		k.failed.set(err)
	}
	return n, err
}

func (k *errorKeeper) Seek(offset int64, whence int) (int64, error) {
	seeker, ok := k.ReadCloser.(io.Seeker)
	if !ok {
		return 0, errors.New("reader cannot seek")
	}
	return seeker.Seek(offset, whence)
}
