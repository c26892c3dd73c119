package scratch_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/scratch"
)

// entries names what dir holds.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}

// What fill writes appears at dest, and nothing else is left beside it.
func TestStageMovesWhatFillWroteIntoPlace(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dest := filepath.Join(parent, "pages")
	err := scratch.Stage(dest, ".stax-test-", func(dir string) error {
		return os.WriteFile(filepath.Join(dir, "page.md"), []byte("page\n"), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dest); len(got) != 1 || got[0] != "page.md" {
		t.Errorf("dest holds %v; want page.md alone", got)
	}
	if got := entries(t, parent); len(got) != 1 {
		t.Errorf("beside dest: %v; want dest alone", got)
	}
}

// A fill that fails, and a dest that holds files, leave dest as it was
// and nothing staged beside it.
func TestStageLeavesDestAsItWas(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	failed := errors.New("fill failed")
	if err := scratch.Stage(filepath.Join(parent, "new"), ".stax-test-", func(string) error { return failed }); !errors.Is(err, failed) {
		t.Errorf("err = %v: want fill's", err)
	}
	if got := entries(t, parent); len(got) != 0 {
		t.Errorf("after a failed fill: %v; want nothing", got)
	}

	dest := filepath.Join(parent, "full")
	if err := os.MkdirAll(dest, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dest, "mine"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := scratch.Stage(dest, ".stax-test-", func(dir string) error {
		return os.WriteFile(filepath.Join(dir, "page.md"), nil, 0o644)
	})
	if errdefs.Of(err) != errdefs.FailedPrecondition {
		t.Errorf("err = %v: want a failed precondition", err)
	}
	if got := entries(t, dest); len(got) != 1 || got[0] != "mine" {
		t.Errorf("dest holds %v; want mine alone", got)
	}
	if got := entries(t, parent); len(got) != 1 {
		t.Errorf("beside dest: %v; want dest alone", got)
	}
}

// Replace puts what fill wrote in place of a dest that holds files, and
// leaves nothing beside it; a fill that fails leaves dest as it was.
func TestReplaceSwapsDestWhole(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dest := filepath.Join(parent, "pages")
	for _, name := range []string{"old.md", "gone.md"} {
		if err := os.MkdirAll(dest, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dest, name), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	failed := errors.New("fill failed")
	if err := scratch.Replace(dest, ".stax-test-", func(string) error { return failed }); !errors.Is(err, failed) {
		t.Errorf("err = %v: want fill's", err)
	}
	if got := entries(t, dest); len(got) != 2 {
		t.Errorf("after a failed fill dest holds %v; want the old pages", got)
	}
	err := scratch.Replace(dest, ".stax-test-", func(dir string) error {
		return os.WriteFile(filepath.Join(dir, "old.md"), []byte("new\n"), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dest); len(got) != 1 || got[0] != "old.md" {
		t.Errorf("dest holds %v; want the new old.md alone", got)
	}
	if data, _ := os.ReadFile(filepath.Join(dest, "old.md")); string(data) != "new\n" {
		t.Errorf("old.md = %q; want the new page", data)
	}
	if got := entries(t, parent); len(got) != 1 {
		t.Errorf("beside dest: %v; want dest alone", got)
	}
	// With no dest, Replace is Stage.
	if err := scratch.Replace(filepath.Join(parent, "fresh"), ".stax-test-", func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
}
