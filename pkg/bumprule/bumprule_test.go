package bumprule

import (
	"testing"

	"github.com/opencontainers/go-digest"
	"github.com/stax-dev/stax/pkg/artifact"
)

func TestPrecedingTag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tags     []string
		tag      string
		want     string
		wantSome bool
	}{
		{[]string{"1.0.0", "1.0.1"}, "1.0.1", "1.0.1", true},                    // re-push: the same tag
		{[]string{"0.9.0", "1.0.0", "2.0.0", "latest"}, "1.1.0", "1.0.0", true}, // highest below
		{[]string{"1.10.0", "1.9.0"}, "1.11.0", "1.10.0", true},                 // semver order, not text
		{[]string{"2.0.0"}, "1.0.0", "", false},                                 // nothing below
		{[]string{"latest", "main"}, "1.0.0", "", false},                        // no versions
		{[]string{"1.0.0"}, "nightly", "", false},                               // not a version
		{nil, "1.0.0", "", false},
	}
	for _, tt := range tests {
		got, ok := PrecedingTag(tt.tags, tt.tag)
		if got != tt.want || ok != tt.wantSome {
			t.Errorf("PrecedingTag(%v, %q) = %q, %v; want %q, %v", tt.tags, tt.tag, got, ok, tt.want, tt.wantSome)
		}
	}
}

func TestChangedSkills(t *testing.T) {
	t.Parallel()
	cfg := func(skills ...string) *artifact.Config {
		c := &artifact.Config{}
		for i := 0; i < len(skills); i += 2 {
			c.Skills = append(c.Skills, artifact.SkillRecord{Path: skills[i], Digest: digest.FromString(skills[i+1])})
		}
		return c
	}
	tests := []struct {
		name             string
		built, published *artifact.Config
		want             bool
	}{
		{"same", cfg("a", "1", "b", "2"), cfg("a", "1", "b", "2"), false},
		{"one changed", cfg("a", "1", "b", "3"), cfg("a", "1", "b", "2"), true},
		{"new skill only", cfg("a", "1", "c", "9"), cfg("a", "1"), false},
		{"removed skill only", cfg("a", "1"), cfg("a", "1", "b", "2"), false},
		{"nothing published", cfg("a", "1"), cfg(), false},
	}
	for _, tt := range tests {
		if got := changedSkills(tt.built, tt.published); got != tt.want {
			t.Errorf("%s: changedSkills = %v, want %v", tt.name, got, tt.want)
		}
	}
}
