package workflow

import (
	"cmp"
	"fmt"

	"github.com/stax-dev/stax/internal/userinfo"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/termtext"
)

// Folders says which skills folders install, uninstall and verify work in:
// those of the runtimes, in the project or the user's home directory.
type Folders struct {
	// ProjectDir is the project: where stax.yaml and stax.lock are, and
	// the root of project-scope folders. Empty is the current directory.
	ProjectDir string
	// Runtimes are the runtimes whose folders to use; none takes
	// install.runtimes of stax.yaml, else agent.Default.
	Runtimes []string
	// Scope is project or user; empty takes install.scope of stax.yaml,
	// else project.
	Scope string
}

// projectDir is the project directory, the current one when unset.
func (w Folders) projectDir() string {
	return cmp.Or(w.ProjectDir, ".")
}

// place is where w and the install section of def, the project's
// stax.yaml (nil when it has none), put the folders.
func (w Folders) place(def *staxyaml.Definition) (*install.Placement, error) {
	where := install.PlaceOptions{Runtimes: w.Runtimes, Scope: w.Scope, ProjectDir: w.projectDir()}
	if def != nil {
		where.Defaults = def.Install
	}
	return install.Place(where)
}

// load reads the project's stax.yaml and places the folders.
func (w Folders) load() (*staxyaml.Definition, *install.Placement, error) {
	def, err := staxyaml.LoadDir(w.projectDir())
	if err != nil {
		return nil, nil, err
	}
	placement, err := w.place(def)
	return def, placement, err
}

// lockDir holds the locks of the folders stax installs into.
func (e *Env) lockDir() (string, error) {
	if e.LockDir != "" {
		return e.LockDir, nil
	}
	return store.LockDirFrom(e.getenv)
}

// notef writes one note: what a job did besides its work, such as
// finishing an install a crash interrupted.
func (e *Env) notef(format string, args ...any) {
	fmt.Fprintf(e.warnings(), "note: "+format+"\n", args...)
}

// noteInstall says what an install or uninstall of one folder did besides
// installing: an interrupted install it recovered, and where replaced
// skills went.
func (e *Env) noteInstall(r *install.Result) {
	if r.Recovered != "" {
		e.notef("%s", r.Recovered)
	}
	for _, b := range r.Backups {
		e.notef("the replaced skill was moved to %s", b)
	}
}

// declarations turns the package arguments of install and pull into
// declarations relative to base, by the rule every command follows: a
// directory is taken from where stax runs (see source.IsDirectory). A name
// that is both a directory and a reference is taken as the directory, with
// a warning. bareTags reads a bare tag as one of the --oci-layout (see
// target.Opener.BareTag). They are parsed here, where they enter, once.
func (e *Env) declarations(args []string, base string, bareTags bool) ([]declaration.Declaration, error) {
	decls := make([]declaration.Declaration, len(args))
	for i, arg := range args {
		if dir, ambiguous := source.IsDirectory(arg); dir && ambiguous {
			e.warnf("%s", source.AmbiguousWarning(arg))
		}
		written, err := source.Declaration(arg, base)
		if err != nil {
			return nil, err
		}
		if bareTags {
			written = e.Opener.BareTag(written)
		}
		if decls[i], err = declaration.Parse(written, declaration.Where{}); err != nil {
			return nil, errdefs.Invalid(fmt.Errorf("%s: %w", termtext.Escape(userinfo.MaskReference(written)), err))
		}
	}
	return decls, nil
}
