package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/exitcode"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/project"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/runtime"
	"github.com/stax-dev/stax/pkg/scratch"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/store"
)

// installScope are the flags that say where installed skills live, shared
// by install, uninstall and verify.
type installScope struct {
	Dir      string
	Runtimes []string
	Scope    string
}

func (s *installScope) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&s.Dir, "dir", ".", "the project: where stax.yaml and stax.lock are, and the root of project-scope folders")
	f.StringSliceVar(&s.Runtimes, "runtime", nil, "runtimes to install into, comma-separated: "+strings.Join(runtime.Names(), ", ")+" (default: stax.yaml install.runtimes, else "+runtime.Default+")")
	f.StringVar(&s.Scope, "scope", "", "project (the project's folders) or user (the home directory's); default: stax.yaml install.scope, else project")
}

// installTarget is one folder to install into, and the runtimes reading it.
type installTarget struct {
	Dir      string
	Runtimes []runtime.Runtime
}

// resolveTargets turns flags and stax.yaml into the folders to work on.
// Runtimes sharing a folder (codex, goose and agents all read
// .agents/skills) share one target.
func (s *installScope) resolveTargets(def *project.Definition) ([]installTarget, string, error) {
	names, scope := s.Runtimes, s.Scope
	if def != nil && def.Install != nil {
		if len(names) == 0 {
			names = def.Install.Runtimes
		}
		if scope == "" {
			scope = def.Install.Scope
		}
	}
	if len(names) == 0 {
		names = []string{runtime.Default}
	}
	if scope == "" {
		scope = string(runtime.ScopeProject)
	}
	var base string
	switch runtime.Scope(scope) {
	case runtime.ScopeProject:
		abs, err := filepath.Abs(s.Dir)
		if err != nil {
			return nil, "", exitcode.Wrap(exitcode.FileSystem, err)
		}
		base = abs
	case runtime.ScopeUser:
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, "", exitcode.Wrap(exitcode.FileSystem, fmt.Errorf("user scope needs a home directory: %w", err))
		}
		base = home
	default:
		return nil, "", exitcode.Wrap(exitcode.Validation, fmt.Errorf("--scope must be project or user, not %q", scope))
	}
	var targets []installTarget
	for _, name := range names {
		rt, err := runtime.Find(name)
		if err != nil {
			return nil, "", exitcode.Wrap(exitcode.Validation, err)
		}
		dirs := rt.ProjectDirs(base)
		if runtime.Scope(scope) == runtime.ScopeUser {
			dirs = rt.UserDirs(base)
		}
		dir := dirs[0]
		i := slices.IndexFunc(targets, func(t installTarget) bool { return t.Dir == dir })
		if i < 0 {
			targets = append(targets, installTarget{Dir: dir})
			i = len(targets) - 1
		}
		targets[i].Runtimes = append(targets[i].Runtimes, rt)
	}
	return targets, scope, nil
}

type installOptions struct {
	IO      *IOStreams
	Global  *globalOptions
	Remote  remoteOptions
	Where   installScope
	Sources []string
	Force   bool
	Frozen  bool
	MaxSize string
	Verify  verifyFlags
	// MaxFiles is --max-files.
	MaxFiles int
}

type installResult struct {
	Sources   []string          `json:"sources"`
	Packages  []resolvedPackage `json:"packages"`
	Skills    []mergedSkill     `json:"skills"`
	Overrides []string          `json:"overrides"`
	Warnings  []string          `json:"warnings"`
	Targets   []targetResult    `json:"targets"`
	Lock      string            `json:"lock"`
	// LockChanged is false when stax.lock already said exactly this.
	LockChanged bool `json:"lockChanged"`
}

type targetResult struct {
	Runtimes []string `json:"runtimes"`
	*install.Result
}

func newInstallCmd(streams *IOStreams, global *globalOptions) *cobra.Command {
	opts := &installOptions{IO: streams, Global: global}
	cmd := &cobra.Command{
		Use:   "install [SOURCE...]",
		Short: "Install layered skill packages into agent runtimes' folders, and lock them",
		Long: `Resolve the SOURCE packages (registry references, oci: layouts, or package
directories; default: install.sources of stax.yaml), layer them — later
sources win, every source's dependencies below all sources, a winning skill
replacing the whole directory of the one it overrides — and install the
result into the skills folder of each runtime, writing stax.lock.

stax records what it installs in each folder (` + install.RecordFile + `). It never
replaces or removes a skill directory it did not install: a skill of yours
with the name of one being installed fails the install (exit 5) unless
--force. Skills it installed before that are no longer in the set are
removed. A skill it installed that you changed since is never replaced or
removed without --force (exit 5, naming the files); with --force, what is
replaced is moved to a backup under .stax/backup, and the message says
where.

All folders and stax.lock change as one transaction: if anything fails,
or stax is killed, the previous install stays (or the next stax run puts it
back, and says so). Names read from packages, records and stax.lock that
cannot be a plain directory name are refused before anything is touched.
In SKILL.md, ${STAX_SKILL_DIR} and ${STAX_WORKSPACE} become the installed
paths; $ARGUMENTS is left to the runtime.

--frozen installs exactly the digests of stax.lock and fails (exit 4) if
stax.yaml and stax.lock disagree or a locked digest cannot be fetched.`,
		Example: `  stax install ghcr.io/org/skills:2.0.0 ghcr.io/team/skills:1.4.0 --runtime claude-code,cursor
  stax install                      # install.sources and install.runtimes of stax.yaml
  stax install --frozen             # in CI: exactly what stax.lock pins
  stax install --scope user --runtime codex ./my-skills`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Sources = args
			return runInstall(cmd.Context(), opts)
		},
	}
	opts.Where.addFlags(cmd)
	f := cmd.Flags()
	f.BoolVar(&opts.Force, "force", false, "replace skills of yours that have the name of one being installed, and installed skills you changed; they are moved to a backup under .stax/backup")
	f.BoolVar(&opts.Frozen, "frozen", false, "install exactly what stax.lock pins; fail if it does not match stax.yaml")
	addMaxSizeFlag(cmd, &opts.MaxSize, "package")
	addMaxFilesFlag(cmd, &opts.MaxFiles)
	opts.Remote.addFlags(cmd)
	opts.Verify.addFlags(cmd)
	return cmd
}

func runInstall(ctx context.Context, opts *installOptions) error {
	def, err := loadDefinition(opts.Where.Dir)
	if err != nil {
		return err
	}
	sources := opts.Sources
	if len(sources) == 0 && def != nil && def.Install != nil {
		sources = def.Install.Sources
	}
	if len(sources) == 0 {
		return exitcode.Wrap(exitcode.Validation, fmt.Errorf("nothing to install: name sources, or list them under install.sources in %s", filepath.Join(opts.Where.Dir, project.FileName)))
	}
	targets, scope, err := opts.Where.resolveTargets(def)
	if err != nil {
		return err
	}
	lockPath := filepath.Join(opts.Where.Dir, lock.FileName)
	var pinned *lock.Lock
	if opts.Frozen {
		if pinned, err = lock.Read(lockPath); errors.Is(err, fs.ErrNotExist) {
			return exitcode.Wrap(exitcode.Resolution, fmt.Errorf("--frozen needs %s: run stax install without --frozen to write it", lockPath))
		} else if err != nil {
			return err
		}
		if err := pinned.CheckSources(sources); err != nil {
			return exitcode.Wrap(exitcode.Resolution, err)
		}
	}

	opener, maxSize, err := opts.Remote.setup(opts.Global, opts.MaxSize)
	if err != nil {
		return err
	}
	files, err := maxFiles(opts.MaxFiles)
	if err != nil {
		return err
	}
	ropts := resolve.Options{Opener: opener, MaxSize: maxSize, MaxFiles: files}
	if pinned != nil {
		ropts.Pins = pinned.Pins()
	}
	graph, err := resolve.Resolve(ctx, sources, opts.Where.Dir, ropts)
	if err != nil {
		return frozenError(opts.Frozen, err)
	}
	defer graph.Close()
	if pinned != nil {
		if err := pinned.Check(sources, graph); err != nil {
			return exitcode.Wrap(exitcode.Resolution, err)
		}
	}
	verified, err := opts.Verify.check(ctx, opts.IO, graphPackages(graph), projectTrust(def, opts.Where.Dir), pinned.VerifiedDigests(), maxSize)
	if err != nil {
		return err
	}
	copyOpts, done := opts.Remote.transferOptions(opts.IO)
	copyOpts.MaxSize = maxSize
	_, err = graph.Store(ctx, opener, copyOpts)
	done()
	if err != nil {
		return frozenError(opts.Frozen, err)
	}

	// The winners are known from the packages' configs: each skill is
	// read from its layer straight into the folder's staging directory,
	// and only if the folder does not hold it already.
	merged := merge.Merge(graph.Order)
	scratch.Sweep("install") // what an older stax, killed, left in $TMPDIR
	workspace := ""
	if runtime.Scope(scope) == runtime.ScopeProject {
		workspace, _ = filepath.Abs(opts.Where.Dir)
	}
	out := installResult{
		Sources: sources, Packages: describeGraph(graph), Skills: describeMerge(merged),
		Overrides: overrideLines(merged), Warnings: caseWarnings(merged), Targets: []targetResult{}, Lock: lockPath,
	}
	skills := make([]install.Skill, 0, len(merged.Skills))
	layerOf := map[*resolve.Node]*install.Layer{}
	for _, s := range merged.Skills {
		l := layerOf[s.From]
		if l == nil {
			l = merge.InstallLayer(s.From, maxSize, files)
			layerOf[s.From] = l
		}
		skills = append(skills, install.Skill{
			Path: s.Path, Layer: l,
			Package: lock.Key(s.From), PackageDigest: s.From.Digest, Digest: s.Digest,
		})
	}
	lockDir, err := store.LockDir()
	if err != nil {
		return err
	}
	iopts := install.Options{Root: installRoot(opts.Where.Dir, scope), Workspace: workspace, Force: opts.Force, LockDir: lockDir}
	if !opts.Frozen {
		data, err := recordVerified(lock.New(sources, graph, merged), verified).Marshal()
		if err != nil {
			return err
		}
		iopts.Lock = &install.LockFile{Path: lockPath, Data: data}
	}
	dirs := make([]string, len(targets))
	for i, t := range targets {
		dirs[i] = t.Dir
	}
	installed, err := install.InstallAll(ctx, dirs, skills, iopts)
	if err != nil {
		return err
	}
	out.LockChanged = installed.LockChanged
	for _, r := range installed.Results {
		printInstallNotes(opts.IO, r)
	}
	for i, t := range targets {
		out.Warnings = append(out.Warnings, ignoredFields(t.Dir, merged, t.Runtimes)...)
		out.Targets = append(out.Targets, targetResult{Runtimes: runtimeNames(t.Runtimes), Result: installed.Results[i]})
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, out)
	}
	printGraphNotes(opts.IO, pullResult{Packages: out.Packages, Overrides: out.Overrides})
	for _, w := range out.Warnings {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", w)
	}
	for _, t := range out.Targets {
		fmt.Fprintf(opts.IO.Out, "%s: %s: %d installed, %d updated, %d removed, %d unchanged\n",
			strings.Join(t.Runtimes, ","), t.Dir, len(t.Installed)+len(t.Replaced), len(t.Updated), len(t.Removed), len(t.Unchanged))
	}
	return nil
}

// printInstallNotes says on stderr what an install did besides installing:
// an interrupted install it recovered, and where replaced skills went.
func printInstallNotes(io *IOStreams, r *install.Result) {
	if r.Recovered != "" {
		fmt.Fprintf(io.ErrOut, "note: %s\n", r.Recovered)
	}
	for _, b := range r.Backups {
		fmt.Fprintf(io.ErrOut, "note: the replaced skill was moved to %s\n", b)
	}
}

// installRoot is the directory every change of an install is confined
// to: the project, or for user scope the home directory.
func installRoot(projectDir, scope string) string {
	if runtime.Scope(scope) == runtime.ScopeUser {
		home, _ := os.UserHomeDir()
		return home
	}
	abs, _ := filepath.Abs(projectDir)
	return abs
}

// addMaxFilesFlag registers --max-files: the most entries (files and
// directories) a skills layer may hold.
func addMaxFilesFlag(cmd *cobra.Command, value *int) {
	cmd.Flags().IntVar(value, "max-files", layers.DefaultMaxFiles, "most files and directories a skills layer may hold; 0 for no limit")
}

// maxFiles is the layers.ReadOptions.MaxFiles of a --max-files value.
func maxFiles(n int) (int, error) {
	switch {
	case n < 0:
		return 0, exitcode.Wrap(exitcode.Validation, fmt.Errorf("--max-files %d: want a count, or 0 for no limit", n))
	case n == 0:
		return -1, nil
	}
	return n, nil
}

// caseWarnings names the merged skills whose directory names differ only
// in letter case: on macOS and Windows one would overwrite the other.
func caseWarnings(merged *merge.Result) []string {
	paths := make([]string, len(merged.Skills))
	for i, s := range merged.Skills {
		paths[i] = s.Path
	}
	out := []string{}
	for _, c := range layers.CaseCollisions(paths) {
		out = append(out, fmt.Sprintf("skills %s and %s differ only in letter case: on macOS and Windows one overwrites the other", c[0], c[1]))
	}
	return out
}

// frozenError makes any resolution failure of a frozen install exit 4: a
// locked digest that cannot be fetched means the lock cannot be honoured.
func frozenError(frozen bool, err error) error {
	if !frozen || exitcode.Of(err) == exitcode.Resolution {
		return err
	}
	return &exitcode.Error{Code: exitcode.Resolution, Err: fmt.Errorf("--frozen: %w", err)}
}

// ignoredFields warns, for each skill installed in dir, about frontmatter
// a runtime will not honour (allowed-tools and model in most runtimes).
// When every runtime honours both, no SKILL.md is read.
func ignoredFields(dir string, merged *merge.Result, runtimes []runtime.Runtime) []string {
	fields := []string{"allowed-tools", "model"}
	if !slices.ContainsFunc(runtimes, func(rt runtime.Runtime) bool { return len(rt.Ignored(fields)) > 0 }) {
		return nil
	}
	var warnings []string
	for _, s := range merged.Skills {
		data, err := os.ReadFile(filepath.Join(dir, s.Path, skill.FileName))
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
				warnings = append(warnings, fmt.Sprintf("skill %s: %s does not honour %s", s.Path, rt.Title, field))
			}
		}
	}
	return warnings
}

func runtimeNames(rts []runtime.Runtime) []string {
	names := make([]string, len(rts))
	for i, rt := range rts {
		names[i] = rt.Name
	}
	return names
}

// loadDefinition reads dir/stax.yaml, nil when there is none.
func loadDefinition(dir string) (*project.Definition, error) {
	def, err := project.Load(filepath.Join(dir, project.FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return def, err
}
