package layers

import (
	"crypto/sha256"

	"github.com/opencontainers/go-digest"
)

// fileHasher hashes the files an extraction writes on a goroutine of its
// own. The writer reads each file's content into the hasher's chunks,
// writes it from there, and tells where each file ends; the digests come
// back, in file order, from close. Creating and writing files (system
// calls) is the slow side of an extraction on a disk; SHA-256 over every
// byte beside it, rather than on the same goroutine, takes it off the
// path that sets the wall time, as the gzip reader's goroutine does for
// decompression.
type fileHasher struct {
	free, full chan *hashChunk
	cur        *hashChunk
	done       chan struct{}
	digests    []digest.Digest
}

// hashChunk holds file content back to back: ends are the offsets in
// data where a file ends; what follows the last one belongs to a file
// that goes on in the next chunk.
type hashChunk struct {
	data []byte
	ends []int
}

const (
	hashChunkSize  = 128 << 10
	hashChunkCount = 4
)

func newFileHasher() *fileHasher {
	fh := &fileHasher{free: make(chan *hashChunk, hashChunkCount), full: make(chan *hashChunk, hashChunkCount), done: make(chan struct{})}
	for range hashChunkCount - 1 {
		fh.free <- &hashChunk{data: make([]byte, 0, hashChunkSize)}
	}
	fh.cur = &hashChunk{data: make([]byte, 0, hashChunkSize)}
	go fh.run()
	return fh
}

func (fh *fileHasher) run() {
	defer close(fh.done)
	h := sha256.New()
	for c := range fh.full {
		off := 0
		for _, end := range c.ends {
			h.Write(c.data[off:end])
			fh.digests = append(fh.digests, newDigest(h))
			h.Reset()
			off = end
		}
		h.Write(c.data[off:])
		c.data, c.ends = c.data[:0], c.ends[:0]
		fh.free <- c
	}
}

// space is where the next bytes of the current file go; add says how
// many went there.
func (fh *fileHasher) space() []byte {
	if len(fh.cur.data) == cap(fh.cur.data) {
		fh.full <- fh.cur
		fh.cur = <-fh.free
	}
	return fh.cur.data[len(fh.cur.data):cap(fh.cur.data)]
}

func (fh *fileHasher) add(n int) { fh.cur.data = fh.cur.data[:len(fh.cur.data)+n] }

// endFile ends the current file.
func (fh *fileHasher) endFile() { fh.cur.ends = append(fh.cur.ends, len(fh.cur.data)) }

// close hashes what is left and stops the goroutine; it returns the
// digest of every file ended, in order.
func (fh *fileHasher) close() []digest.Digest {
	fh.full <- fh.cur
	close(fh.full)
	<-fh.done
	return fh.digests
}
