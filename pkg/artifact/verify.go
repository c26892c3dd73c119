package artifact

import (
	"fmt"
	"io"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// VerifyReader returns rc checked against desc as it is read: a read past
// desc.Size fails at once, however much the source would send, and the end
// of a blob whose size or digest differs from desc is an error naming the
// blob, matching content.ErrMismatchedDigest. It keeps io.Seeker when rc
// has it (to the start only), so that uploads fed by it can be resent.
func VerifyReader(rc io.ReadCloser, desc ocispec.Descriptor) io.ReadCloser {
	// A digest from a manifest may name an algorithm go-digest does not
	// know, whose Digester panics: such a blob cannot be verified, and is
	// refused as the invalid reference it is.
	if err := desc.Digest.Validate(); err != nil {
		return &verifyingReader{ReadCloser: rc, desc: desc, invalid: errdefs.Invalid(fmt.Errorf("blob %q: %w", desc.Digest, err))}
	}
	return &verifyingReader{ReadCloser: rc, desc: desc, digester: desc.Digest.Algorithm().Digester()}
}

type verifyingReader struct {
	io.ReadCloser
	desc     ocispec.Descriptor
	digester digest.Digester
	read     int64
	// invalid is the failure of every read of a blob whose digest is
	// not one (see VerifyReader).
	invalid error
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	if v.invalid != nil {
		return 0, v.invalid
	}
	if left := v.desc.Size - v.read; int64(len(p)) > left+1 {
		// One byte more than is left is enough to notice a longer blob.
		p = p[:max(left+1, 0)]
	}
	n, err := v.ReadCloser.Read(p)
	if v.read+int64(n) > v.desc.Size {
		return 0, v.mismatch(fmt.Sprintf("more than the %d bytes expected", v.desc.Size))
	}
	v.digester.Hash().Write(p[:n])
	v.read += int64(n)
	if err == io.EOF && (v.read != v.desc.Size || v.digester.Digest() != v.desc.Digest) {
		return n, v.mismatch(fmt.Sprintf("%d bytes read, %d expected", v.read, v.desc.Size))
	}
	return n, err
}

// mismatch is content that is not the blob its descriptor names, wherever
// it came from (a registry, a layout, the local store): a verification
// failure, which no caller should take for a failure to reach or read it.
func (v *verifyingReader) mismatch(detail string) error {
	return errdefs.MarkDataLoss(&MismatchError{Blob: v.desc, detail: detail})
}

// MismatchError is content that is not the blob its descriptor names,
// noticed by a reader VerifyReader returned: Blob says which, for a
// caller that acts on the copy it came from (the local store removes
// its own; see store.RemoveCorrupt). It matches
// content.ErrMismatchedDigest.
type MismatchError struct {
	Blob   ocispec.Descriptor
	detail string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("blob %s (%s): %v", e.Blob.Digest, e.detail, content.ErrMismatchedDigest)
}

func (e *MismatchError) Unwrap() error { return content.ErrMismatchedDigest }

func (v *verifyingReader) Seek(offset int64, whence int) (int64, error) {
	seeker, ok := v.ReadCloser.(io.Seeker)
	if v.invalid != nil {
		return 0, v.invalid
	}
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
