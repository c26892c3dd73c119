package layers

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"testing/iotest"
)

// What is read ahead is what r holds, in order, whatever the sizes of the
// reads on either side; and r's error comes after its data, unchanged: a
// truncated stream stays io.ErrUnexpectedEOF.
func TestReadAheadPassesDataAndErrorThrough(t *testing.T) {
	t.Parallel()
	data := make([]byte, 1<<20+123)
	for i := range data {
		data[i] = byte(rand.IntN(256))
	}
	for _, tc := range []struct {
		name string
		r    io.Reader
		err  error
	}{
		{"whole", bytes.NewReader(data), io.EOF},
		{"one byte a read", iotest.OneByteReader(bytes.NewReader(data)), io.EOF},
		{"truncated", io.MultiReader(bytes.NewReader(data), iotest.ErrReader(io.ErrUnexpectedEOF)), io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ra := newReadAhead(tc.r, 4096, 3)
			defer ra.Close()
			var got bytes.Buffer
			buf := make([]byte, 777)
			var err error
			for err == nil {
				var n int
				n, err = ra.Read(buf[:1+rand.IntN(len(buf))])
				got.Write(buf[:n])
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("err = %v, want %v", err, tc.err)
			}
			if !bytes.Equal(got.Bytes(), data) {
				t.Errorf("read %d bytes, not the %d written", got.Len(), len(data))
			}
		})
	}
}

// A reader that stops early closes the read-ahead, which stops reading r:
// once Close has returned, no goroutine is left to read r. Not parallel:
// goroutinesAhead counts the read-aheads of every test running.
func TestReadAheadStopsOnClose(t *testing.T) {
	var reads atomic.Int64
	r := readerFunc(func(p []byte) (int, error) {
		reads.Add(1)
		return len(p), nil // endless
	})
	ra := newReadAhead(r, 1024, 2)
	if _, err := ra.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	if n := goroutinesAhead.Load(); n != 1 || reads.Load() == 0 {
		t.Fatalf("%d goroutines reading ahead, %d reads of r; want 1 reading", n, reads.Load())
	}
	ra.Close()
	ra.Close()
	if n := goroutinesAhead.Load(); n != 0 {
		t.Fatalf("%d goroutines still reading ahead after Close returned", n)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
