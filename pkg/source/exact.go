package source

import (
	"context"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
)

// OpenExact opens the package arg names in one place only: an OCI
// layout, a registry repository, or with local, or for a name without a
// registry host, the local store, opened in mode; a reference without tag or digest names the repository's default
// (target.DefaultTag). Unlike Open it never
// falls back from one place to another: a signature is attached to, and
// looked for in, one place.
func OpenExact(ctx context.Context, opener *target.Opener, arg string, local bool, mode store.Mode) (*Source, error) {
	d, err := declaration.Parse(arg, declaration.Where{})
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	ref := d.Ref
	if ref.IsLayout() {
		// Even to sign a package in it, the layout must be one already.
		if err := store.CheckLayout(ref.Layout); err != nil {
			return nil, err
		}
	}
	// A name without a registry host is a tag of the local store, as
	// pack -t writes it and install reads it: not docker.io/library/NAME.
	if (local || d.Kind == declaration.Registry && !d.IsRemote()) && !ref.IsLayout() {
		return Lookup(ctx, func() (*target.Target, error) { return opener.OpenLocal(ctx, ref, mode) }, arg)
	}
	return Lookup(ctx, func() (*target.Target, error) { return opener.Open(ctx, ref, mode) }, arg)
}
