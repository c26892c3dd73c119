package resolve

import (
	"context"

	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/target"
)

// A mirror holds a package together with what it depends on, under the
// same repository paths and tags (stax copy --with-dependencies), without
// rewriting the package: its config still names the original registries.
// So a dependency is looked for first on the registry its dependent came
// from, and on its own registry only if it is not there. For one pinned
// by digest, the digest makes both the same bytes; one listed by tag only
// (as other stax writers list them) is the tag the mirror was given. A
// mirror cut off from the original registries still resolves.

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

// lookUpMirrored looks ref up on mirror, the registry of the package
// that declared it, when that is another registry and ref names a digest
// or a tag; nil when the package is not there.
func (r *resolver) lookUpMirrored(ctx context.Context, mirror string, ref reference.Reference) *looked {
	if mirror == "" || ref.IsLayout() || (ref.Digest == "" && ref.Tag == "") || ref.Registry == mirror {
		return nil
	}
	mirrored := ref
	mirrored.Registry = mirror
	t, err := r.opts.Source.Open(ctx, mirrored)
	if err != nil {
		return nil
	}
	desc, err := t.Lookup(ctx)
	if err != nil {
		t.Close()
		return nil
	}
	r.opened(t)
	return &looked{t: t, desc: desc, held: holdBlobs(t.GraphTarget)}
}
