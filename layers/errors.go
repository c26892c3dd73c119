package layers

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/opencontainers/go-digest"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/bytesize"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// ProblemsError is returned by Write for a tree that has problems, so that
// callers can list every offending path instead of only the first one.
type ProblemsError struct {
	Problems []Problem
}

func (e *ProblemsError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = fmt.Sprintf("%s (%s: %s)", p.Path, p.Kind, p.Detail)
	}
	noun := "paths"
	if len(e.Problems) == 1 {
		noun = "path"
	}
	return fmt.Sprintf("%d %s cannot be packaged: %s", len(e.Problems), noun, strings.Join(parts, "; "))
}

// SizeError reports a layer whose uncompressed size is over the limit. When
// reading, Size is how much had been seen when the limit was crossed.
type SizeError struct {
	Size  int64
	Limit int64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("layer holds %s of files, over the %s limit (raise it with --max-size)",
		bytesize.Format(e.Size), bytesize.Format(e.Limit))
}

// CountError reports a layer with more entries than the limit. When
// reading, Count is the entry that crossed it.
type CountError struct {
	Count int
	Limit int
}

func (e *CountError) Error() string {
	return fmt.Sprintf("layer holds %d entries (files and directories), over the %d limit (raise it with --max-files)", e.Count, e.Limit)
}

// UnsafeEntryError reports an archive entry that the reader refuses.
type UnsafeEntryError struct {
	Path   string
	Reason string
}

func (e *UnsafeEntryError) Error() string {
	// A hostile path may be kilobytes long (a tar PAX record carries up
	// to 1 MiB): its two ends say where it is, and the message stays one
	// that people read.
	const keep = 100
	if len(e.Path) > 2*keep+3 {
		return fmt.Sprintf("unsafe layer entry %q (a path of %d bytes): %s", e.Path[:keep]+"..."+e.Path[len(e.Path)-keep:], len(e.Path), e.Reason)
	}
	return fmt.Sprintf("unsafe layer entry %q: %s", e.Path, e.Reason)
}

// DigestMismatchError reports a compressed stream whose digest is not the
// one the caller expected. It matches content.ErrMismatchedDigest, as
// every other verification of stax does, so that callers tell content
// that is not what its digest names from other failures one way.
type DigestMismatchError struct {
	Expected digest.Digest
	Actual   digest.Digest
}

func (e *DigestMismatchError) Error() string {
	return fmt.Sprintf("layer digest mismatch: expected %s, got %s", e.Expected, e.Actual)
}

func (e *DigestMismatchError) Is(target error) bool { return target == content.ErrMismatchedDigest }

// CorruptError reports a stream that is not a layer: not gzip or tar,
// cut short, or with data after its end. Intact is set once the whole
// stream was found to match its digest: the bytes are the package's own,
// so it was pushed so, and fetching it again changes nothing.
type CorruptError struct {
	Err       error
	Truncated bool
	Intact    bool
}

func (e *CorruptError) Error() string {
	what := "corrupt"
	if e.Truncated {
		what = "truncated"
	}
	msg := fmt.Sprintf("read layer: archive is %s: %v", what, e.Err)
	if e.Intact {
		msg += " (the layer matches its digest: the package was pushed so; push it again, built from its source)"
	}
	return msg
}

func (e *CorruptError) Unwrap() error { return e.Err }

// ErrDestinationInUse is wrapped by Extract's refusal to write where
// something already is.
var ErrDestinationInUse = errors.New("the destination is in use")

// Class classifies an error of the reader (Walk, Extract), so every
// command reports a bad layer the same way: content that is not what its
// digest or its stream says is data loss; an archive stax refuses to
// materialize, or a destination in use, is a failed precondition; a
// failure of the local file system is local.
func Class(err error) errdefs.Class {
	var mismatch *DigestMismatchError
	var unsafe *UnsafeEntryError
	var size *SizeError
	var count *CountError
	var pathErr *fs.PathError
	var linkErr *os.LinkError
	switch {
	case errors.As(err, &mismatch):
		return errdefs.DataLoss
	case errors.As(err, &unsafe), errors.As(err, &size), errors.As(err, &count), errors.Is(err, ErrDestinationInUse):
		return errdefs.FailedPrecondition
	case errors.As(err, &pathErr), errors.As(err, &linkErr):
		return errdefs.Local
	}
	// A truncated or corrupt stream: what arrived is not a layer.
	return errdefs.DataLoss
}
