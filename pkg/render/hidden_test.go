package render

import (
	"errors"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/hiddentext"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

func TestRenderRefusesHiddenText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		skill func(Skill) Skill
		file  string
		line  int
	}{
		{"in the body", func(s Skill) Skill {
			s.SkillMD = []byte(strings.Replace(skillMD, "BODY", "BO\u202EDY", 1))
			return s
		}, "SKILL.md", 7},
		{"in the frontmatter", func(s Skill) Skill {
			s.SkillMD = []byte(strings.Replace(skillMD, "description: d", "description: d\u200B", 1))
			return s
		}, "SKILL.md", 3},
		{"in the body, after a NUL and an invalid byte", func(s Skill) Skill {
			s.SkillMD = []byte(strings.Replace(skillMD, "BODY", "\x00\xffBO\u202EDY", 1))
			return s
		}, "SKILL.md", 7},
		{"in MEMORY.md, after a NUL and an invalid byte", func(s Skill) Skill {
			s.Siblings[stateful.MemoryFile] = []byte(strings.Replace(memory, "W-OLD", "\x00\xffW-OLD\u2066", 1))
			return s
		}, stateful.MemoryFile, 10},
		{"in MEMORY.md", func(s Skill) Skill {
			s.Siblings[stateful.MemoryFile] = []byte(strings.Replace(memory, "W-OLD", "W-OLD\U000E0041", 1))
			return s
		}, stateful.MemoryFile, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.skill(fullSkill())
			_, err := Render(s, Options{})
			var he *hiddentext.Error
			if !errors.As(err, &he) || he.Path != tt.file || he.Line != tt.line || he.Skill != "t" {
				t.Fatalf("Render: %v, want hidden text in %s line %d", err, tt.file, tt.line)
			}
			if errdefs.Of(err) != errdefs.FailedPrecondition {
				t.Errorf("class %v, want failed precondition", errdefs.Of(err))
			}
			res, err := Render(s, Options{AllowHiddenText: true})
			if err != nil || !strings.Contains(res.Text, "BO") {
				t.Errorf("AllowHiddenText: %v", err)
			}
		})
	}
}

// The files render returns are read as text, so no NUL byte exempts them
// from the check as binary.
func TestSkillFilesAreTextNames(t *testing.T) {
	t.Parallel()
	for _, name := range append([]string{skill.FileName}, stateful.Files...) {
		if !hiddentext.IsTextName(name) {
			t.Errorf("%s is not a text name", name)
		}
	}
}
