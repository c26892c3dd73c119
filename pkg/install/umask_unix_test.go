//go:build unix

package install

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Installed skills have the modes of their layer whatever the umask:
// 0755 directories, 0644 files, 0755 executables.
func TestInstallModesIgnoreUmask(t *testing.T) {
	s := testSkill(t, "a", "a\n")
	if err := os.MkdirAll(filepath.Join(s.Source, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Source, "scripts", "run.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir, locks := filepath.Join(t.TempDir(), "skills"), t.TempDir()
	old := syscall.Umask(0o077)
	_, err := Install(context.Background(), []Skill{s}, Options{Dir: dir, LockDir: locks})
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{
		"a": 0o755, "a/scripts": 0o755, "a/SKILL.md": 0o644, "a/scripts/run.sh": 0o755,
	} {
		info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", name, got, want)
		}
	}
}
