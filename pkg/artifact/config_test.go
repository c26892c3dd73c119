package artifact

import (
	"strings"
	"testing"
)

func TestParseConfigRefusesUnsafeRecords(t *testing.T) {
	const d = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	tests := []struct {
		name, skills, want string
	}{
		{"traversal", `[{"path":"../../etc","digest":"` + d + `"}]`, "single directory name"},
		{"nested", `[{"path":"a/b","digest":"` + d + `"}]`, "single directory name"},
		{"absolute", `[{"path":"/etc","digest":"` + d + `"}]`, "single directory name"},
		{"empty", `[{"path":"","digest":"` + d + `"}]`, "single directory name"},
		{"dot", `[{"path":".","digest":"` + d + `"}]`, "single directory name"},
		{"control", `[{"path":"a\nb","digest":"` + d + `"}]`, "single directory name"},
		{"twice", `[{"path":"a","digest":"` + d + `"},{"path":"a","digest":"` + d + `"}]`, "listed twice"},
		{"no digest", `[{"path":"a","digest":""}]`, "digest"},
		{"bad digest", `[{"path":"a","digest":"sha256:zz"}]`, "digest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(`{"specVersion":"1.0.0","kind":"package","skills":` + tt.skills + `}`))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := ParseConfig([]byte(`{"specVersion":"1.0.0","kind":"package","skills":[{"path":"v1..2","digest":"` + d + `"}]}`)); err != nil {
		t.Errorf("a safe name refused: %v", err)
	}
}
