package install

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/staxyaml"
)

// PlaceOptions say where skills are installed: the runtimes and scope asked for
// (empty: the project's install section, else the default runtime and the
// project scope), and the project directory.
type PlaceOptions struct {
	Runtimes   []string
	Scope      string
	ProjectDir string
	// Defaults is the install section of the project's stax.yaml, or nil.
	Defaults *staxyaml.InstallSpec
	// Home is the user's home directory, for user scope; empty: the
	// current user's.
	Home string
}

// Folder is one folder to install into, and the runtimes reading it.
type Folder struct {
	Dir      string
	Runtimes []agent.Runtime
}

// Placement is where an install, uninstall or verify works.
type Placement struct {
	// Targets share a folder when their runtimes read the same one (codex,
	// goose and agents all read .agents/skills).
	Targets []Folder
	Scope   agent.Scope
	// Root is the directory every change is confined to: the project, or
	// for user scope the home directory.
	Root string
	// Workspace is the project for project scope, empty for user scope.
	Workspace string
	// Home is the user's home directory, where the runtimes' user
	// folders are; empty when it is not known.
	Home string
	// Records is where the folders' records are kept when not in the
	// folders (see Options.Records): in user scope, a directory under
	// $STAX_HOME.
	Records string
}

// RecordDir is where the record of the folder dir is kept: "" for the
// folder itself.
func (p *Placement) RecordDir(dir string) (string, error) {
	return RecordDir(p.Records, p.Root, dir)
}

// Place turns the runtimes and scope asked for into the folders to work on.
func Place(w PlaceOptions) (*Placement, error) {
	names, scope := w.Runtimes, w.Scope
	if w.Defaults != nil {
		if len(names) == 0 {
			names = w.Defaults.Runtimes
		}
		if scope == "" {
			scope = w.Defaults.Scope
		}
	}
	if len(names) == 0 {
		names = []string{agent.Default}
	}
	if scope == "" {
		scope = string(agent.ScopeProject)
	}
	p := &Placement{Scope: agent.Scope(scope)}
	switch p.Scope {
	case agent.ScopeProject:
		abs, err := filepath.Abs(w.ProjectDir)
		if err != nil {
			return nil, errdefs.MarkLocal(err)
		}
		p.Root, p.Workspace = abs, abs
		// Only to look at what the runtimes read there; nothing is
		// written to it.
		if p.Home = w.Home; p.Home == "" {
			p.Home, _ = os.UserHomeDir()
		}
	case agent.ScopeUser:
		home := w.Home
		if home == "" {
			var err error
			if home, err = os.UserHomeDir(); err != nil {
				return nil, errdefs.MarkLocal(fmt.Errorf("user scope needs a home directory: %w", err))
			}
		}
		p.Root, p.Home = home, home
	default:
		return nil, errdefs.Invalid(fmt.Errorf("--scope must be project or user, not %q", scope))
	}
	for _, name := range names {
		rt, err := FindRuntime(name, w.Defaults)
		if err != nil {
			return nil, errdefs.Invalid(err)
		}
		dirs := rt.ProjectDirs(p.Root)
		if p.Scope == agent.ScopeUser {
			dirs = rt.UserDirs(p.Root)
		}
		dir := dirs[0]
		i := slices.IndexFunc(p.Targets, func(t Folder) bool { return t.Dir == dir })
		if i < 0 {
			p.Targets = append(p.Targets, Folder{Dir: dir})
			i = len(p.Targets) - 1
		}
		p.Targets[i].Runtimes = append(p.Targets[i].Runtimes, rt)
	}
	return p, nil
}

// Portable says whether the folders hold the same bytes wherever Root
// is: a project commits them, and each clone installs them again.
func (p *Placement) Portable() bool {
	return p.Scope == agent.ScopeProject
}

// FindRuntime finds name among the runtimes an install section defines
// (the project's stax.yaml, or in user scope the user's settings; nil:
// none), then among those stax knows; staxyaml refuses a definition that
// would shadow one of them.
func FindRuntime(name string, defaults *staxyaml.InstallSpec) (agent.Runtime, error) {
	var defined []staxyaml.RuntimeDefinition
	if defaults != nil {
		defined = defaults.Defined
	}
	for _, d := range defined {
		if d.Name == name {
			return d.Runtime(), nil
		}
	}
	rt, err := agent.Find(name)
	if err != nil && len(defined) > 0 {
		names := make([]string, len(defined))
		for i, d := range defined {
			names[i] = d.Name
		}
		err = fmt.Errorf("%w; defined in install.runtimes: %s", err, strings.Join(names, ", "))
	}
	return rt, err
}

// Dirs are the folders of the targets.
func (p *Placement) Dirs() []string {
	dirs := make([]string, len(p.Targets))
	for i, t := range p.Targets {
		dirs[i] = t.Dir
	}
	return dirs
}

// Names are the names of runtimes.
func Names(rts []agent.Runtime) []string {
	names := make([]string, len(rts))
	for i, rt := range rts {
		names[i] = rt.Name
	}
	return names
}
