package workflow

import (
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
)

// parseRecordedDigest takes and refuses what digest.Parse does.
func TestParseRecordedDigestIsDigestParse(t *testing.T) {
	t.Parallel()
	hex := strings.Repeat("0123456789abcdef", 4)
	for _, d := range []string{
		"sha256:" + hex,
		"sha256:" + strings.ToUpper(hex),
		"sha256:" + hex[:63],
		"sha256:" + hex + "0",
		"sha256:" + hex[:63] + "g",
		"sha256:",
		"SHA256:" + hex,
		"sha512:" + hex + hex,
		"sha384:" + hex,
		hex,
		"",
	} {
		want, wantErr := digest.Parse(d)
		got, err := parseRecordedDigest(d)
		if got != want || (err == nil) != (wantErr == nil) {
			t.Errorf("parseRecordedDigest(%q) = %q, %v; digest.Parse gives %q, %v", d, got, err, want, wantErr)
		}
	}
}
