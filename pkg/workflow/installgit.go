package workflow

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/warning"
)

// dependencyOf is the install.sources entry of decl, a SOURCE named,
// with the --version, --plugin and --skill of opts.
func (opts InstallOptions) dependencyOf(decl declaration.Declaration) staxyaml.Dependency {
	d := dependencyOf(decl, opts.Version)
	d.Plugin, d.Skills = opts.Plugin, opts.Skills
	return d
}

// gitCache is the git cache of the stax home, whose git runs in the
// job's environment (Environ), as the stax home is found in it.
func (e *Env) gitCache() (*gitsource.Cache, error) {
	home, err := store.HomeFrom(e.getenv)
	if err != nil {
		return nil, err
	}
	c := gitsource.NewCache(home)
	c.Notes = e.Warnings
	if e.Environ != nil {
		c.Env = e.Environ()
	}
	return c, nil
}

// gitOptions are how the git sources of req are built: at the commits a
// frozen install's lock records, or those req keeps.
func (e *Env) gitOptions(req installRequest) (*resolve.GitOptions, error) {
	cache, err := e.gitCache()
	if err != nil {
		return nil, err
	}
	cache.Limits = req.Limits
	opts := &resolve.GitOptions{Cache: cache, Strict: req.Strict}
	if req.Frozen != nil {
		opts.Locked = req.Frozen.GitLocked()
	} else {
		opts.Locked = req.GitLocked
	}
	return opts, nil
}

// gitWarnings are what building the git sources of g noticed: the
// content rules their skills break, and plugins' parts not installed.
func gitWarnings(g *resolve.Graph) []warning.Warning {
	var out []warning.Warning
	for _, n := range g.Order {
		out = append(out, n.Warnings...)
	}
	return out
}

// warnGit writes the warnings of a git source built leniently, one line
// each.
func (e *Env) warnGit(ws warning.List) {
	for _, w := range ws {
		e.warnf("%s", w.Message)
	}
}

// chooseSkills keeps, of each registry or layout source of g that chooses
// skills (--skill, skills: in stax.yaml), only those: the others are not
// merged, installed or locked. A git source chose them when it was built.
// A name the package does not have is unresolved, with its skills. The
// sources are decls, in the order of g.Direct.
func chooseSkills(g *resolve.Graph, decls []declaration.Declaration) error {
	for i, n := range g.Direct {
		names := decls[i].Skills
		if len(names) == 0 || n.Git != nil {
			continue
		}
		have := make([]string, len(n.Package.Config.Skills))
		for i, s := range n.Package.Config.Skills {
			have[i] = s.Path
		}
		for _, name := range names {
			if !slices.Contains(have, name) {
				return errdefs.Resolution(fmt.Errorf("%s has no skill %s; its skills: %s", termtext.Escape(n.Ref), termtext.Escape(name), termtext.Escape(strings.Join(have, ", "))))
			}
		}
		n.Package.Config.Skills = slices.DeleteFunc(n.Package.Config.Skills, func(s artifact.SkillRecord) bool { return !slices.Contains(names, s.Path) })
	}
	return nil
}
