package layers

import (
	"testing"

	"github.com/opencontainers/go-digest"
)

func TestFormatSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {65 << 20, "65.0 MiB"}, {3 << 30, "3.0 GiB"},
	}
	for _, tt := range tests {
		if got := FormatSize(tt.n); got != tt.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestFileDigestRecord(t *testing.T) {
	d := digest.FromString("x")
	if got := (FileDigest{Digest: d}).Record(); got != "644 "+d.String() {
		t.Errorf("Record = %q", got)
	}
	if got := (FileDigest{Executable: true, Digest: d}).Mode(); got != "755" {
		t.Errorf("Mode = %q", got)
	}
}
