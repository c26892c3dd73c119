package layers

import (
	"cmp"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/opencontainers/go-digest"
)

// The compressor is pinned, level included, so that a layer's digest does
// not move when the Go toolchain (and its compress/flate) is upgraded.
const (
	gzipLevel      = 6
	gzipOSUnknown  = 0xff
	copyBufferSize = 32 << 10
)

// Write streams t as a deterministic tar+gzip layer to w, hashing as it
// goes. It refuses, before writing anything, a tree with problems (a
// *ProblemsError) or one larger than the size limit (a *SizeError).
//
// Entries are written in t.Entries order as ustar headers with mtime 0,
// owner 0:0 and no owner names, mode 0755 for directories and executable
// files and 0644 for the rest; a name longer than ustar can hold goes in a
// PAX record. The gzip stream has no name, comment, extra field or mtime.
// A file whose size changed since Scan fails the write; the stream written
// so far then ends without a gzip trailer, so no reader accepts it.
func Write(w io.Writer, t *Tree, opts WriteOptions) (WriteResult, error) {
	if err := checkTotals(t.Problems, t.Size(), len(t.Entries), opts); err != nil {
		return WriteResult{}, err
	}
	if _, err := checkEntries(t.Entries, ""); err != nil {
		return WriteResult{}, err
	}
	lw, err := newLayerWriter(w)
	if err != nil {
		return WriteResult{}, err
	}
	files, err := lw.write(t.Entries)
	if err != nil {
		return WriteResult{}, err
	}
	res, err := lw.close()
	res.Files = files
	return res, err
}

// checkTotals and checkEntries hold every reason to refuse a tree, so
// that nothing is written for a tree that would fail halfway for a reason
// known upfront.
func checkTotals(problems []Problem, size int64, count int, opts WriteOptions) error {
	if len(problems) > 0 {
		return &ProblemsError{Problems: problems}
	}
	if limit := effectiveLimit(opts.MaxSize); limit >= 0 && size > limit {
		return &SizeError{Size: size, Limit: limit}
	}
	if limit := effectiveCount(opts.MaxFiles); limit >= 0 && count > limit {
		return &CountError{Count: count, Limit: limit}
	}
	return nil
}

// checkEntries checks entries that follow the entry of layer order key
// prev ("" for none), and returns the key of the last one.
func checkEntries(entries []Entry, prev string) (string, error) {
	for _, e := range entries {
		if reason := cmp.Or(unsafeName(e.Path), misplacedEntry(e.Path, e.Dir)); reason != "" {
			return prev, fmt.Errorf("write layer: entry %q: %s", e.Path, reason)
		}
		key := layerKey(e)
		if prev != "" && strings.Compare(prev, key) >= 0 {
			return prev, fmt.Errorf("write layer: entry %q is out of layer order or duplicated", e.Path)
		}
		if !e.Dir && e.Size > maxOctalSize {
			return prev, fmt.Errorf("write layer: %s: %w", e.Path, errFileTooLarge)
		}
		prev = key
	}
	return prev, nil
}

func effectiveCount(maxFiles int) int {
	if maxFiles == 0 {
		return DefaultMaxFiles
	}
	return maxFiles
}

func effectiveLimit(maxSize int64) int64 {
	if maxSize == 0 {
		return DefaultMaxSize
	}
	return maxSize
}

// layerWriter is the tar+gzip stream of a layer being written, fed
// entries in layer order.
type layerWriter struct {
	zw      *gzip.Writer
	tw      *tarWriter
	sum     hash.Hash
	counter *countingWriter
	buf     []byte
}

func newLayerWriter(w io.Writer) (*layerWriter, error) {
	lw := &layerWriter{sum: sha256.New(), counter: &countingWriter{}, buf: make([]byte, copyBufferSize)}
	zw, err := gzip.NewWriterLevel(io.MultiWriter(w, lw.sum, lw.counter), gzipLevel)
	if err != nil {
		return nil, fmt.Errorf("write layer: %w", err)
	}
	// The zero time.Time would be encoded as year 1, not as 0.
	zw.ModTime = time.Unix(0, 0)
	zw.OS = gzipOSUnknown
	lw.zw, lw.tw = zw, &tarWriter{w: zw}
	return lw, nil
}

// write appends entries to the archive and returns the digests of its
// files.
func (lw *layerWriter) write(entries []Entry) ([]FileDigest, error) {
	var files []FileDigest
	for _, e := range entries {
		if e.Dir {
			if err := lw.tw.writeHeader(e.Path+"/", 0o755, 0, typeDir); err != nil {
				return nil, fmt.Errorf("write layer: %s: %w", e.Path, err)
			}
			continue
		}
		fd, err := writeFile(lw.tw, e, lw.buf)
		if err != nil {
			return nil, fmt.Errorf("write layer: %s: %w", e.Path, err)
		}
		files = append(files, fd)
	}
	return files, nil
}

// close ends the archive and the gzip stream.
func (lw *layerWriter) close() (WriteResult, error) {
	if err := lw.tw.close(); err != nil {
		return WriteResult{}, fmt.Errorf("write layer: %w", err)
	}
	if err := lw.zw.Close(); err != nil {
		return WriteResult{}, fmt.Errorf("write layer: %w", err)
	}
	return WriteResult{Digest: digest.NewDigest(digest.SHA256, lw.sum), Size: lw.counter.n}, nil
}

// writeFile copies one file into the archive, hashing its bytes on the way.
func writeFile(tw *tarWriter, e Entry, buf []byte) (FileDigest, error) {
	f, err := os.Open(e.Source)
	if err != nil {
		return FileDigest{}, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return FileDigest{}, err
	} else if !fi.Mode().IsRegular() || fi.Size() != e.Size {
		return FileDigest{}, fmt.Errorf("%s changed since it was scanned", e.Source)
	}
	if err := tw.writeHeader(e.Path, fileMode(e.Executable), e.Size, typeReg); err != nil {
		return FileDigest{}, err
	}
	h := sha256.New()
	if err := copyExactly(io.MultiWriter(tw.w, h), f, e.Size, buf); err != nil {
		return FileDigest{}, fmt.Errorf("%s: %w", e.Source, err)
	}
	if err := tw.finishEntry(); err != nil {
		return FileDigest{}, err
	}
	return FileDigest{Path: e.Path, Executable: e.Executable, Size: e.Size, Digest: newDigest(h)}, nil
}

// copyExactly copies size bytes and fails if the file holds more or fewer,
// since the size is already in the tar header.
func copyExactly(dst io.Writer, f *os.File, size int64, buf []byte) error {
	n, err := io.CopyBuffer(dst, io.LimitReader(f, size), buf)
	if err != nil {
		return err
	}
	if n < size {
		return fmt.Errorf("file shrank while being written (%d of %d bytes)", n, size)
	}
	if m, _ := f.Read(buf[:1]); m > 0 {
		return fmt.Errorf("file grew while being written (past %d bytes)", size)
	}
	return nil
}

func fileMode(executable bool) int64 {
	if executable {
		return 0o755
	}
	return 0o644
}

func newDigest(h hash.Hash) digest.Digest {
	return digest.NewDigest(digest.SHA256, h)
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
