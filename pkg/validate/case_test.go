package validate

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Skills (or files) whose names differ only in case collide on macOS and
// Windows: a warning, an error under Strict. Made at run time: a fixture
// like it could not be checked out on those systems.
func TestCaseCollision(t *testing.T) {
	root := t.TempDir()
	for _, dir := range []string{"Pdf", "pdf"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		body := "---\nname: " + dir + "\ndescription: Reads PDFs. Use when a PDF is given.\n---\nBody.\n"
		if err := os.WriteFile(filepath.Join(root, dir, "SKILL.md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "PDF")); err == nil {
		t.Skip("case-insensitive file system")
	}
	has := func(ds []Diagnostic) bool {
		return slices.ContainsFunc(ds, func(d Diagnostic) bool { return d.Code == CodeCaseCollision && d.File == filepath.Join(root, "pdf") })
	}
	r, err := Dir(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if !has(r.Warnings) {
		t.Errorf("warnings %v", r.Warnings)
	}
	r, err = Dir(Options{Root: root, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if !has(r.Errors) {
		t.Errorf("strict: errors %v", r.Errors)
	}
}
