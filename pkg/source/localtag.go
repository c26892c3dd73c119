package source

import (
	"context"

	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/target"
)

// openLocalTag opens ref, a name without a registry host, in the local
// store. One the store does not have is an error that names the store's
// tags nearest to it, for the typing mistake it most likely is.
func openLocalTag(ctx context.Context, ref reference.Reference, arg string, opts Options) (*Source, error) {
	src, err := lookup(ctx, func() (*target.Target, error) { return opts.Opener.OpenLocalTag(ctx, ref) }, arg, opts)
	if err != nil {
		return nil, opts.Opener.MissingLocalTag(ctx, ref, err)
	}
	return src, nil
}
