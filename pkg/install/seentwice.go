package install

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/warning"
)

// SeenTwice warns of each skill of names that a runtime of the placement
// would find in more than one of the folders it reads: users of the peer
// installers report agents listing such a skill twice, or loading the
// copy they did not expect. The folders are a runtime's project folders
// (in project scope) and its user folders under p.Home; only a directory
// holding a SKILL.md counts. A skill found only in folders of the
// placement is left to Overlaps, which says it once for all of them.
func SeenTwice(p *Placement, names []string) []warning.Warning {
	var warnings []warning.Warning
	seen := map[string]bool{}
	for _, t := range p.Targets {
		for _, rt := range t.Runtimes {
			if seen[rt.Name] {
				continue
			}
			seen[rt.Name] = true
			dirs := readFolders(rt, p)
			for _, name := range names {
				var found, folders []string
				for _, d := range dirs {
					if fi, err := os.Stat(filepath.Join(d, name, skill.FileName)); err == nil && fi.Mode().IsRegular() {
						found = append(found, filepath.Join(d, name))
						folders = append(folders, d)
					}
				}
				if len(found) < 2 || !slices.ContainsFunc(folders, func(d string) bool { return !p.isTarget(d) }) {
					continue
				}
				summary := fmt.Sprintf("%s reads them from %d folders (%s) and may show them twice: install them for only one of the runtimes reading those, or remove the other copies",
					rt.Title, len(folders), strings.Join(folders, ", "))
				warnings = append(warnings, warning.Warning{Kind: KindSeenTwice, Skill: name, Summary: summary,
					Message: fmt.Sprintf("skill %s: %s reads it from %d folders (%s) and may show it twice: install it for only one of the runtimes reading them, or remove the other copies",
						name, rt.Title, len(found), strings.Join(found, ", "))})
			}
		}
	}
	return warnings
}

// Overlaps warns, once for all skills, of each runtime of the placement
// that reads the folder stax fills for another of its runtimes (Cursor
// and GitHub Copilot read .claude/skills): every skill installed is there
// twice for it. Leaving that runtime out reaches it all the same.
func Overlaps(p *Placement) []warning.Warning {
	warnings := []warning.Warning{} // JSON lists no warnings as [], not null
	seen := map[string]bool{}
	for _, own := range p.Targets {
		for _, rt := range own.Runtimes {
			if seen[rt.Name] {
				continue
			}
			seen[rt.Name] = true
			var others, owners []string
			for _, d := range readFolders(rt, p) {
				t := p.target(d)
				if t == nil || filepath.Clean(t.Dir) == filepath.Clean(own.Dir) {
					continue
				}
				others = append(others, p.shown(t.Dir))
				for _, o := range t.Runtimes {
					owners = append(owners, o.Title)
				}
			}
			if len(others) == 0 {
				continue
			}
			// Left out of the runtimes alone, its folder would keep the
			// copies, which it reads first: they go too.
			uninstall := []string{"stax", "uninstall", "--runtime", rt.Name}
			if p.Scope == agent.ScopeUser {
				uninstall = append(uninstall, "--scope", "user")
			} else if wd, err := os.Getwd(); err != nil || filepath.Clean(wd) != p.Workspace {
				// Run elsewhere, it would remove another project's copies.
				uninstall = append(uninstall, "--dir", p.Workspace)
			}
			warnings = append(warnings, warning.Warning{Kind: KindRuntimesOverlap, Message: fmt.Sprintf(
				"%s reads %s too, the folder of %s: installed for both, every skill is there twice for %s; leave %s out of the runtimes and remove its copies (`%s`), and it reads them from %s",
				rt.Title, strings.Join(others, " and "), strings.Join(owners, " and "), rt.Title, rt.Name, termtext.Command(uninstall...), strings.Join(others, " and "))})
		}
	}
	return warnings
}

// target is the target of the placement whose folder is dir, or nil.
func (p *Placement) target(dir string) *Folder {
	for i := range p.Targets {
		if filepath.Clean(p.Targets[i].Dir) == filepath.Clean(dir) {
			return &p.Targets[i]
		}
	}
	return nil
}

func (p *Placement) isTarget(dir string) bool { return p.target(dir) != nil }

// shown is dir as a message names it: relative to the root.
func (p *Placement) shown(dir string) string {
	if rel, err := filepath.Rel(p.Root, dir); err == nil && p.Root != "" && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return dir
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
