package layers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// Entries are handed over in chunks: content larger than a chunk, content
// read a byte at a time, read in part or not at all, all come out whole
// and in order, whichever way fn reads.
func TestWalkContentAcrossChunks(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("0123456789abcdef", 3*entryChunkSize/16+5)
	var entries []rawEntry
	want := map[string]string{}
	for i, body := range []string{big, "small", "", big[:entryChunkSize], big[:entryChunkSize+1], "tail"} {
		name := "s/" + string(rune('a'+i))
		entries = append(entries, file(name, body))
		want[name] = body
	}
	data := rawArchive(t, entries...)
	for _, mode := range []string{"copy", "bytewise", "half", "none"} {
		t.Run(mode, func(t *testing.T) {
			var order []string
			err := Walk(bytesReader(data), ReadOptions{}, func(h Header, r io.Reader) error {
				order = append(order, h.Path)
				var got []byte
				var err error
				switch mode {
				case "copy": // through WriteTo
					var buf bytes.Buffer
					_, err = io.Copy(&buf, r)
					got = buf.Bytes()
				case "bytewise":
					got, err = io.ReadAll(readerFunc(func(p []byte) (int, error) { return r.Read(p[:min(len(p), 1)]) }))
				case "half":
					got = make([]byte, h.Size/2)
					_, err = io.ReadFull(r, got)
					if err == nil && string(got) != want[h.Path][:h.Size/2] {
						t.Errorf("%s: first half differs", h.Path)
					}
					return nil
				case "none":
					return nil
				}
				if err != nil {
					return err
				}
				if string(got) != want[h.Path] {
					t.Errorf("%s: got %d bytes, want %d", h.Path, len(got), len(want[h.Path]))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(order) != len(entries) {
				t.Errorf("fn saw %v", order)
			}
		})
	}
}

// An archive cut short inside an entry fn does not read, or reads, is
// truncated, not ended: io.ErrUnexpectedEOF either way.
func TestWalkTruncatedInsideContent(t *testing.T) {
	t.Parallel()
	raw := gunzip(t, rawArchive(t, file("s/a", strings.Repeat("x", 3*entryChunkSize)), file("s/b", "y")))
	cut := gzipBytes(t, raw[:512+2*entryChunkSize])
	for _, read := range []bool{true, false} {
		err := Walk(bytesReader(cut), ReadOptions{}, func(h Header, r io.Reader) error {
			if read {
				_, err := io.Copy(io.Discard, r)
				return err
			}
			return nil
		})
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("read %v: err = %v, want io.ErrUnexpectedEOF", read, err)
		}
	}
}

// Walk stopped by fn leaves no goroutine reading the layer behind. Not
// parallel: goroutinesAhead counts the read-aheads of every test running.
func TestWalkStopsReadingAheadOnError(t *testing.T) {
	var entries []rawEntry
	for i := range 2000 {
		entries = append(entries, file(fmt.Sprintf("s/%04d", i), strings.Repeat("x", 1000)))
	}
	data := rawArchive(t, entries...)
	stop := errors.New("stop")
	err := Walk(bytesReader(data), ReadOptions{}, func(Header, io.Reader) error {
		// The layer is decompressed and its entries parsed, each on a
		// goroutine of its own.
		if n := goroutinesAhead.Load(); n != 2 {
			t.Errorf("%d goroutines reading ahead during the walk, want 2", n)
		}
		return stop
	})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v", err)
	}
	if n := goroutinesAhead.Load(); n != 0 {
		t.Errorf("%d goroutines reading ahead after Walk returned", n)
	}
}
