package artifact

import (
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
)

func TestParseConfigRefusesUnsafeRecords(t *testing.T) {
	const d = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	tests := []struct {
		name, skills, want string
	}{
		{"traversal", `[{"path":"../../etc","digest":"` + d + `"}]`, "cannot be a skill directory name"},
		{"nested", `[{"path":"a/b","digest":"` + d + `"}]`, "cannot be a skill directory name"},
		{"absolute", `[{"path":"/etc","digest":"` + d + `"}]`, "cannot be a skill directory name"},
		{"empty", `[{"path":"","digest":"` + d + `"}]`, "cannot be a skill directory name"},
		{"dot", `[{"path":".","digest":"` + d + `"}]`, "cannot be a skill directory name"},
		{"control", `[{"path":"a\nb","digest":"` + d + `"}]`, "cannot be a skill directory name"},
		{"git", `[{"path":".git","digest":"` + d + `"}]`, "cannot be a skill directory name"},
		{"option", `[{"path":"-rf","digest":"` + d + `"}]`, "cannot be a skill directory name"},
		{"staging", `[{"path":".stax-staging-x","digest":"` + d + `"}]`, "cannot be a skill directory name"},
		{"record", `[{"path":".stax-install.json","digest":"` + d + `"}]`, "cannot be a skill directory name"},
		{"backslash", `[{"path":"a\\b","digest":"` + d + `"}]`, "cannot be a skill directory name"},
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
			// A package naming a skill as no directory may be named fails
			// its materialization (exit 5).
			if tt.want != "listed twice" && tt.want != "digest" && errdefs.Of(err) != errdefs.FailedPrecondition {
				t.Errorf("class %v, want %v", errdefs.Of(err), errdefs.FailedPrecondition)
			}
		})
	}
	if _, err := ParseConfig([]byte(`{"specVersion":"1.0.0","kind":"package","skills":[{"path":"v1..2","digest":"` + d + `"}]}`)); err != nil {
		t.Errorf("a safe name refused: %v", err)
	}
}
