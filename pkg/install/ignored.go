package install

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/warning"
)

// Kinds of the warnings of an install (warning.Warning.Kind).
const (
	// KindIgnoredFields: frontmatter a runtime does not honour.
	KindIgnoredFields = "ignored-fields"
	// KindSeenTwice: a skill a runtime finds in more than one folder.
	KindSeenTwice = "seen-twice"
	// KindRuntimesOverlap: a runtime reads the folder stax fills for
	// another runtime of the same install, so it finds every skill twice.
	KindRuntimesOverlap = "runtimes-overlap"
)

// IgnoredFields warns, for each skill directory of dir named in paths,
// about the frontmatter a runtime will not honour (allowed-tools and model
// in most runtimes): a warning a skill and runtime, whose summary names
// the runtime and the fields, so that the skills with the same fields
// are one line. A skill whose SKILL.md cannot be read is left to
// validation; when no runtime ignores a field, nothing is read.
func IgnoredFields(dir string, paths []string, runtimes []agent.Runtime) []warning.Warning {
	fields := []string{"allowed-tools", "model"}
	if !slices.ContainsFunc(runtimes, func(rt agent.Runtime) bool { return len(rt.Ignored(fields)) > 0 }) {
		return nil
	}
	var warnings []warning.Warning
	for _, p := range paths {
		data, err := regularfile.ReadFile(filepath.Join(dir, p, skill.FileName), skill.MaxFileSize)
		if err != nil {
			continue
		}
		doc, err := skill.Parse(data)
		if err != nil {
			continue
		}
		var present []string
		for _, field := range fields {
			if doc.Frontmatter.Has(field) {
				present = append(present, field)
			}
		}
		for _, rt := range runtimes {
			if ignored := rt.Ignored(present); len(ignored) > 0 {
				summary := fmt.Sprintf("%s does not honour %s", rt.Title, strings.Join(ignored, " and "))
				warnings = append(warnings, warning.Warning{Kind: KindIgnoredFields, Skill: p, Summary: summary, Message: "skill " + p + ": " + summary})
			}
		}
	}
	return warnings
}
