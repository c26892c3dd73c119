package source

import (
	"context"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/trust"
)

// TrustSource opens packages by reference and digest in the registries and
// OCI layouts opener reaches, where their signatures are.
func TrustSource(opener *target.Opener) trust.Source {
	return func(ctx context.Context, ref string, d digest.Digest) (content.ReadOnlyGraphStorage, ocispec.Descriptor, func(), error) {
		decl, err := declaration.Parse(ref, declaration.Where{})
		if err != nil {
			return nil, ocispec.Descriptor{}, nil, errdefs.Invalid(err)
		}
		r := decl.Ref
		r.Digest = d
		src, err := Lookup(ctx, func() (*target.Target, error) { return opener.Open(ctx, r, store.ReadOnly) }, ref)
		if err != nil {
			return nil, ocispec.Descriptor{}, nil, err
		}
		return src.Target, src.Descriptor, func() { src.Close() }, nil
	}
}
