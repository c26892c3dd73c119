package main

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/registrytest"
)

// pull -o reads the layer once: its bytes go from the registry into the
// store and the extractor in one pass, and the stored blob is never read
// back. The kernel reports every open and read of the store's blobs.
func TestPullExtractsWhileTheLayerStreams(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	layer := pushed.Layers[0].Digest

	home := useHome(t)
	blobs := filepath.Join(home, "store", "blobs", "sha256")
	if err := os.MkdirAll(blobs, 0o755); err != nil {
		t.Fatal(err)
	}
	reads := watchReads(t, blobs)
	out := filepath.Join(t.TempDir(), "skills")
	if r := runStax(t, "pull", pushed.Reference, "-o", out); r.Code != 0 {
		t.Fatalf("pull: exit %d %s", r.Code, r.Stderr)
	}
	if n := reads()[layer.Encoded()]; n > 0 {
		t.Errorf("the layer was read back from the store after it was written (%d open and read events)", n)
	}
	assertSameTree(t, filepath.Join(examples, "skills"), out)
	// And the store holds it, intact.
	data, err := os.ReadFile(filepath.Join(blobs, layer.Encoded()))
	if err != nil || digest.FromBytes(data) != layer {
		t.Errorf("the store does not hold the layer intact: %v", err)
	}
	assertEmptyIngest(t, home)

	// A layer the store holds is extracted from it, not fetched again.
	reg.ResetRequests()
	again := filepath.Join(t.TempDir(), "skills")
	if r := runStax(t, "pull", pushed.Reference, "-o", again); r.Code != 0 {
		t.Fatalf("second pull: exit %d %s", r.Code, r.Stderr)
	}
	assertSameTree(t, filepath.Join(examples, "skills"), again)
	for _, req := range reg.Requests() {
		if req.Method == http.MethodGet && strings.HasSuffix(req.Path, layer.String()) {
			t.Errorf("fetched a layer the store holds: %+v", req)
		}
	}
}

// watchReads watches dir with inotify; the function it returns stops the
// watch and counts, per file name, the events of opening and reading it.
func watchReads(t *testing.T, dir string) func() map[string]int {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN|syscall.IN_ACCESS); err != nil {
		syscall.Close(fd)
		t.Fatal(err)
	}
	return func() map[string]int {
		defer syscall.Close(fd)
		counts := map[string]int{}
		buf := make([]byte, 64<<10)
		for {
			n, err := syscall.Read(fd, buf)
			if errors.Is(err, syscall.EAGAIN) {
				return counts
			}
			if err != nil {
				t.Fatal(err)
			}
			for off := 0; off+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				if ev.Mask&syscall.IN_Q_OVERFLOW != 0 {
					t.Fatal("inotify queue overflowed")
				}
				name := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
				counts[string(bytes.TrimRight(name, "\x00"))]++
				off += syscall.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}
