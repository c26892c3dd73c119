package layers

import (
	"archive/tar"
	// Registers sha512 with go-digest: OCI descriptors may use it.
	_ "crypto/sha512"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/opencontainers/go-digest"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/bytesize"
)

// maxTrailingData bounds the zero padding that may follow the tar trailer
// inside the gzip stream. Tar writers pad an archive to their record size
// (10 KiB for GNU tar by default, 20 blocks of 512 bytes); more than this
// is not padding but a decompression bomb in waiting.
const maxTrailingData = 1 << 20

// Walk reads a tar+gzip layer from r, checks every entry, and calls fn for
// each with a reader of its content. It stops at the first unsafe entry.
//
// Refused entries are reported as *UnsafeEntryError: names that are empty,
// absolute, unclean, hold "..", a backslash or a control character, or
// are past the limits of length and depth (unsafeName); a file at the top
// level, or a top-level directory that cannot be a skill directory
// (misplacedEntry); links, devices, FIFOs and any type other than a
// regular file or a directory; a path seen twice, or a path under one
// that is a file. Going past the size limit is a *SizeError. After the
// tar end-of-archive marker only zero padding may follow, in the last
// gzip member or in more: anything else makes the layer corrupt. Archives
// from other writers are accepted: any entry order, missing parent
// directories, PAX and GNU metadata headers, gzip streams of several
// members.
//
// The digest, when opts.Digest is set, covers the whole compressed stream,
// so it is only known once every entry has been passed to fn: a mismatch
// (*DigestMismatchError) is the last thing Walk reports, and fn's effects
// must be undone by the caller, as Extract does. A walk that fails
// part-way reads the rest of r first: when the stream is not the one its
// digest names (a byte flipped on a registry's disk breaks the gzip
// stream long before its end), that mismatch is the error, as opts.Digest
// or the verifying reader under r finds it, not whatever decoding made
// of the altered bytes.
func Walk(r io.Reader, opts ReadOptions, fn func(Header, io.Reader) error) error {
	var sum hash.Hash
	if opts.Digest != "" {
		if err := opts.Digest.Validate(); err != nil {
			return fmt.Errorf("read layer: expected digest: %w", err)
		}
		if !opts.Verified {
			sum = opts.Digest.Algorithm().Hash()
			r = io.TeeReader(r, sum)
		}
	}
	err := walk(r, opts, sum, fn)
	if err == nil || errors.Is(err, content.ErrMismatchedDigest) {
		return err
	}
	return blameStream(r, sum, opts.Digest, opts.Verified, err)
}

// blameStream is the error of a walk of r that failed with err: the
// mismatch reading the rest of r reports, or that the whole stream
// (hashed into sum, when there is a digest to check) is not the one want
// names; else err. Reading the rest costs no more than the stream's size,
// which the fetch under r bounds by its descriptor. verified is
// ReadOptions.Verified: the rest read without a mismatch, the stream is
// the one want names.
func blameStream(r io.Reader, sum hash.Hash, want digest.Digest, verified bool, err error) error {
	if _, rerr := io.Copy(io.Discard, r); rerr != nil {
		if errors.Is(rerr, content.ErrMismatchedDigest) {
			return rerr // the verifying reader under r noticed first
		}
		return err
	}
	switch {
	case want == "" || (sum == nil && !verified):
		return err
	case sum != nil:
		if actual := digest.NewDigest(want.Algorithm(), sum); actual != want {
			return &DigestMismatchError{Expected: want, Actual: actual}
		}
	}
	var bad *CorruptError
	if errors.As(err, &bad) {
		bad.Intact = true
	}
	return err
}

// walk is Walk once r is hashed into sum (nil: no digest to check).
func walk(r io.Reader, opts ReadOptions, sum hash.Hash, fn func(Header, io.Reader) error) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return corrupt(err)
	}
	defer zr.Close()
	ra := newReadAhead(zr, 64<<10, 4)
	defer ra.Close()
	w := &walker{limit: effectiveLimit(opts.MaxSize), maxEntries: effectiveCount(opts.MaxFiles), seen: newPathSet()}
	ahead := newEntriesAhead(w, tar.NewReader(ra), func() error {
		if err := checkTrailer(ra); err != nil {
			return err
		}
		if sum != nil {
			if actual := digest.NewDigest(opts.Digest.Algorithm(), sum); actual != opts.Digest {
				return &DigestMismatchError{Expected: opts.Digest, Actual: actual}
			}
		}
		return nil
	})
	defer ahead.close()
	if opts.Inspect != nil {
		fn = inspecting(fn, opts.Inspect)
	}
	return ahead.walk(fn)
}

// corrupt wraps a decoding error; a short stream becomes io.ErrUnexpectedEOF
// whatever layer (gzip or tar) noticed it.
func corrupt(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &CorruptError{Err: io.ErrUnexpectedEOF, Truncated: true}
	}
	return &CorruptError{Err: err}
}

// checkTrailer reads what follows the tar trailer, so that the gzip
// checksum is verified and the digest covers the whole stream, and
// refuses anything but zero padding there: bytes that are not zero, in
// the last gzip member or in one after it, would be more entries to a
// reader that reads on (GNU tar --ignore-zeros), entries stax never
// checked and a signature never covered.
func checkTrailer(r io.Reader) error {
	buf := make([]byte, 32<<10)
	var n int64
	for {
		m, err := r.Read(buf)
		if i := slices.IndexFunc(buf[:m], func(b byte) bool { return b != 0 }); i >= 0 {
			return corrupt(fmt.Errorf("data after the end of the tar archive (byte %d past its end-of-archive marker is not zero padding): another reader would take it for more entries", n+int64(i)))
		}
		if n += int64(m); n > maxTrailingData {
			return corrupt(fmt.Errorf("more than %s of padding after the end of the tar archive", bytesize.Format(maxTrailingData)))
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return corrupt(err)
		}
	}
}

type walker struct {
	limit      int64
	maxEntries int
	entries    int
	total      int64 // declared sizes of the files so far
	actual     int64 // content bytes actually read
	seen       *pathSet
}

// check validates one header against the rules and what came before it.
func (w *walker) check(hdr *tar.Header) (Header, error) {
	unsafe := func(reason string) (Header, error) {
		return Header{}, &UnsafeEntryError{Path: hdr.Name, Reason: reason}
	}
	if w.entries++; w.maxEntries >= 0 && w.entries > w.maxEntries {
		return Header{}, &CountError{Count: w.entries, Limit: w.maxEntries}
	}
	// Layers stax writes never start names with "./", but `tar -C dir .`
	// does; the name without it is checked like any other.
	name := strings.TrimPrefix(hdr.Name, "./")
	isDir := hdr.Typeflag == tar.TypeDir
	if isDir {
		name = strings.TrimSuffix(name, "/")
	}
	if reason := unsafeName(name); reason != "" {
		return unsafe(reason)
	}
	if reason := misplacedEntry(name, isDir); reason != "" {
		return unsafe(reason)
	}
	if reason := unsupportedType(hdr.Typeflag); reason != "" {
		return unsafe(reason)
	}
	if reason := w.seen.record(name, isDir); reason != "" {
		return unsafe(reason)
	}
	if isDir {
		return Header{Path: name, Dir: true}, nil
	}
	if w.limit >= 0 && hdr.Size > w.limit-w.total {
		return Header{}, &SizeError{Size: w.total + hdr.Size, Limit: w.limit}
	}
	w.total += hdr.Size
	return Header{Path: name, Executable: hdr.Mode&0o111 != 0, Size: hdr.Size}, nil
}

func unsupportedType(flag byte) string {
	switch flag {
	case tar.TypeReg, '\x00', tar.TypeDir:
		return ""
	case tar.TypeSymlink:
		return "symbolic link"
	case tar.TypeLink:
		return "hard link"
	case tar.TypeChar:
		return "character device"
	case tar.TypeBlock:
		return "block device"
	case tar.TypeFifo:
		return "FIFO"
	}
	return fmt.Sprintf("unsupported entry type %q", flag)
}
