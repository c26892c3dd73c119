package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/scratch"
)

// pullStagingPrefix starts the name of the directory pull -o stages the
// skills in, beside the output directory; the next pull beside it
// removes one a killed pull left.
const pullStagingPrefix = layers.StagingPrefix + "merge-"

// PullOptions say what Pull fetches and where it puts the skills.
type PullOptions struct {
	// Refs are the packages to pull, in layering order, later ones
	// winning: registry references, oci: layouts or package directories.
	// Required.
	Refs []string
	// OutputDir receives the merged skills; it must not exist or be
	// empty. Empty only stores the packages.
	OutputDir string
	// Limits bound each package and its skills layer; the zero value is
	// the defaults.
	layers.Limits
	// Strict fails, before any layer is fetched, when two skills' names
	// differ only in letter case; false warns.
	Strict bool
	// AllowHiddenText extracts files that hold hidden text; false refuses
	// them.
	AllowHiddenText bool
	// Verify is the signature check; the zero value follows the trust
	// policy.
	Verify Verification
}

// PullResult is what Pull fetched and, with OutputDir, merged.
type PullResult struct {
	Packages  []Package `json:"packages"`
	Skills    []Skill   `json:"skills"`
	Overrides []string  `json:"overrides"`
	Output    string    `json:"output,omitempty"`
}

// Pull fetches packages and what they depend on into the local store,
// every digest and size verified and the trust policy applied, and with
// OutputDir merges their skills into it: the winning layers are extracted
// as they stream into the store, in one pass, and the directory appears
// only when everything checked out.
func Pull(ctx context.Context, env *Env, opts PullOptions) (*PullResult, error) {
	if err := env.checkVerification(opts.Verify); err != nil {
		return nil, err
	}
	refs, err := env.declarations(opts.Refs, ".", true)
	if err != nil {
		return nil, err
	}
	git, err := env.gitCache()
	if err != nil {
		return nil, err
	}
	// What is resolved is stored through the packages it was resolved
	// from, which hold the local store until the pull ends.
	pkgs := cache.New(env.Opener, env.Progress)
	defer pkgs.Close()
	graph, _, err := env.resolveTrusted(ctx, refs, ".", resolve.Options{Source: pkgs, Limits: opts.Limits, Git: &resolve.GitOptions{Cache: git}}, opts.Verify)
	if err != nil {
		return nil, err
	}
	defer graph.Close()
	env.warnGit(gitWarnings(graph))

	// The merge needs only the configs: a set Strict refuses is refused
	// before any layer is fetched.
	merged := merge.Merge(graph.Order)
	if opts.Strict {
		if err := merged.CaseError(); err != nil {
			return nil, fmt.Errorf("%w: rename one of each pair, or pull without --strict", err)
		}
	}
	for _, w := range merged.CaseWarnings() {
		env.warnf("%s", w)
	}

	copyOpts := env.transferOptions(opts.MaxSize)
	store := func() error { _, err := pkgs.Store(ctx, graph, copyOpts); return err }
	if opts.OutputDir == "" {
		err = store()
	} else {
		// Reading a registry package's layer fetches it into the store as
		// it is extracted: as many are read at once as blobs are
		// transferred. The directory is staged beside OutputDir, which
		// appears once every package is stored.
		skills := winnerSkills(merged, namingLayers{pkgs}, opts.Limits, opts.AllowHiddenText)
		err = scratch.Stage(opts.OutputDir, pullStagingPrefix, func(dir string) error {
			if err := install.WriteFolder(ctx, dir, skills, env.Concurrency); err != nil {
				return err
			}
			return store()
		})
	}
	if errors.Is(err, scratch.ErrOccupied) {
		// pull has no flag to merge into a folder's files: that is
		// install's job, which knows the ones it wrote.
		err = fmt.Errorf("%w; pass -o a new or empty directory, or move the files of %s elsewhere first (install, not pull, updates the skills of a runtime's folder)", err, opts.OutputDir)
	}
	if err != nil {
		return nil, err
	}
	return &PullResult{Packages: Packages(graph), Skills: Skills(merged), Overrides: Overrides(merged), Output: opts.OutputDir}, nil
}
