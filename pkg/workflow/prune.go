package workflow

import (
	"context"

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
}

// PruneStore removes from the local store (or the layout of
// --oci-layout) the manifests no tag reaches and the blobs nothing kept
// refers to (see store.Prune). It holds the store's exclusive lock, and
// its shared one for a dry run.
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
	pruned, err := s.Prune(ctx, opts.DryRun)
	if err != nil {
		return nil, err
	}
	return &PruneResult{Store: s.Dir, DryRun: opts.DryRun, Pruned: *pruned}, nil
}
