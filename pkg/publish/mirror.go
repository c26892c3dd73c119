package publish

import (
	"context"
	"fmt"

	"github.com/stax-dev/stax/internal/inorder"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// MirroredDependency is a dependency CopyDependencies copied.
type MirroredDependency struct {
	From, To reference.Reference
	Result   *transfer.Result
}

// CopyDependencies copies every package g's direct packages depend on to
// the same repository path and tag on registry, pinned to the digest the
// dependent recorded; the packages themselves are not rewritten. Pulls of
// the copies from registry then find the dependencies there, since
// resolve looks for a dependency pinned by digest on the registry its
// dependent came from first, with no access to the original registries.
//
// The packages are copied at once, up to opts.Concurrency of them (each
// moving up to as many blobs at once). The copies made are returned in
// g's order, also when one failed; the error is then the one copying
// them one after the other would have met first.
func CopyDependencies(ctx context.Context, g *resolve.Graph, opener *target.Opener, registry string, opts transfer.Options) ([]MirroredDependency, error) {
	direct := map[*resolve.Node]bool{}
	for _, n := range g.Direct {
		direct[n] = true
	}
	var deps []*resolve.Node
	for _, n := range g.Order {
		if !direct[n] {
			deps = append(deps, n)
		}
	}
	copied := make([]*MirroredDependency, len(deps))
	err := inorder.Concurrently(ctx, len(deps), opts.Concurrency, func(ctx context.Context, i int) error {
		n := deps[i]
		from := n.Reference()
		if from.IsLayout() || n.Dir != "" {
			return errdefs.Invalid(fmt.Errorf("%s is not a registry package: only those can be copied to %s", n.Ref, registry))
		}
		from.Digest = n.Digest
		to := from
		to.Registry = registry
		if to == from {
			return nil // already there
		}
		dst, err := opener.Open(ctx, to, store.ReadWrite)
		if err != nil {
			return err
		}
		defer dst.Close()
		res, err := transfer.Copy(ctx, n.Target.WithRef(from), dst, opts)
		if err != nil {
			return err
		}
		copied[i] = &MirroredDependency{From: from, To: to, Result: res}
		return nil
	})
	var out []MirroredDependency
	for _, c := range copied {
		if c != nil {
			out = append(out, *c)
		}
	}
	return out, err
}
