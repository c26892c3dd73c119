package layers

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// recorder is an inspector that keeps what it was written and refuses
// content holding "evil" once it has seen the whole file.
type recorder struct {
	path   string
	got    bytes.Buffer
	closes int
}

var errEvil = errors.New("evil content")

func (r *recorder) Write(p []byte) (int, error) { return r.got.Write(p) }

func (r *recorder) Close() error {
	r.closes++
	if strings.Contains(r.got.String(), "evil") {
		return errEvil
	}
	return nil
}

func TestWalkInspectsWhatFnReads(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 200<<10) // read in many chunks
	layer := rawArchive(t, dir("a"), file("a/SKILL.md", big), file("a/skipped.md", "evil"), file("a/b.md", "fine"))
	var inspected []*recorder
	opts := ReadOptions{Inspect: func(path string) io.WriteCloser {
		r := &recorder{path: path}
		inspected = append(inspected, r)
		return r
	}}
	err := Walk(bytes.NewReader(layer), opts, func(h Header, content io.Reader) error {
		if h.Path == "a/skipped.md" {
			return nil // never read: never inspected
		}
		_, err := io.Copy(io.Discard, content)
		return err
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	if len(inspected) != 2 || inspected[0].path != "a/SKILL.md" || inspected[1].path != "a/b.md" {
		t.Fatalf("inspected %v, want a/SKILL.md and a/b.md", inspected)
	}
	if inspected[0].got.String() != big || inspected[0].closes != 1 || inspected[1].closes != 1 {
		t.Errorf("the inspector saw %d bytes of %d, closed %d and %d times", inspected[0].got.Len(), len(big), inspected[0].closes, inspected[1].closes)
	}
}

func TestExtractToStopsAtAnInspectorsRefusal(t *testing.T) {
	t.Parallel()
	layer := rawArchive(t, dir("a"), file("a/SKILL.md", "fine"), file("a/evil.md", "so evil"), file("a/z.md", "after"))
	root, err := os.OpenRoot(t.TempDir())
	must(t, err)
	defer root.Close()
	opts := ReadOptions{Inspect: func(path string) io.WriteCloser { return &recorder{path: path} }}
	_, err = ExtractTo(bytes.NewReader(layer), root, opts, nil)
	if !errors.Is(err, errEvil) || !strings.Contains(err.Error(), "a/evil.md") {
		t.Fatalf("ExtractTo: %v, want the refusal of a/evil.md", err)
	}
	if _, err := root.Stat("a/z.md"); err == nil {
		t.Error("the entry after the refused one was written")
	}
}
