package render

import (
	"github.com/stax-dev/stax/pkg/hiddentext"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

// hiddenText refuses a skill whose files hold characters its reviewers
// cannot see (see package hiddentext) with a *hiddentext.Error naming the
// file, line and character: what Render returns goes to an agent whole,
// so it never passes hidden text on unseen. The frontmatter is checked
// too: a runtime puts the description in the prompt.
func hiddenText(s Skill) error {
	if err := hiddentext.Check(skill.FileName, s.Name, s.SkillMD); err != nil {
		return err
	}
	for _, name := range stateful.Files {
		if data, ok := s.Siblings[name]; ok {
			if err := hiddentext.Check(name, s.Name, data); err != nil {
				return err
			}
		}
	}
	return nil
}
