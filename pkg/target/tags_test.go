package target

import (
	"slices"
	"strconv"
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

func TestNearestTags(t *testing.T) {
	t.Parallel()
	var tags []string
	for i := 10; i < 40; i++ {
		tags = append(tags, "1."+strconv.Itoa(i)+".0")
	}
	tags = append(tags, "latest")
	got := nearestTags(tags, "1.2.0", 3)
	// The first three of those one edit away, in the order of the list,
	// shown highest first.
	if want := []string{"1.21.0", "1.20.0", "1.12.0"}; len(got) != 3 || !slices.Equal(got, want) {
		t.Errorf("nearestTags = %q, want %q", got, want)
	}
	if got := nearestTags([]string{"latest", "1.0.0"}, "2.0.0", 10); !slices.Equal(got, []string{"1.0.0", "latest"}) {
		t.Errorf("nearestTags of a short list = %q, want all, versions first", got)
	}
}
