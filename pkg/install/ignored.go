package install

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/skill"
)

// IgnoredFields warns, for each skill directory of dir named in paths,
// about the frontmatter a runtime will not honour (allowed-tools and model
// in most runtimes). A skill whose SKILL.md cannot be read is left to
// validation; when no runtime ignores a field, nothing is read.
func IgnoredFields(dir string, paths []string, runtimes []agent.Runtime) []string {
	fields := []string{"allowed-tools", "model"}
	if !slices.ContainsFunc(runtimes, func(rt agent.Runtime) bool { return len(rt.Ignored(fields)) > 0 }) {
		return nil
	}
	var warnings []string
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
			for _, field := range rt.Ignored(present) {
				warnings = append(warnings, fmt.Sprintf("skill %s: %s does not honour %s", p, rt.Title, field))
			}
		}
	}
	return warnings
}
