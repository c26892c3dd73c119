package publish

import (
	"context"
	"fmt"

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
func CopyDependencies(ctx context.Context, g *resolve.Graph, opener *target.Opener, registry string, opts transfer.Options) ([]MirroredDependency, error) {
	direct := map[*resolve.Node]bool{}
	for _, n := range g.Direct {
		direct[n] = true
	}
	var out []MirroredDependency
	for _, n := range g.Order {
		if direct[n] {
			continue
		}
		from, err := reference.Parse(n.Ref)
		if err != nil || from.IsLayout() || n.Dir != "" {
			return out, errdefs.Invalid(fmt.Errorf("%s is not a registry package: only those can be copied to %s", n.Ref, registry))
		}
		from.Digest = n.Digest
		to := from
		to.Registry = registry
		if to == from {
			continue // already there
		}
		dst, err := opener.Open(ctx, to, store.ReadWrite)
		if err != nil {
			return out, err
		}
		res, err := transfer.Copy(ctx, n.Target.WithRef(from), dst, opts)
		dst.Close()
		if err != nil {
			return out, err
		}
		out = append(out, MirroredDependency{From: from, To: to, Result: res})
	}
	return out, nil
}
