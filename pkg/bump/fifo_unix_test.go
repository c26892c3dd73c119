//go:build unix

package bump

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/regularfile"
)

// TestSkillRefusesNamedPipes: bump reads SKILL.md and MEMORY.md as every
// reader of skill files does, so a named pipe in their place is refused
// instead of blocking the command forever.
func TestSkillRefusesNamedPipes(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"SKILL.md", "MEMORY.md"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if name != "SKILL.md" {
				filetest.WriteFile(t, filepath.Join(dir, "SKILL.md"), "---\nname: x\ndescription: d\nversion: 1.0.0\n---\nBody\n")
			}
			filetest.Mkfifo(t, filepath.Join(dir, name))
			var err error
			filetest.Finishes(t, "bump of a skill with a named pipe "+name, func() {
				_, err = Skill(Options{Dir: dir})
			})
			if !errors.Is(err, regularfile.ErrNotRegular) {
				t.Fatalf("bump: %v, want an error wrapping %v", err, regularfile.ErrNotRegular)
			}
		})
	}
}
