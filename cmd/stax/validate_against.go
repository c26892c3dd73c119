package main

import (
	"context"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/validate"
)

// checkAgainst adds to report the skills whose stateful files changed
// since the package published at ref without a version bump (seed 000
// §8). The published layer is read through the safe layer reader and
// hashed file by file; nothing is extracted.
func checkAgainst(ctx context.Context, ref string, opts source.Options, report *validate.Report) error {
	src, pkg, err := source.OpenPackage(ctx, ref, opts)
	if err != nil {
		return err
	}
	defer src.Close()
	return compareWithPublished(ctx, src, pkg, report)
}

// compareWithPublished is checkAgainst on a package already open.
func compareWithPublished(ctx context.Context, src *source.Source, pkg *artifact.Package, report *validate.Report) error {
	snap, err := src.Snapshot(ctx, pkg)
	if err != nil {
		return err
	}
	if err := report.CheckAgainst(validate.PublishedFrom(src.Name, snap)); err != nil {
		return errdefs.IO(err)
	}
	return nil
}
