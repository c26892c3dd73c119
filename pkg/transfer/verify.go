package transfer

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
)

// source wraps the source of a copy: every blob is verified as it is read,
// so a mismatch names the blob, and reported to the progress when there is
// one.
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
	rc = &verifyingReader{ReadCloser: rc, desc: desc, digester: desc.Digest.Algorithm().Digester(), failed: s.failed}
	if s.progress != nil {
		rc = s.progress.Track(desc, rc)
	}
	return rc, nil
}

// verifyingReader turns the end of a blob whose bytes do not match its
// descriptor into an error naming the blob. It keeps Seek so that uploads
// fed by it can be rewound.
type verifyingReader struct {
	io.ReadCloser
	desc     ocispec.Descriptor
	digester digest.Digester
	read     int64
	failed   *firstError
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	n, err := v.ReadCloser.Read(p)
	v.digester.Hash().Write(p[:n])
	v.read += int64(n)
	if err != nil && err != io.EOF && v.failed != nil {
		v.failed.set(err)
	}
	if err == io.EOF {
		if v.read != v.desc.Size || v.digester.Digest() != v.desc.Digest {
			return n, fmt.Errorf("blob %s (%d bytes read, %d expected): %w", v.desc.Digest, v.read, v.desc.Size, content.ErrMismatchedDigest)
		}
	}
	return n, err
}

func (v *verifyingReader) Seek(offset int64, whence int) (int64, error) {
	seeker, ok := v.ReadCloser.(io.Seeker)
	if !ok {
		return 0, fmt.Errorf("blob %s: reader cannot seek", v.desc.Digest)
	}
	pos, err := seeker.Seek(offset, whence)
	if err != nil {
		return pos, err
	}
	if pos != 0 {
		// Verification restarts only from the beginning of the blob.
		return pos, fmt.Errorf("blob %s: cannot verify from offset %d", v.desc.Digest, pos)
	}
	v.digester, v.read = v.desc.Digest.Algorithm().Digester(), 0
	return pos, nil
}
