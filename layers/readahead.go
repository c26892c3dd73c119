package layers

import (
	"io"
	"sync"
	"sync/atomic"
)

// goroutinesAhead counts the goroutines reading layers ahead of their
// readers (readAhead, entriesAhead), so that tests can check that none
// outlives the Close, or the Walk, that stops it.
var goroutinesAhead atomic.Int64

// readAhead reads r on a goroutine of its own, up to depth chunks of
// chunkSize bytes ahead of the reader: decompressing a layer then runs on
// one core while its files are written on another, as `tar -xzf` gets
// from its gzip child. Close stops the goroutine and waits for it, so
// that r is not read once Close has returned.
type readAhead struct {
	full  chan []byte // chunks read, in order
	free  chan []byte // chunks to read into
	stop  chan struct{}
	done  sync.WaitGroup
	err   error  // r's error, set before full is closed
	chunk []byte // the chunk being read from
	cur   []byte // what is left of it
	close sync.Once
}

func newReadAhead(r io.Reader, chunkSize, depth int) *readAhead {
	ra := &readAhead{full: make(chan []byte, depth), free: make(chan []byte, depth), stop: make(chan struct{})}
	for range depth {
		ra.free <- make([]byte, chunkSize)
	}
	ra.done.Add(1)
	goroutinesAhead.Add(1)
	go func() {
		defer ra.done.Done()
		defer goroutinesAhead.Add(-1)
		defer close(ra.full)
		for {
			var buf []byte
			select {
			case buf = <-ra.free:
			case <-ra.stop:
				return
			}
			// r's error is passed on as it is: a truncated stream must
			// stay io.ErrUnexpectedEOF, not become the end of r.
			n, err := 0, error(nil)
			for n < len(buf) && err == nil {
				var m int
				m, err = r.Read(buf[n:])
				n += m
			}
			if n > 0 {
				select {
				case ra.full <- buf[:n]:
				case <-ra.stop:
					return
				}
			}
			if err != nil {
				ra.err = err
				return
			}
		}
	}()
	return ra
}

func (ra *readAhead) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for len(ra.cur) == 0 {
		if ra.chunk != nil {
			ra.free <- ra.chunk[:cap(ra.chunk)]
			ra.chunk = nil
		}
		buf, ok := <-ra.full
		if !ok {
			return 0, ra.err
		}
		ra.chunk, ra.cur = buf, buf
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

// Close stops reading ahead; it is safe to call more than once.
func (ra *readAhead) Close() error {
	ra.close.Do(func() {
		close(ra.stop)
		ra.done.Wait()
	})
	return nil
}
