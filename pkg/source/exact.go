package source

import (
	"context"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
)

// OpenExact opens the package arg names in one place only: an OCI
// layout, a registry repository, or with local the local store, opened in
// mode; a reference without tag or digest names the repository's default
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
	if local && !ref.IsLayout() {
		return Lookup(ctx, func() (*target.Target, error) { return opener.OpenLocal(ctx, ref, mode) }, arg)
	}
	return Lookup(ctx, func() (*target.Target, error) { return opener.Open(ctx, ref, mode) }, arg)
}
