package workflow

import (
	"context"

	"github.com/stax-dev/stax/pkg/diff"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/source"
)

// DiffOptions say which two packages Diff compares.
type DiffOptions struct {
	// A and B are the packages: references, oci:PATH[:TAG|@DIGEST] or
	// package directories. Required.
	A, B string
	// Build shapes a package built from a directory, as pack builds it,
	// so that its digest is the one pack prints; its MaxSize bounds the
	// skills layers read or built (0 is layers.DefaultMaxSize, negative
	// no limit).
	Build pack.Options
	// Scope is where a reference is looked up; the zero value is the
	// local store, then the registry.
	Scope source.Scope
	// Built, when set, is told of each package built from a directory as
	// soon as it is built, with its diagnostics and notices; nil ignores
	// them.
	Built func(*pack.Result)
}

// Diff compares two packages: their metadata, and their skills file by
// file (see diff.Packages).
func Diff(ctx context.Context, env *Env, opts DiffOptions) (*diff.PackageResult, error) {
	var srcs [2]*source.Source
	for i, arg := range []string{opts.A, opts.B} {
		src, err := env.open(ctx, arg, opts.Build, opts.Scope)
		if err != nil {
			return nil, err
		}
		defer src.Close()
		if src.Built != nil && opts.Built != nil {
			opts.Built(src.Built)
		}
		srcs[i] = src
	}
	return diff.Packages(ctx, srcs[0], srcs[1])
}
