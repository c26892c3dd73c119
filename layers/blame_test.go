package layers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// mismatchAtEOF reads r and, at its end, fails as a verifying reader does
// for bytes that are not its blob.
type mismatchAtEOF struct{ r io.Reader }

func (m mismatchAtEOF) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if err == io.EOF {
		return n, errdefs.MarkDataLoss(fmt.Errorf("blob sha256:x (3 bytes read, 3 expected): %w", content.ErrMismatchedDigest))
	}
	return n, err
}

// TestWalkBlamesTheStreamBeforeTheArchive: a byte flipped mid-layer breaks
// its deflate stream long before its end; Walk reads on, and reports a
// stream that is not the one its digest (or the verifying reader under
// it) names as such, and a broken archive that matches its digest as one
// pushed so.
func TestWalkBlamesTheStreamBeforeTheArchive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var body strings.Builder
	for range 20000 {
		body.WriteByte(byte('a' + rng.IntN(26)))
	}
	layer := gzipBytes(t, rawArchive(t, dir("s/"), file("s/SKILL.md", body.String())))
	flipped := flipByte(layer, len(layer)/2)
	walk := func(r io.Reader, opts ReadOptions) error {
		return Walk(r, opts, func(Header, io.Reader) error { return nil })
	}

	err := walk(bytes.NewReader(flipped), ReadOptions{Digest: digest.FromBytes(layer)})
	var mismatch *DigestMismatchError
	if !errors.As(err, &mismatch) || mismatch.Actual != digest.FromBytes(flipped) || !errors.Is(err, content.ErrMismatchedDigest) {
		t.Errorf("altered stream: %v, want a *DigestMismatchError matching content.ErrMismatchedDigest", err)
	}

	err = walk(mismatchAtEOF{bytes.NewReader(flipped)}, ReadOptions{})
	if !errors.Is(err, content.ErrMismatchedDigest) || errdefs.Of(err) != errdefs.DataLoss {
		t.Errorf("altered stream under a verifying reader: %v, want its mismatch", err)
	}

	err = walk(bytes.NewReader(flipped), ReadOptions{Digest: digest.FromBytes(flipped)})
	var bad *CorruptError
	if !errors.As(err, &bad) || !bad.Intact || !strings.Contains(err.Error(), "the package was pushed so") {
		t.Errorf("broken archive matching its digest: %v, want an intact *CorruptError", err)
	}

	err = walk(bytes.NewReader(flipped), ReadOptions{})
	if !errors.As(err, &bad) || bad.Intact {
		t.Errorf("broken archive, no digest: %v, want a *CorruptError not known intact", err)
	}
	if Class(err) != errdefs.DataLoss {
		t.Errorf("broken archive: class %v, want data loss", Class(err))
	}
}

// TestWalkVerifiedLeavesTheDigestToTheReader: with ReadOptions.Verified,
// the reader under Walk checks the digest, so Walk does not hash the
// stream again (a digest the stream does not match goes unnoticed by
// Walk itself); the reader's mismatch is still the error, and a broken
// archive the reader let through whole is one pushed so.
func TestWalkVerifiedLeavesTheDigestToTheReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var body strings.Builder
	for range 20000 {
		body.WriteByte(byte('a' + rng.IntN(26)))
	}
	layer := rawArchive(t, dir("s/"), file("s/SKILL.md", body.String()))
	walk := func(r io.Reader, opts ReadOptions) error {
		return Walk(r, opts, func(Header, io.Reader) error { return nil })
	}
	other := digest.FromString("not the layer")
	if err := walk(bytes.NewReader(layer), ReadOptions{Digest: other, Verified: true}); err != nil {
		t.Errorf("verified by the reader: %v, want no second check", err)
	}
	if err := walk(mismatchAtEOF{bytes.NewReader(layer)}, ReadOptions{Digest: other, Verified: true}); !errors.Is(err, content.ErrMismatchedDigest) {
		t.Errorf("the reader's mismatch: %v, want it reported", err)
	}

	flipped := flipByte(layer, len(layer)/2)
	err := walk(mismatchAtEOF{bytes.NewReader(flipped)}, ReadOptions{Digest: digest.FromBytes(layer), Verified: true})
	if !errors.Is(err, content.ErrMismatchedDigest) || errdefs.Of(err) != errdefs.DataLoss {
		t.Errorf("altered stream under the verifying reader: %v, want its mismatch", err)
	}
	err = walk(bytes.NewReader(flipped), ReadOptions{Digest: digest.FromBytes(flipped), Verified: true})
	var bad *CorruptError
	if !errors.As(err, &bad) || !bad.Intact {
		t.Errorf("broken archive the reader found whole: %v, want an intact *CorruptError", err)
	}
}
