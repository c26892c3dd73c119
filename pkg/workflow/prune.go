package workflow

import (
	"context"

	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/store"
)

// PruneOptions say how PruneStore prunes the local store.
type PruneOptions struct {
	// DryRun says what would be removed, and removes nothing.
	DryRun bool
}

// PruneResult is what PruneStore removed from the local store, or would
// remove.
type PruneResult struct {
	// Store is the directory of the store.
	Store  string `json:"store"`
	DryRun bool   `json:"dryRun"`
	store.Pruned
	// Projects are those whose stax.lock kept the packages it pins, and
	// DroppedProjects those registered with a stax.lock that is gone,
	// which keep nothing more (see storeRoots).
	Projects        []string `json:"projects"`
	DroppedProjects []string `json:"droppedProjects"`
	// GitCache is what was removed of the git cache ($STAX_HOME/git):
	// the repositories no registered project's stax.lock takes a git
	// source from. The git cache is left alone with --oci-layout.
	GitCache gitsource.CachePruned `json:"gitCache"`
}

// PruneStore removes from the local store (or the layout of
// --oci-layout) the manifests no tag reaches, but those the stax.lock of
// a project an install registered pins, and the blobs nothing kept
// refers to (see store.Prune and storeRoots); and from the git cache the
// repositories none of those stax.lock files takes a git source from
// (gitsource.Cache.Prune). It holds the store's exclusive lock, and its
// shared one for a dry run.
func PruneStore(ctx context.Context, env *Env, opts PruneOptions) (*PruneResult, error) {
	mode := store.ReadWrite
	if opts.DryRun {
		mode = store.ReadOnly
	}
	s, err := env.Opener.OpenStore(ctx, mode)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	// Read under the store's lock: an install registers its project
	// while it holds it.
	roots, repos, projects, dropped, err := env.storeRoots(opts.DryRun)
	if err != nil {
		return nil, err
	}
	pruned, err := s.Prune(ctx, opts.DryRun, roots...)
	if err != nil {
		return nil, err
	}
	res := &PruneResult{Store: s.Dir, DryRun: opts.DryRun, Pruned: *pruned, Projects: projects, DroppedProjects: dropped}
	if env.Opener.Layout == "" {
		git, err := env.gitCache()
		if err != nil {
			return nil, err
		}
		if res.GitCache, err = git.Prune(ctx, repos, opts.DryRun); err != nil {
			return nil, err
		}
	}
	return res, nil
}
