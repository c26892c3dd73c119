//go:build unix

package render

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

// TestReadDirRefusesNamedPipes: a named pipe in place of a skill file
// must be refused, naming it, instead of blocking the reader forever.
func TestReadDirRefusesNamedPipes(t *testing.T) {
	t.Parallel()
	for _, name := range append([]string{skill.FileName}, stateful.Files...) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			filetest.WriteFile(t, filepath.Join(dir, skill.FileName), "---\nname: piped\ndescription: d\n---\nbody\n")
			pipe := filepath.Join(dir, name)
			if name == skill.FileName {
				pipe = filepath.Join(t.TempDir(), "elsewhere", name)
				dir = filepath.Dir(pipe)
			}
			filetest.Mkfifo(t, pipe)
			var err error
			filetest.Finishes(t, "ReadDir", func() { _, err = ReadDir(dir) })
			if !errors.Is(err, regularfile.ErrNotRegular) || !strings.Contains(err.Error(), pipe) {
				t.Errorf("ReadDir = %v, want a refusal naming %s as not a regular file", err, pipe)
			}
		})
	}
}
