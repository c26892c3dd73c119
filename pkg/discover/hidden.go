package discover

import (
	"fmt"

	"github.com/stax-dev/stax/pkg/hiddentext"
	"github.com/stax-dev/stax/pkg/skill"
)

// hiddenTextProblem says why a SKILL.md holding characters reviewers
// cannot see (see package hiddentext) is not offered, and on which line;
// "" when it holds none. A runtime would load such a skill: stax lists it
// as unloadable instead, so that an agent it serves never gets the text.
func hiddenTextProblem(data []byte) (string, int) {
	found := hiddentext.ScanFile(skill.FileName, data)
	if len(found) == 0 {
		return "", 0
	}
	f := found[0]
	return fmt.Sprintf("%s holds hidden text at column %d: %s; reviewers cannot see it, but agents read it: remove it",
		skill.FileName, f.Column, f.Describe()), f.Line
}
