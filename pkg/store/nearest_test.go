package store

import (
	"slices"
	"testing"
)

func TestNearest(t *testing.T) {
	t.Parallel()
	tags := []string{"team-skills:0.1.0", "team-skills:0.2.0", "example-skills:1.0.0", "ghcr.io/acme/other:1", "zzz:9"}
	tests := []struct {
		want string
		near []string
	}{
		{"team-skils:0.1.0", []string{"team-skills:0.1.0", "team-skills:0.2.0"}},  // a letter dropped
		{"team-skills:0.3.0", []string{"team-skills:0.1.0", "team-skills:0.2.0"}}, // the name, another tag
		{"example-skills:2", []string{"example-skills:1.0.0"}},
		{"unrelated:1", nil},
	}
	for _, tt := range tests {
		if got := Nearest(tags, tt.want, 5); !slices.Equal(got, tt.near) {
			t.Errorf("Nearest(%q) = %q, want %q", tt.want, got, tt.near)
		}
	}
}
