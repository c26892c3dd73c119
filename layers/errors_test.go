package layers

import (
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
)

func TestFileDigestRecord(t *testing.T) {
	t.Parallel()
	d := digest.FromString("x")
	if got := (FileDigest{Digest: d}).Record(); got != "644 "+d.String() {
		t.Errorf("Record = %q", got)
	}
	if got := (FileDigest{Executable: true, Digest: d}).Mode(); got != "755" {
		t.Errorf("Mode = %q", got)
	}
}

// A refused path of kilobytes (a tar PAX record may carry up to 1 MiB)
// is shown by its two ends: the message stays readable, and still says
// where the entry was.
func TestUnsafeEntryErrorShortensLongPaths(t *testing.T) {
	t.Parallel()
	long := "skill/" + strings.Repeat("d/", 2050) + "last.md"
	msg := (&UnsafeEntryError{Path: long, Reason: "too long"}).Error()
	if len(msg) > 300 || !strings.Contains(msg, `"skill/d/d/`) || !strings.Contains(msg, `/d/last.md"`) || !strings.Contains(msg, "4113 bytes") {
		t.Errorf("message of %d bytes: %s", len(msg), msg)
	}
	if msg := (&UnsafeEntryError{Path: "s/../x", Reason: "traversal"}).Error(); msg != `unsafe layer entry "s/../x": traversal` {
		t.Errorf("short path: %s", msg)
	}
}
