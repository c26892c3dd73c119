package layers

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"sync"
)

// entriesAhead parses a layer's tar stream and checks its entries on a
// goroutine of its own, ahead of the one that calls Walk's fn: parsing
// headers, checking names and copying content then run beside the
// writing of files, rather than before each. Entries and their content
// are handed over in batches holding a chunk of content back to back,
// a few chunks at most in flight: memory stays flat, and a large file
// streams through chunk after chunk.
type entriesAhead struct {
	full chan *entryBatch
	free chan *entryBatch
	stop chan struct{}
	done sync.WaitGroup
	once sync.Once

	cur  *entryBatch // the batch being read from
	next int         // its next item
	err  error       // the stream's end (errEntriesEnd) or error, once reached
}

// entryBatch is entries in stream order: a header item starts an entry,
// data items (slices of chunk) follow with its content. err, when set,
// comes after the items.
type entryBatch struct {
	chunk []byte
	items []entryItem
	err   error
}

type entryItem struct {
	header bool
	h      Header
	data   []byte
}

const (
	entryChunkSize  = 64 << 10
	entryChunkCount = 4
	entryBatchItems = 512
)

// errEntriesEnd is the end of a layer read whole and verified.
var errEntriesEnd = errors.New("end of layer")

// newEntriesAhead starts reading tr; finish is called, on the reading
// goroutine, once the tar trailer is reached: its error is the last
// thing the walk reports.
func newEntriesAhead(w *walker, tr *tar.Reader, finish func() error) *entriesAhead {
	ea := &entriesAhead{full: make(chan *entryBatch, entryChunkCount), free: make(chan *entryBatch, entryChunkCount), stop: make(chan struct{})}
	for range entryChunkCount {
		ea.free <- &entryBatch{chunk: make([]byte, 0, entryChunkSize), items: make([]entryItem, 0, entryBatchItems)}
	}
	ea.done.Add(1)
	goroutinesAhead.Add(1)
	go func() {
		defer ea.done.Done()
		defer goroutinesAhead.Add(-1)
		defer close(ea.full)
		ea.read(w, tr, finish)
	}()
	return ea
}

// read is the reading goroutine.
func (ea *entriesAhead) read(w *walker, tr *tar.Reader, finish func() error) {
	f := batchFiller{ea: ea}
	select {
	case f.b = <-ea.free:
	case <-ea.stop:
		return
	}
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			f.fail(corrupt(err))
			return
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			// Archive-wide metadata, such as the commit git archive records.
			continue
		}
		if hdr.Typeflag == tar.TypeDir && (hdr.Name == "./" || hdr.Name == ".") {
			// The root of an archive made with `tar -C dir .`.
			continue
		}
		h, err := w.check(hdr)
		if err != nil {
			f.fail(err)
			return
		}
		if !f.room(false) {
			return
		}
		f.b.items = append(f.b.items, entryItem{header: true, h: h})
		if !f.content(w, tr, h.Size) {
			return
		}
	}
	if err := finish(); err != nil {
		f.fail(err)
		return
	}
	f.fail(errEntriesEnd)
}

// batchFiller is the reading goroutine's end of the batches: b is the
// batch it fills.
type batchFiller struct {
	ea *entriesAhead
	b  *entryBatch
}

// room makes b able to take one more item, and data bytes of content.
// It is false when the walk stopped.
func (f *batchFiller) room(data bool) bool {
	if len(f.b.items) < cap(f.b.items) && (!data || len(f.b.chunk) < cap(f.b.chunk)) {
		return true
	}
	select {
	case f.ea.full <- f.b:
	case <-f.ea.stop:
		return false
	}
	select {
	case f.b = <-f.ea.free:
		f.b.chunk, f.b.items, f.b.err = f.b.chunk[:0], f.b.items[:0], nil
		return true
	case <-f.ea.stop:
		return false
	}
}

// fail ends the stream with err.
func (f *batchFiller) fail(err error) {
	f.b.err = err
	select {
	case f.ea.full <- f.b:
	case <-f.ea.stop:
	}
}

// content reads the size bytes of an entry's content from tr into the
// batches. It is false when the stream ended: failed, or the walk stopped.
// The content is counted as read rather than trusted from the header, and
// a short stream is the reader's truncation error.
func (f *batchFiller) content(w *walker, tr *tar.Reader, size int64) bool {
	for left := size; left > 0; {
		if !f.room(true) {
			return false
		}
		b := f.b
		at := len(b.chunk)
		space := b.chunk[at:cap(b.chunk)]
		if int64(len(space)) > left {
			space = space[:left]
		}
		n, err := io.ReadFull(tr, space)
		if n > 0 {
			b.chunk = b.chunk[:at+n]
			b.items = append(b.items, entryItem{data: b.chunk[at : at+n : at+n]})
			left -= int64(n)
			w.actual += int64(n)
			if w.limit >= 0 && w.actual > w.limit {
				f.fail(&SizeError{Size: w.actual, Limit: w.limit})
				return false
			}
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			f.fail(corrupt(err))
			return false
		}
	}
	return true
}

// item is the next item of the stream, or its end or error.
func (ea *entriesAhead) item() (entryItem, error) {
	for ea.err == nil {
		if ea.cur != nil && ea.next < len(ea.cur.items) {
			ea.next++
			return ea.cur.items[ea.next-1], nil
		}
		if ea.cur != nil {
			if ea.cur.err != nil {
				ea.err = ea.cur.err
				break
			}
			ea.free <- ea.cur
			ea.cur = nil
		}
		b, ok := <-ea.full
		if !ok {
			// The reading goroutine always ends with an error item; this
			// is only reached after close.
			ea.err = corrupt(io.ErrUnexpectedEOF)
			break
		}
		ea.cur, ea.next = b, 0
	}
	return entryItem{}, ea.err
}

// walk calls fn for each entry, in order.
func (ea *entriesAhead) walk(fn func(Header, io.Reader) error) error {
	for {
		it, err := ea.item()
		if err == errEntriesEnd {
			return nil
		}
		if err != nil {
			return err
		}
		if !it.header {
			return fmt.Errorf("read layer: content out of place") // the reading goroutine's bug
		}
		content := &aheadContent{ea: ea, left: it.h.Size}
		if err := fn(it.h, content); err != nil {
			return fmt.Errorf("read layer: %s: %w", it.h.Path, err)
		}
		// What fn left unread is skipped.
		if _, err := content.WriteTo(io.Discard); err != nil {
			return err
		}
	}
}

// close stops the reading goroutine and waits for it; it is safe to call
// more than once.
func (ea *entriesAhead) close() {
	ea.once.Do(func() {
		close(ea.stop)
		ea.done.Wait()
	})
}

// aheadContent is one entry's content, from the batches.
type aheadContent struct {
	ea   *entriesAhead
	left int64
	data []byte // what is left of the current data item
}

// fill makes data hold the next bytes of the entry.
func (c *aheadContent) fill() error {
	if c.left <= 0 {
		return io.EOF
	}
	for len(c.data) == 0 {
		it, err := c.ea.item()
		if err == errEntriesEnd {
			err = corrupt(io.ErrUnexpectedEOF)
		}
		if err != nil {
			return err
		}
		if it.header {
			return corrupt(io.ErrUnexpectedEOF) // the reading goroutine's bug
		}
		c.data = it.data
	}
	return nil
}

func (c *aheadContent) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if err := c.fill(); err != nil {
		return 0, err
	}
	n := copy(p, c.data)
	c.data = c.data[n:]
	c.left -= int64(n)
	return n, nil
}

// WriteTo writes the content straight from the batches' chunks.
func (c *aheadContent) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if err := c.fill(); err == io.EOF {
			return total, nil
		} else if err != nil {
			return total, err
		}
		n, err := w.Write(c.data)
		total += int64(n)
		c.data = c.data[n:]
		c.left -= int64(n)
		if err != nil {
			return total, err
		}
	}
}
