package layers

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// FuzzWalk feeds arbitrary bytes to Walk: it must never panic, and every
// header it yields must be safe to join under a directory, which is checked
// here independently of the package's own name rules.
func FuzzWalk(f *testing.F) {
	for _, tc := range hostileCorpus(f) {
		f.Add(tc.data)
	}
	f.Add(rawArchive(f, dir("s/"), file("s/v1..2.md", "fine"), file("b/c/d", "no parents")))
	_, golden := writeLayer(f, goldenFixture)
	f.Add(golden)

	f.Fuzz(func(t *testing.T, data []byte) {
		seen := map[string]bool{}
		var total int64
		const limit = 1 << 20
		_ = Walk(bytes.NewReader(data), ReadOptions{Limits: Limits{MaxSize: limit}}, func(h Header, r io.Reader) error {
			if reason := independentlyUnsafe(h.Path); reason != "" {
				t.Fatalf("Walk yielded unsafe path %q: %s", h.Path, reason)
			}
			if seen[h.Path] {
				t.Fatalf("Walk yielded %q twice", h.Path)
			}
			seen[h.Path] = true
			n, err := io.Copy(io.Discard, r)
			if n > h.Size || (h.Dir && n != 0) {
				t.Fatalf("%q: read %d bytes, header says %d", h.Path, n, h.Size)
			}
			if total += n; total > limit {
				t.Fatalf("read %d bytes past the %d limit", total, limit)
			}
			return err
		})
	})
}

func independentlyUnsafe(p string) string {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return "empty, absolute or trailing slash"
	}
	if strings.ContainsAny(p, "\\\x00\n") {
		return "backslash, NUL or newline"
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "empty, . or .. segment"
		}
	}
	return ""
}
