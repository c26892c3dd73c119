package layers

import (
	"archive/tar"
	// Registers sha512 with go-digest: OCI descriptors may use it.
	_ "crypto/sha512"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/opencontainers/go-digest"
)

// maxTrailingData bounds what may follow the tar trailer inside the gzip
// stream. Other writers pad to their record size (10 KiB for GNU tar); more
// than this is not padding but a decompression bomb in waiting.
const maxTrailingData = 1 << 20

// Walk reads a tar+gzip layer from r, checks every entry, and calls fn for
// each with a reader of its content. It stops at the first unsafe entry.
//
// Refused entries are reported as *UnsafeEntryError: names that are empty,
// absolute, unclean, hold "..", a backslash or a control character; links,
// devices, FIFOs and any type other than a regular file or a directory; a
// path seen twice, or a path under one that is a file. Going past the size
// limit is a *SizeError. Archives from other writers are accepted: any
// entry order, missing parent directories, PAX and GNU metadata headers.
//
// The digest, when opts.Digest is set, covers the whole compressed stream,
// so it is only known once every entry has been passed to fn: a mismatch
// (*DigestMismatchError) is the last thing Walk reports, and fn's effects
// must be undone by the caller, as Extract does.
func Walk(r io.Reader, opts ReadOptions, fn func(Header, io.Reader) error) error {
	var sum hash.Hash
	if opts.Digest != "" {
		if err := opts.Digest.Validate(); err != nil {
			return fmt.Errorf("read layer: expected digest: %w", err)
		}
		sum = opts.Digest.Algorithm().Hash()
		r = io.TeeReader(r, sum)
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		return corrupt(err)
	}
	defer zr.Close()
	ra := newReadAhead(zr, 64<<10, 4)
	defer ra.Close()
	w := &walker{limit: effectiveLimit(opts.MaxSize), maxEntries: effectiveCount(opts.MaxFiles), seen: newPathSet()}
	ahead := newEntriesAhead(w, tar.NewReader(ra), func() error {
		if err := drainTrailer(ra); err != nil {
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
		return fmt.Errorf("read layer: archive is truncated: %w", io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("read layer: archive is corrupt: %w", err)
}

// drainTrailer reads what follows the tar trailer, so that the gzip
// checksum is verified and the digest covers the whole stream.
func drainTrailer(zr io.Reader) error {
	n, err := io.Copy(io.Discard, io.LimitReader(zr, maxTrailingData+1))
	if err != nil {
		return corrupt(err)
	}
	if n > maxTrailingData {
		return corrupt(fmt.Errorf("more than %s of data after the end of the tar archive", FormatSize(maxTrailingData)))
	}
	return nil
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
	if top := topLevelDir(name, isDir); top != "" {
		var bad *UnsafeNameError
		if errors.As(CheckName(top), &bad) {
			return unsafe("skill directory name: " + bad.Reason)
		}
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
