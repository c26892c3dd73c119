package workflow

import (
	"context"

	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/source"
)

// ResolveOptions say which package Resolve looks up, and where.
type ResolveOptions struct {
	// Ref is a reference, an oci: layout or a package directory. Required.
	Ref string
	// Build builds a package directory as pack builds it; its zero value
	// is pack's defaults.
	Build pack.Options
	// Scope is where a reference is looked up; the zero value is the
	// local store first, then the registry.
	Scope source.Scope
}

// ResolveResult names the manifest a reference resolved to.
type ResolveResult struct {
	Reference string `json:"reference"`
	Digest    string `json:"digest"`
	MediaType string `json:"mediaType"`
	Size      int64  `json:"size"`
	// Source says where it was found: a directory, the store, a layout or
	// a registry.
	Source string `json:"source"`
}

// Resolve finds the digest of the manifest opts.Ref names, reading
// nothing else.
func Resolve(ctx context.Context, env *Env, opts ResolveOptions) (*ResolveResult, error) {
	src, err := env.open(ctx, opts.Ref, opts.Build, opts.Scope)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return &ResolveResult{
		Reference: src.Name, Digest: src.Descriptor.Digest.String(),
		MediaType: src.Descriptor.MediaType, Size: src.Descriptor.Size, Source: string(src.Kind),
	}, nil
}
