package source

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIsDirectory(t *testing.T) {
	work := t.TempDir()
	t.Chdir(work)
	os.Mkdir("base", 0o755)
	os.WriteFile("file", nil, 0o644)
	os.Mkdir("Upper Case", 0o755)
	tests := []struct {
		arg            string
		dir, ambiguous bool
	}{
		{"base", true, true},       // a directory here that also reads as a reference
		{"./base", true, false},    // explicit
		{"./missing", true, false}, // starts with ".": a directory, even if missing
		{".", true, false},         // the working directory
		{filepath.Join(work, "x"), true, false},
		{"Upper Case", true, false},         // a directory that cannot be a reference
		{"file", false, false},              // a file is not a package directory
		{"missing", false, false},           // a reference
		{"acme/skills:1.0.0", false, false}, // a reference
		{"oci:base", false, false},          // a layout reference, even though base exists
	}
	for _, tt := range tests {
		dir, ambiguous := IsDirectory(tt.arg)
		if dir != tt.dir || ambiguous != tt.ambiguous {
			t.Errorf("IsDirectory(%q) = %v, %v; want %v, %v", tt.arg, dir, ambiguous, tt.dir, tt.ambiguous)
		}
	}
}

func TestDeclaration(t *testing.T) {
	work := t.TempDir()
	t.Chdir(work)
	os.MkdirAll("skills/base", 0o755)
	os.Mkdir("project", 0o755)
	tests := []struct{ arg, base, want string }{
		{"skills/base", "project", "../skills/base"}, // from where stax runs, relative to the project
		{"skills/base", ".", "./skills/base"},
		{"./skills", "project", "../skills"},
		{".", ".", "."},
		{"acme/skills:1.0.0", "project", "acme/skills:1.0.0"},
		{"missing", "project", "missing"}, // not a directory: a reference
	}
	for _, tt := range tests {
		got, err := Declaration(tt.arg, tt.base)
		if err != nil || got != tt.want {
			t.Errorf("Declaration(%q, %q) = %q, %v; want %q", tt.arg, tt.base, got, err, tt.want)
		}
	}
}
