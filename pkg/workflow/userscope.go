package workflow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/yamlerr"
)

// UserConfigFile is the user's own settings in $STAX_HOME: its
// install.runtimes are the runtimes of user-scope commands given no
// --runtime, and may define runtimes by their folders as stax.yaml does.
// It has the form of stax.yaml; nothing else of it is read.
const UserConfigFile = "config.yaml"

// UserDir is the directory of $STAX_HOME holding, per set of user-scope
// folders, the stax.yaml user-scope installs save their sources in and
// their stax.lock.
const UserDir = "user"

// userRecordsDir is the directory of UserDir holding the install record
// of each user-scope folder, one directory per folder named after it
// (install.RecordDir): a folder has one record whatever set of folders
// it was installed with. It starts with a dot, which no name of a set
// of folders does.
const userRecordsDir = ".records"

// userRecords is where user-scope folders' records are kept.
func userRecords(getenv func(string) string) (string, error) {
	home, err := store.HomeFrom(getenv)
	if err != nil {
		return "", err
	}
	return userRecordsIn(home), nil
}

// userRecordsIn is userRecords of the stax home home.
func userRecordsIn(home string) string {
	return filepath.Join(home, UserDir, userRecordsDir)
}

// userScope reports whether w asks for the user's folders. Only the
// scope asked for counts: a project whose stax.yaml says install.scope:
// user installs its own sources there, as its project does.
func (w Folders) userScope() bool {
	return w.Scope == string(agent.ScopeUser)
}

// userPlacement places the user-scope folders of w, with the runtimes
// of --runtime, else of the user's settings, never a project's, and
// returns the directory under $STAX_HOME that stands for the project for
// them: where their stax.yaml and stax.lock are. A user-scope command
// thus neither reads nor writes a project's files, nor anything in the
// working directory.
func (e *Env) userPlacement(w Folders) (*install.Placement, string, error) {
	home, err := store.HomeFrom(e.getenv)
	if err != nil {
		return nil, "", err
	}
	// The settings are read even with --runtime: it may name a runtime
	// they define. Their list is used only without it.
	settings, err := readUserConfig(filepath.Join(home, UserConfigFile))
	if err != nil {
		return nil, "", err
	}
	placement, err := install.Place(install.PlaceOptions{Runtimes: w.Runtimes, Scope: w.Scope, Defaults: settings})
	if err != nil {
		return nil, "", err
	}
	name, err := userFoldersName(placement)
	if err != nil {
		return nil, "", err
	}
	placement.Records = userRecordsIn(home)
	return placement, filepath.Join(home, UserDir, name), nil
}

// readUserConfig reads the install section of the user's settings, its
// runtimes and their definitions, checked by the rules of stax.yaml; nil
// when there are none.
func readUserConfig(path string) (*staxyaml.InstallSpec, error) {
	data, err := regularfile.ReadFile(path, staxyaml.MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, errdefs.MarkLocal(err) // names the file
	}
	def, err := staxyaml.Parse(path, data)
	if err != nil || def.Install == nil {
		return nil, err
	}
	if err := def.Install.UnknownRuntime(); err != nil {
		return nil, errdefs.Invalid(yamlerr.In(path, err))
	}
	if def.Install.Scope != "" || len(def.Install.Sources) > 0 {
		return nil, errdefs.Invalid(fmt.Errorf("%s: only install.runtimes is read here: user-scope sources are saved by stax install --scope user (remove install.scope and install.sources)", path))
	}
	return &staxyaml.InstallSpec{Runtimes: def.Install.Runtimes, Defined: def.Install.Defined}, nil
}

// userRecordDirOf is where the record of dir would be kept if it were a
// user-scope folder, for a caller that knows the folder but not its
// scope; "" when it cannot be one. A folder whose record is not there
// is read as its own (install.ReadRecordIn).
func (e *Env) userRecordDirOf(dir string) string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(home, dir)
	if err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	records, err := userRecords(e.getenv)
	if err != nil {
		return ""
	}
	recordDir, err := install.RecordDir(records, home, dir)
	if err != nil {
		return ""
	}
	return recordDir
}

// userFoldersName names the folders of a user-scope placement as one
// directory: each folder by its path under the home directory without
// the leading dot, its separators turned into "-" (.claude/skills is
// claude-skills), several joined by "+" in sorted order. The name goes
// through the safe-name rule like every name stax turns into a path.
func userFoldersName(p *install.Placement) (string, error) {
	names := make([]string, 0, len(p.Targets))
	for _, t := range p.Targets {
		name, err := install.FolderName(p.Root, t.Dir)
		if err != nil {
			return "", err
		}
		names = append(names, name)
	}
	slices.Sort(names)
	name := strings.Join(names, "+")
	if err := layers.CheckName(name); err != nil {
		return "", errdefs.Invalid(fmt.Errorf("the user-scope folders %s: %w", strings.Join(p.Dirs(), ", "), err))
	}
	return name, nil
}

// placeFor places the folders of w and says where their stax.lock is:
// the project's, or in user scope the user's under $STAX_HOME.
func (e *Env) placeFor(w Folders) (placement *install.Placement, dir string, err error) {
	if w.userScope() {
		return e.userPlacement(w)
	}
	_, placement, err = w.load()
	return placement, w.projectDir(), err
}

// makeUserDir creates dir, the directory of a set of user-scope folders
// under $STAX_HOME, and returns the directories it made, innermost first,
// for a failed install to remove again (install.RemoveMade).
func makeUserDir(dir string) ([]string, error) {
	made, err := install.MkdirAll(dir)
	if err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("create the user-scope directory: %w", err))
	}
	return made, nil
}
