package render

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

// ReadDir reads the skill in directory dir: its SKILL.md and the stateful
// siblings at its top. Only the exact sibling names at the top count, never
// files in subdirectories. The skill is named after the directory. Each
// file is read with regularfile.ReadFile: a named pipe or a file over its limit
// is refused, naming it.
func ReadDir(dir string) (Skill, error) {
	data, err := regularfile.ReadFile(filepath.Join(dir, skill.FileName), skill.MaxFileSize)
	if err != nil {
		return Skill{}, err
	}
	s := Skill{Name: filepath.Base(dir), SkillMD: data, Siblings: map[string][]byte{}}
	for _, name := range stateful.Files {
		data, err := regularfile.ReadFile(filepath.Join(dir, name), stateful.MaxFileSize)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return Skill{}, err
		default:
			s.Siblings[name] = data
		}
	}
	return s, nil
}
