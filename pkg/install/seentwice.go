package install

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/skill"
)

// SeenTwice warns of each skill of names that a runtime of the placement
// would find in more than one of the folders it reads: users of the peer
// installers report agents listing such a skill twice, or loading the
// copy they did not expect. The folders are a runtime's project folders
// (in project scope) and its user folders under p.Home; only a directory
// holding a SKILL.md counts.
func SeenTwice(p *Placement, names []string) []string {
	var warnings []string
	seen := map[string]bool{}
	for _, t := range p.Targets {
		for _, rt := range t.Runtimes {
			if seen[rt.Name] {
				continue
			}
			seen[rt.Name] = true
			dirs := readFolders(rt, p)
			for _, name := range names {
				var found []string
				for _, d := range dirs {
					if fi, err := os.Stat(filepath.Join(d, name, skill.FileName)); err == nil && fi.Mode().IsRegular() {
						found = append(found, filepath.Join(d, name))
					}
				}
				if len(found) > 1 {
					warnings = append(warnings, fmt.Sprintf("skill %s: %s reads it from %d folders (%s) and may show it twice: install it for only one of the runtimes reading them, or remove the other copies",
						name, rt.Title, len(found), strings.Join(found, ", ")))
				}
			}
		}
	}
	return warnings
}

// readFolders are the distinct folders rt reads: its project folders when
// the placement has a project, then its user folders when home is known.
func readFolders(rt agent.Runtime, p *Placement) []string {
	var dirs []string
	if p.Workspace != "" {
		dirs = append(dirs, rt.ProjectDirs(p.Workspace)...)
	}
	if p.Home != "" {
		dirs = append(dirs, rt.UserDirs(p.Home)...)
	}
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		if key := filepath.Clean(d); !seen[key] {
			seen[key] = true
			out = append(out, d)
		}
	}
	return out
}
