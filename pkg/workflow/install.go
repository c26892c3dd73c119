package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filelock"
	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/warning"
	"github.com/stax-dev/stax/pkg/yamlerr"
)

// InstallOptions say what Install installs and where.
type InstallOptions struct {
	// Where are the folders to install into.
	Where Folders
	// Sources are packages to add to install.sources of stax.yaml (as Add
	// does: in place of the source of the same package, else after the
	// last), in layering order, later ones winning: registry references,
	// oci: layouts or package directories, a directory taken from where
	// stax runs. Then every source of install.sources is installed. None
	// installs install.sources as it is; with neither, Install fails.
	Sources []string
	// Version is a version range (see semver.ParseRange) for the one
	// reference of Sources, which must name neither tag nor digest: it
	// installs the highest version the range allows, and stax.yaml keeps
	// the range. Empty for none.
	Version string
	// NoSave installs Sources once, beside the other sources of
	// install.sources at what stax.lock holds, and changes neither
	// stax.yaml nor stax.lock; false saves them as described at Sources.
	NoSave bool
	// Force replaces skills of the user's that have the name of one being
	// installed, and installed skills the user changed, moving them to a
	// backup under .stax/backup; false refuses to.
	Force bool
	// Frozen installs exactly what stax.lock pins and fails if it does not
	// match stax.yaml; false resolves the sources and writes stax.lock.
	Frozen bool
	// Limits bound each package and its skills layer; the zero value is
	// the defaults.
	layers.Limits
	// AllowHiddenText installs skills that hold hidden text; false refuses
	// them.
	AllowHiddenText bool
	// Verify is the signature check; the zero value follows the trust
	// policy, with the project's own laid over the user's.
	Verify Verification
	// DryRun resolves the sources and returns the Plan of the install,
	// writing nothing; false installs.
	DryRun bool
	// Plugin and Skills choose, of each git source of Sources, a plugin
	// of its marketplace and the skills to take (see
	// staxyaml.Dependency); stax.yaml keeps the choice.
	Plugin string
	Skills []string
	// Strict refuses a git source's skill that breaks a content rule;
	// false warns of it, once per skill and rule.
	Strict bool
}

// InstallResult is what Install resolved, layered and installed.
type InstallResult struct {
	Sources   []string        `json:"sources"`
	Packages  []Package       `json:"packages"`
	Skills    []Skill         `json:"skills"`
	Overrides []string        `json:"overrides"`
	Warnings  warning.List    `json:"warnings"`
	Targets   []InstallTarget `json:"targets"`
	Lock      string          `json:"lock"`
	// LockChanged is false when stax.lock already said exactly this.
	LockChanged bool `json:"lockChanged"`
	// Saved is the stax.yaml the install wrote its sources into; empty
	// when it did not change it.
	Saved string `json:"saved,omitempty"`
	// Plan is what a dry run would have done; nil for an install. A dry
	// run's Targets are empty and its Lock and LockChanged unset: they
	// are the Plan's.
	Plan *Plan `json:"plan,omitempty"`
}

// InstallTarget is what an install did in one folder.
type InstallTarget struct {
	Runtimes []string `json:"runtimes"`
	*install.Result
}

// Install resolves the sources with everything they depend on, applies
// the trust policy, stores the packages, layers them and installs the
// winning skills into every folder of Where as one transaction with
// stax.lock and, when the sources named are saved into it, stax.yaml: a
// failed or killed install leaves all of them as they were. It holds the
// project's lock throughout (see Env.projectFileFor). A source stax.lock
// was written for stays at the version and digest it holds while
// stax.yaml still asks for it (see lockedPins); the sources named resolve
// again. Notes on what it recovered or moved to a backup go to
// env.Warnings.
func Install(ctx context.Context, env *Env, opts InstallOptions) (*InstallResult, error) {
	if err := env.checkVerification(opts.Verify); err != nil {
		return nil, err
	}
	if opts.NoSave && len(opts.Sources) == 0 {
		// Without a SOURCE there is nothing to install once: the flag
		// would be given, and stax.lock written all the same.
		return nil, errdefs.Invalid(errors.New("--no-save installs the SOURCEs named once, writing neither stax.yaml nor stax.lock: name one (stax install --no-save REF)"))
	}
	if len(opts.Sources) == 0 && (opts.Plugin != "" || len(opts.Skills) > 0) {
		return nil, errdefs.Invalid(errors.New("--plugin and --skill choose among the skills of the SOURCEs named: name one, or write plugin: and skills: on a source of install.sources"))
	}
	m, err := env.projectFileFor(ctx, opts.Where, opts.DryRun)
	if err != nil {
		return nil, err
	}
	defer m.close()
	decls, err := m.declarations(env, opts.Sources)
	if err != nil {
		return nil, err
	}
	if err := checkVersionFlag(decls, opts.Version); err != nil {
		return nil, err
	}
	named := map[string]bool{}
	for _, d := range decls {
		named[d.Package()] = true
	}
	keep := keepLockedFor(env, m, opts.Frozen, named)
	if len(decls) > 0 && opts.NoSave {
		sources, err := m.oneOff(decls, opts)
		if err != nil {
			return nil, err
		}
		return installSources(ctx, env, opts, m, sources, named, keep)
	}
	for _, decl := range decls {
		if err := m.edit(func(data []byte) ([]byte, error) {
			return staxyaml.AddSource(data, opts.dependencyOf(decl))
		}); err != nil {
			return nil, err
		}
	}
	return installSources(ctx, env, opts, m, m.sources(), named, keep)
}

// oneOff are the sources of a one-off install of decls: install.sources
// with decls in place of the source of the same package, else after the
// last, as saving them would make it, but with stax.yaml left as it is.
func (m *projectFile) oneOff(decls []declaration.Declaration, opts InstallOptions) ([]staxyaml.Dependency, error) {
	data := m.data
	for _, decl := range decls {
		out, err := staxyaml.AddSource(data, opts.dependencyOf(decl))
		if err != nil {
			return nil, errdefs.With(errdefs.Of(err), fmt.Errorf("%s: %w", m.path, err))
		}
		data = out
	}
	def, err := staxyaml.Parse(m.path, data)
	if err != nil || def.Install == nil {
		return nil, err
	}
	return def.Install.Sources, nil
}

// keepLockedFor is the adjustment of an install of the project m that
// keeps each source where stax.lock has it (see lockedPins), but for the
// packages named, which resolve again. A stax.lock that cannot be read
// pins nothing, with a warning: the install writes it again, as it would
// with none. A frozen install follows the lock itself: nil.
func keepLockedFor(env *Env, m *projectFile, frozen bool, named map[string]bool) func(*installRequest) {
	if frozen {
		return nil
	}
	old, err := readLock(m.dir)
	if err != nil {
		env.warnf("%s cannot be read, so every source is resolved again and the lock written anew: %v", filepath.Join(m.dir, lock.FileName), err)
	}
	if old == nil {
		return nil
	}
	return func(req *installRequest) {
		req.Pins, req.PinTags = lockedPins(old, m.sources(), named)
		req.GitLocked = lockedCommits(old, req.Pins)
	}
}

// lockedPins pin the packages old locks for the sources whose declaration
// it was written for, as npm keeps the versions of package-lock.json: a
// range moves only by stax update, and a rollback of stax.lock stays
// rolled back. A source resolves again when it is named, new, of another
// reference, of another plugin or skills (a git source's), or when its
// range no longer allows the locked version (or was dropped).
func lockedPins(old *lock.Lock, sources []staxyaml.Dependency, named map[string]bool) (map[string]digest.Digest, map[string]string) {
	kept := map[string]staxyaml.Dependency{}
	for _, d := range sources {
		if !named[d.Package()] && slices.Contains(old.Sources, lock.Sources([]string{d.String()})[0]) {
			kept[d.Package()] = d
		}
	}
	pins, tags := map[string]digest.Digest{}, map[string]string{}
	for _, p := range old.Packages {
		d, ok := kept[old.PackageOf(p)]
		if ok && allowsLocked(d.Version, p) && sameChoice(d, p) {
			pins[p.Ref], tags[p.Ref] = p.Digest, p.Tag
		}
	}
	return pins, tags
}

// sameChoice reports whether d chooses of a git source the plugin and
// skills the locked package p was built with (as sets): a choice
// changed in stax.yaml resolves the source again, as a changed REF does.
// Any other source chose nothing stax.lock records: true.
func sameChoice(d staxyaml.Dependency, p lock.Package) bool {
	if p.Git == nil {
		return true
	}
	return p.Git.Plugin == d.Plugin && slices.Equal(slices.Sorted(slices.Values(declaration.SkillSet(p.Git.Skills))), slices.Sorted(slices.Values(declaration.SkillSet(d.Skills))))
}

// allowsLocked reports whether a declaration in the range version (""
// for none) still asks for the locked package p: with no range, when p
// was locked for none; with one, when it allows p's version.
func allowsLocked(version string, p lock.Package) bool {
	if version == "" {
		return p.Range == ""
	}
	rng, err := semver.ParseRange(version)
	if err != nil {
		return false
	}
	v, err := semver.Parse(p.Version)
	return err == nil && rng.Allows(v)
}

// RemoveOptions say which sources Remove drops; the rest are those of the
// install that follows (their Sources, Version and NoSave are not used).
type RemoveOptions struct {
	InstallOptions
	// Refs name the sources to drop from install.sources of stax.yaml:
	// references (whatever their tag, digest or range) or package
	// directories. Required.
	Refs []string
}

// Remove drops sources from install.sources of stax.yaml, and installs
// what remains as Install does, in one transaction: the skills only the
// dropped sources supplied are removed, and a skill another source also
// supplies comes from that one. stax.yaml is written in the install's
// transaction.
func Remove(ctx context.Context, env *Env, opts RemoveOptions) (*InstallResult, error) {
	if err := env.checkVerification(opts.Verify); err != nil {
		return nil, err
	}
	m, err := env.projectFileFor(ctx, opts.Where, opts.DryRun)
	if err != nil {
		return nil, err
	}
	defer m.close()
	decls, err := m.declarations(env, opts.Refs)
	if err != nil {
		return nil, err
	}
	if len(decls) == 0 {
		return nil, errdefs.Invalid(errors.New("name the sources to remove"))
	}
	if err := m.absent("remove"); err != nil {
		return nil, err
	}
	// The command fails as a whole: a source not listed is reported
	// against the file as read, not as the sources before it left it.
	def, edited := m.def, m.edited
	removed := map[string]bool{}
	for _, d := range decls {
		pkg := d.Package()
		if removed[pkg] {
			continue
		}
		removed[pkg] = true
		listed := true
		if err := m.edit(func(data []byte) ([]byte, error) {
			out, removed, err := staxyaml.RemoveSource(data, pkg)
			if listed = removed; err == nil && !removed {
				return data, nil
			}
			return out, err
		}); err != nil {
			return nil, err
		}
		if !listed {
			m.def, m.edited = def, edited
			return nil, m.notListed(d)
		}
	}
	opts.NoSave, opts.Sources, opts.Version = false, nil, ""
	return installSources(ctx, env, opts.InstallOptions, m, m.sources(), nil, keepLockedFor(env, m, opts.Frozen, nil))
}

// projectFile is a project's stax.yaml, as read and as an install will
// write it.
type projectFile struct {
	dir, path string
	// data is the file as read, nil when there is none.
	data []byte
	mode fs.FileMode
	def  *staxyaml.Definition
	// edited is what the install writes in its transaction; nil for
	// nothing.
	edited []byte
	// placement is where a user-scope stax.yaml's folders are; nil for a
	// project's, whose own install section places them.
	placement *install.Placement
	// unlock releases the project's lock (see Env.projectFileFor).
	unlock func()
}

// absent is, when the project has no stax.yaml (the command ran outside
// it, or before stax add wrote one), the error of a command that works
// from its install.sources: doing says what it could not do. A user's
// stax.yaml under $STAX_HOME is not the project's: nil for it.
func (m *projectFile) absent(doing string) error {
	if m.data != nil || m.edited != nil || m.placement != nil {
		return nil
	}
	dir, err := filepath.Abs(m.dir)
	if err != nil {
		dir = m.dir
	}
	return errdefs.Invalid(fmt.Errorf("no %s in %s: nothing to %s; run stax in the project's directory or name it with --dir, or add a source with stax add REF",
		staxyaml.FileName, dir, doing))
}

// close releases the project's lock.
func (m *projectFile) close() {
	if m.unlock != nil {
		m.unlock()
		m.unlock = nil
	}
}

// declarations are the sources args name, as stax.yaml lists them: a
// package directory or an oci: layout relative to the project, or for
// the user's stax.yaml, which lives apart from where stax runs, absolute.
func (m *projectFile) declarations(env *Env, args []string) ([]declaration.Declaration, error) {
	decls, err := env.declarations(args, m.dir, false)
	if err != nil || m.placement == nil {
		return decls, err
	}
	for i, d := range decls {
		switch {
		case d.Kind == declaration.Directory && !filepath.IsAbs(d.Written):
			decls[i].Written = filepath.Join(m.dir, d.Written)
		case d.Kind == declaration.Layout && !filepath.IsAbs(d.Ref.Layout):
			decls[i].Ref.Layout = filepath.Join(m.dir, d.Ref.Layout)
			decls[i].Written = decls[i].Ref.String()
		}
	}
	return decls, nil
}

// declared are the install.sources of the manifest, as it will be
// written, parsed where they enter: each names its line of stax.yaml,
// but those of packages named (on the command line), which are the
// command line's.
func (m *projectFile) declared(sources []staxyaml.Dependency, named map[string]bool) ([]declaration.Declaration, error) {
	decls, err := staxyaml.Declarations(sources, m.path, false)
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	for i, d := range decls {
		if named[d.Package()] {
			decls[i].Where = declaration.Where{}
		}
	}
	return decls, nil
}

// projectFileFor reads the stax.yaml a job installs from: the project's, or
// in user scope the user's own under $STAX_HOME, with the folders placed.
// It holds the project's lock from before it reads stax.yaml until
// close, so that what the job writes is what it read plus its own change
// (see install.LockProject); an install a crash interrupted, whose
// stax.yaml and stax.lock may be torn, is finished or undone first. Its
// directory is created when an install writes into it, not here: a dry
// run, which writes nothing (not even a lock), reads it unlocked.
func (e *Env) projectFileFor(ctx context.Context, w Folders, dryRun bool) (_ *projectFile, err error) {
	var placement *install.Placement
	dir := w.projectDir()
	if w.userScope() {
		if placement, dir, err = e.userPlacement(w); err != nil {
			return nil, err
		}
	}
	if dryRun {
		m, err := readProjectFile(dir)
		if err == nil {
			m.placement = placement
		}
		return m, err
	}
	lockDir, err := e.lockDir()
	if err != nil {
		return nil, err
	}
	unlock, err := install.LockProject(ctx, lockDir, dir, filelock.WaitingNote(e.warnings(), "working on "+dir))
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			unlock()
		}
	}()
	notes, err := install.RecoverFiles(ctx, lockDir, filepath.Join(dir, staxyaml.FileName), filepath.Join(dir, lock.FileName))
	for _, note := range notes {
		e.notef("%s", note)
	}
	if err != nil {
		return nil, err
	}
	m, err := readProjectFile(dir)
	if err != nil {
		return nil, err
	}
	m.placement, m.unlock = placement, unlock
	return m, nil
}

func readProjectFile(dir string) (*projectFile, error) {
	m := &projectFile{dir: dir, path: filepath.Join(dir, staxyaml.FileName), mode: 0o644}
	data, err := regularfile.ReadFile(m.path, staxyaml.MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return m, nil
	case err != nil:
		return nil, errdefs.MarkLocal(fmt.Errorf("read %s: %w", m.path, err))
	}
	if info, err := os.Stat(m.path); err == nil {
		m.mode = info.Mode().Perm()
	}
	m.data = data
	if m.def, err = staxyaml.Parse(m.path, data); err != nil {
		return nil, err
	}
	if err := m.def.Install.UnknownRuntime(); err != nil {
		// A typo in the runtimes it installs into, with its line.
		return nil, errdefs.Invalid(yamlerr.In(m.path, err))
	}
	return m, nil
}

// edit changes the content stax.yaml will have, and reads it back.
func (m *projectFile) edit(change func([]byte) ([]byte, error)) error {
	data := m.edited
	if data == nil {
		data = m.data
	}
	out, err := change(data)
	if err != nil {
		return errdefs.With(errdefs.Of(err), fmt.Errorf("%s: %w", m.path, err))
	}
	def, err := staxyaml.Parse(m.path, out)
	if err != nil {
		return err
	}
	m.edited, m.def = out, def
	return nil
}

// sources are install.sources of the file as it will be.
func (m *projectFile) sources() []staxyaml.Dependency {
	if m.def == nil || m.def.Install == nil {
		return nil
	}
	return m.def.Install.Sources
}

// checkWritable fails, before anything is installed, when the file the
// install will write cannot be written.
func (m *projectFile) checkWritable() error {
	if m.edited == nil || m.data == nil {
		return nil
	}
	f, err := os.OpenFile(m.path, os.O_WRONLY, 0)
	if err != nil {
		return errdefs.MarkLocal(fmt.Errorf("%s cannot be written, so the source cannot be saved: %w (make it writable, or pass --no-save)", m.path, err))
	}
	return f.Close()
}

// file is the edited stax.yaml, for the install to write in its
// transaction; nil when the file holds it already.
func (m *projectFile) file() *install.LockFile {
	if m.edited == nil || (m.data != nil && string(m.edited) == string(m.data)) {
		return nil
	}
	edited := m.edited
	return &install.LockFile{Path: m.path, Mode: m.mode, Write: func(w io.Writer) error {
		_, err := w.Write(edited)
		return err
	}}
}

// dependencyOf is the install.sources entry of a declaration.
func dependencyOf(d declaration.Declaration, version string) staxyaml.Dependency {
	if d.Kind == declaration.Directory {
		return staxyaml.Dependency{Path: d.Written, Version: version}
	}
	return staxyaml.Dependency{Ref: d.Written, Version: version}
}

// checkVersionFlag checks a version range given for the references of the
// command line: it needs exactly one, naming neither tag nor digest.
func checkVersionFlag(decls []declaration.Declaration, version string) error {
	if version == "" {
		return nil
	}
	if len(decls) != 1 {
		return errdefs.Invalid(fmt.Errorf("--version %s applies to one reference; %d are named", version, len(decls)))
	}
	if err := dependencyOf(decls[0], version).Check(); err != nil {
		return errdefs.Invalid(fmt.Errorf("--version: %w", err))
	}
	return nil
}

// installSources installs sources into the folders of opts.Where, the
// project being m. adjust, when set, changes the request before it is
// made; when its Review stops the install, the result is nil and nothing
// was written.
func installSources(ctx context.Context, env *Env, opts InstallOptions, m *projectFile, sources []staxyaml.Dependency, named map[string]bool, adjust func(*installRequest)) (_ *InstallResult, err error) {
	req, err := newInstallRequest(env, opts, m, sources, named)
	if err != nil {
		return nil, err
	}
	if adjust != nil {
		adjust(&req)
	}
	var plan *Plan
	if opts.DryRun {
		if plan, err = planInstall(&req, opts.Force, m); err != nil {
			return nil, err
		}
	} else if m.placement != nil {
		made, mkErr := makeUserDir(m.dir)
		if mkErr != nil {
			return nil, mkErr
		}
		// A failed install leaves $STAX_HOME as it was: the lock it would
		// have written is not there, nor its directory.
		defer func() {
			if err != nil {
				install.RemoveMade(made)
			}
		}()
	}
	installed, err := env.installGraph(ctx, req)
	if err != nil {
		return nil, err
	}
	defer installed.Graph.Close()
	if plan != nil && installed.Outcome == nil && len(plan.Targets) > 0 {
		merged := installed.Merged
		return &InstallResult{
			Sources: lock.Sources(declaration.Written(req.Sources)), Packages: Packages(installed.Graph), Skills: Skills(merged), Overrides: Overrides(merged),
			Warnings: slices.Concat(install.Overlaps(req.Placement), caseWarnings(merged), gitWarnings(installed.Graph)), Targets: []InstallTarget{}, Plan: plan,
		}, nil
	}
	if installed.Outcome == nil {
		return nil, nil
	}
	res := &InstallResult{
		Sources: lock.Sources(declaration.Written(req.Sources)), Packages: Packages(installed.Graph), Skills: Skills(installed.Merged),
		Overrides: Overrides(installed.Merged), Warnings: installed.Warnings, Targets: []InstallTarget{},
		Lock: installed.LockPath, LockChanged: slices.Contains(installed.Changed, installed.LockPath),
	}
	if slices.Contains(installed.Changed, m.path) {
		res.Saved = m.path
	}
	for i, t := range req.Placement.Targets {
		env.noteInstall(installed.Results[i])
		res.Targets = append(res.Targets, InstallTarget{Runtimes: install.Names(t.Runtimes), Result: installed.Results[i]})
	}
	return res, nil
}

// newInstallRequest is the install of sources into the folders of
// opts.Where, the project being m, with what stax.yaml and stax.lock say
// of it.
func newInstallRequest(env *Env, opts InstallOptions, m *projectFile, sources []staxyaml.Dependency, named map[string]bool) (installRequest, error) {
	if len(sources) == 0 && m.edited == nil {
		if err := m.absent("install"); err != nil {
			return installRequest{}, err
		}
		return installRequest{}, errdefs.Invalid(fmt.Errorf("nothing to install: name sources, or list them under install.sources in %s", m.path))
	}
	decls, err := m.declared(sources, named)
	if err != nil {
		return installRequest{}, err
	}
	placement := m.placement
	if placement == nil {
		if placement, err = opts.Where.place(m.def); err != nil {
			return installRequest{}, err
		}
	}
	if err := m.checkWritable(); err != nil {
		return installRequest{}, err
	}
	req := installRequest{
		Sources: decls, ProjectDir: m.dir, Limits: opts.Limits,
		Copy: env.transferOptions(opts.MaxSize), Placement: placement, Force: opts.Force, AllowHiddenText: opts.AllowHiddenText,
		KeepLock: opts.NoSave && len(opts.Sources) > 0, Verify: opts.Verify, Policy: m.def.TrustPolicy(m.dir),
		Strict: opts.Strict,
	}
	if opts.Frozen {
		if req.Frozen, err = lock.ReadFrozen(filepath.Join(m.dir, lock.FileName), decls); err != nil {
			return installRequest{}, err
		}
		if err := req.Frozen.CheckRanges(decls); err != nil {
			return installRequest{}, errdefs.Resolution(err)
		}
	}
	if req.LockDir, err = env.lockDir(); err != nil {
		return installRequest{}, err
	}
	if f := m.file(); f != nil {
		req.Files = []install.LockFile{*f}
	}
	return req, nil
}

// planInstall makes req a dry run: its Review, after any the job set,
// fills the plan returned and stops the install before anything is
// fetched or written.
func planInstall(req *installRequest, force bool, m *projectFile) (*Plan, error) {
	old, err := readLock(m.dir)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Targets: []PlanTarget{}}
	if m.edited != nil && (m.data == nil || string(m.edited) != string(m.data)) {
		plan.Manifest = m.path
	}
	before := req.Review
	req.Review = func(g *resolve.Graph, merged *merge.Result) (bool, error) {
		if before != nil {
			if proceed, err := before(g, merged); err != nil || !proceed {
				return false, err
			}
		}
		for _, t := range req.Placement.Targets {
			pt, err := planTarget(req.Placement, t, merged, force)
			if err != nil {
				return false, err
			}
			plan.Targets = append(plan.Targets, pt)
		}
		plan.Packages, plan.Skills = []PackageUpdate{}, []SkillUpdate{}
		if req.Frozen == nil && !req.KeepLock {
			plan.lockChange(filepath.Join(m.dir, lock.FileName), old, lock.New(req.Sources, g, merged))
		}
		plan.userFiles(force)
		return false, nil
	}
	return plan, nil
}
