package lock

import (
	"slices"
	"testing"

	"github.com/opencontainers/go-digest"
)

func TestUnlocked(t *testing.T) {
	a, b := digest.FromString("a"), digest.FromString("b")
	l := &Lock{Packages: []Package{{Skills: []Skill{{Path: "pdf", Digest: a}, {Path: "review", Digest: b}}}}}
	tests := []struct {
		name      string
		lock      *Lock
		installed map[string]digest.Digest
		want      []string
	}{
		{"all locked", l, map[string]digest.Digest{"pdf": a, "review": b}, []string{}},
		{"changed content", l, map[string]digest.Digest{"pdf": b, "review": b}, []string{"pdf"}},
		{"not in the lock, sorted", l, map[string]digest.Digest{"zeta": a, "pdf": a, "alpha": a}, []string{"alpha", "zeta"}},
		{"no lock", nil, map[string]digest.Digest{"pdf": a}, []string{}},
	}
	for _, tt := range tests {
		if got := tt.lock.Unlocked(tt.installed); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Unlocked = %v, want %v", tt.name, got, tt.want)
		}
	}
}
