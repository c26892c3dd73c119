package merge

import (
	"slices"
	"testing"

	"github.com/stax-dev/stax/pkg/artifact"
)

func TestCaseWarnings(t *testing.T) {
	result := func(paths ...string) *Result {
		r := &Result{}
		for _, p := range paths {
			r.Skills = append(r.Skills, Skill{SkillRecord: &artifact.SkillRecord{Path: p}})
		}
		return r
	}
	tests := []struct {
		name  string
		paths []string
		want  int
	}{
		{"distinct", []string{"pdf", "review"}, 0},
		{"differ only in case", []string{"PDF", "pdf"}, 1},
		{"none", nil, 0},
	}
	for _, tt := range tests {
		r := result(tt.paths...)
		if !slices.Equal(r.Paths(), tt.paths) && len(tt.paths) > 0 {
			t.Errorf("%s: Paths = %v", tt.name, r.Paths())
		}
		if got := r.CaseWarnings(); len(got) != tt.want {
			t.Errorf("%s: CaseWarnings = %v, want %d", tt.name, got, tt.want)
		}
	}
}
