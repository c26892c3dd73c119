package target

import (
	"strconv"
	"strings"
	"testing"
)

func TestDefaultTag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tags []string
		want string
	}{
		{[]string{"1.9.0", "1.10.0", "latest"}, "1.10.0"},
		{[]string{"v1.2.0", "1.0.0"}, "v1.2.0"},
		{[]string{"2.0.0-rc.1", "latest"}, "latest"},
		{[]string{"main", "sha256-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.sig"}, "latest"},
		{nil, "latest"},
	}
	for _, tt := range tests {
		if got := DefaultTag(tt.tags); got != tt.want {
			t.Errorf("DefaultTag(%q) = %q, want %q", tt.tags, got, tt.want)
		}
	}
}

func TestIsDigestTag(t *testing.T) {
	t.Parallel()
	hex := "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	for tag, want := range map[string]bool{
		"sha256-" + hex + ".sig":   true,
		"sha256-" + hex + ".att":   true,
		"sha256-" + hex + ".sbom":  true,
		"sha256-" + hex:            true,
		"sha256-abc.sig":           false,
		"sha256-" + hex[:63] + "g": false,
		"1.0.0":                    false,
		"latest":                   false,
		"release-1.0":              false,
	} {
		if got := IsDigestTag(tag); got != want {
			t.Errorf("IsDigestTag(%q) = %v, want %v", tag, got, want)
		}
	}
}

func TestSomeTags(t *testing.T) {
	t.Parallel()
	var tags []string
	for i := 10; i < 40; i++ {
		tags = append(tags, "1."+strconv.Itoa(i)+".0")
	}
	tags = append(tags, "latest", "sha256-"+strings.Repeat("a", 64)+".sig")
	// The first three of those one edit away, in the order of the list,
	// shown highest first; the digest tag is none of the count.
	if got, want := SomeTags(tags, "1.2.0", 3), "1.21.0, 1.20.0, 1.12.0 and 28 more"; got != want {
		t.Errorf("SomeTags near 1.2.0 = %q, want %q", got, want)
	}
	if got, want := SomeTags(tags, "", 2), "1.39.0, 1.38.0 and 29 more"; got != want {
		t.Errorf("SomeTags = %q, want %q", got, want)
	}
	if got, want := SomeTags([]string{"latest", "1.0.0"}, "2.0.0", 10), "1.0.0, latest"; got != want {
		t.Errorf("SomeTags of a short list = %q, want all, versions first", got)
	}
	if got := SomeTags([]string{"sha256-" + strings.Repeat("a", 64) + ".sig"}, "", 10); got != "" {
		t.Errorf("SomeTags of digest tags alone = %q, want none", got)
	}
}
