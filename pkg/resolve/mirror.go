package resolve

import (
	"context"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// A mirror holds a package together with what it depends on, under the
// same repository paths (stax copy --with-dependencies), without
// rewriting the package: its config still names the original registries.
// So a dependency pinned by digest is looked for first on the registry
// its dependent came from, and on its own registry only if it is not
// there. The digest makes both the same bytes; a mirror cut off from the
// original registries still resolves.

// noteMirror records that decl, a dependency, was declared by a package
// read from parent.
func (r *resolver) noteMirror(decl string, parent *target.Target) {
	if parent == nil || parent.Kind != target.KindRemote {
		return
	}
	if r.mirrors == nil {
		r.mirrors = map[string]string{}
	}
	r.mirrors[decl] = parent.Ref.Registry
}

// openMirrored opens ref on the registry of the package that declared it,
// when that is another registry and ref is pinned by digest; ok is false
// when the package is not there.
func (r *resolver) openMirrored(decl string, ref reference.Reference) (*target.Target, ocispec.Descriptor, bool) {
	host, ok := r.mirrors[decl]
	if !ok || ref.IsLayout() || ref.Digest == "" || ref.Registry == host {
		return nil, ocispec.Descriptor{}, false
	}
	mirrored := ref
	mirrored.Registry = host
	t, err := r.opts.Opener.Open(r.ctx, mirrored, store.ReadOnly)
	if err != nil {
		return nil, ocispec.Descriptor{}, false
	}
	desc, err := t.Lookup(r.ctx)
	if err != nil {
		t.Close()
		return nil, ocispec.Descriptor{}, false
	}
	return t, desc, true
}

// MirroredDependency is a dependency CopyDependencies copied.
type MirroredDependency struct {
	From, To reference.Reference
	Result   *transfer.Result
}

// CopyDependencies copies every package g's direct packages depend on to
// the same repository path and tag on registry, pinned to the digest the
// dependent recorded; the packages themselves are not rewritten. Pulls of
// the copies from registry then find the dependencies there (see
// openMirrored), with no access to the original registries.
func CopyDependencies(ctx context.Context, g *Graph, opener *target.Opener, registry string, opts transfer.Options) ([]MirroredDependency, error) {
	direct := map[*Node]bool{}
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
