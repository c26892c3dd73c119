package workflow

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/trust"
)

// InstallOptions say what Install installs and where.
type InstallOptions struct {
	// Where are the folders to install into.
	Where Where
	// Sources are the packages to install, in layering order, later ones
	// winning: registry references, oci: layouts or package directories,
	// a directory taken from where stax runs. None takes install.sources
	// of stax.yaml; with neither, Install fails.
	Sources []string
	// Force replaces skills of the user's that have the name of one being
	// installed, and installed skills the user changed, moving them to a
	// backup under .stax/backup; false refuses to.
	Force bool
	// Frozen installs exactly what stax.lock pins and fails if it does not
	// match stax.yaml; false resolves the sources and writes stax.lock.
	Frozen bool
	// MaxSize bounds each package; 0 is layers.DefaultMaxSize, negative
	// no limit.
	MaxSize int64
	// MaxFiles bounds the entries of each skills layer; 0 is
	// layers.DefaultMaxFiles, negative no limit.
	MaxFiles int
	// AllowHiddenText installs skills that hold hidden text; false refuses
	// them.
	AllowHiddenText bool
	// Verify is the signature check; the zero value follows the trust
	// policy, with the project's own laid over the user's.
	Verify Verification
}

// InstallResult is what Install resolved, layered and installed.
type InstallResult struct {
	Sources   []string        `json:"sources"`
	Packages  []Package       `json:"packages"`
	Skills    []Skill         `json:"skills"`
	Overrides []string        `json:"overrides"`
	Warnings  []string        `json:"warnings"`
	Targets   []InstallTarget `json:"targets"`
	Lock      string          `json:"lock"`
	// LockChanged is false when stax.lock already said exactly this.
	LockChanged bool `json:"lockChanged"`
}

// InstallTarget is what an install did in one folder.
type InstallTarget struct {
	Runtimes []string `json:"runtimes"`
	*install.Result
}

// Install resolves the sources with everything they depend on, applies
// the trust policy, stores the packages, layers them and installs the
// winning skills into every folder of Where as one transaction with
// stax.lock. Notes on what it recovered or moved to a backup go to
// env.Warnings.
func Install(ctx context.Context, env *Env, opts InstallOptions) (*InstallResult, error) {
	dir := opts.Where.projectDir()
	def, err := staxyaml.LoadDir(dir)
	if err != nil {
		return nil, err
	}
	sources, err := installSources(env, opts.Sources, def, dir)
	if err != nil {
		return nil, err
	}
	placement, err := opts.Where.place(def)
	if err != nil {
		return nil, err
	}
	req := install.Request{
		Sources: sources, ProjectDir: dir, Opener: env.Opener, MaxSize: opts.MaxSize, MaxFiles: opts.MaxFiles,
		Copy: env.transferOptions(opts.MaxSize), Placement: placement, Force: opts.Force, AllowHiddenText: opts.AllowHiddenText,
		Verify: func(g *resolve.Graph, require map[digest.Digest]bool) (map[digest.Digest]string, error) {
			outcomes, err := env.enforce(ctx, trustPackages(g), opts.Verify, def.TrustPolicy(dir), require, opts.MaxSize)
			return trust.Signers(outcomes), err
		},
	}
	if opts.Frozen {
		if req.Frozen, err = lock.ReadFrozen(filepath.Join(dir, lock.FileName), sources); err != nil {
			return nil, err
		}
	}
	if req.LockDir, err = env.lockDir(); err != nil {
		return nil, err
	}
	installed, err := install.Sources(ctx, req)
	if err != nil {
		return nil, err
	}
	defer installed.Graph.Close()
	res := &InstallResult{
		Sources: sources, Packages: Packages(installed.Graph), Skills: Skills(installed.Merged),
		Overrides: Overrides(installed.Merged), Warnings: installed.Warnings, Targets: []InstallTarget{},
		Lock: installed.LockPath, LockChanged: installed.LockChanged,
	}
	for i, t := range placement.Targets {
		env.noteInstall(installed.Results[i])
		res.Targets = append(res.Targets, InstallTarget{Runtimes: install.Names(t.Runtimes), Result: installed.Results[i]})
	}
	return res, nil
}

// installSources are the declarations of the packages to install: args,
// else install.sources of def.
func installSources(env *Env, args []string, def *staxyaml.Definition, dir string) ([]string, error) {
	sources, err := env.declarations(args, dir)
	if err != nil {
		return nil, err
	}
	if len(sources) == 0 && def != nil && def.Install != nil {
		sources = def.Install.Sources
	}
	if len(sources) == 0 {
		return nil, errdefs.Invalid(fmt.Errorf("nothing to install: name sources, or list them under install.sources in %s", filepath.Join(dir, staxyaml.FileName)))
	}
	return sources, nil
}
