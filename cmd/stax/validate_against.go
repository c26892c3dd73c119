package main

import (
	"context"
	"fmt"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/exitcode"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/validate"
)

// checkAgainst adds to report the skills whose stateful files changed
// since the package published at ref without a version bump (seed 000
// §8). The published layer is read through the safe layer reader and
// hashed file by file; nothing is extracted.
func checkAgainst(ctx context.Context, opener *target.Opener, ref string, scope sourceScope, report *validate.Report) error {
	src, pkg, err := openPackage(ctx, opener, ref, scope, layers.DefaultMaxSize)
	if err != nil {
		return err
	}
	defer src.Close()
	return compareWithPublished(ctx, src, pkg, report)
}

// compareWithPublished is checkAgainst on a package already open.
func compareWithPublished(ctx context.Context, src *source, pkg *artifact.Package, report *validate.Report) error {
	ref := src.Name
	pub := &validate.Published{Name: ref, Versions: map[string]string{}}
	if pkg.Skills != nil {
		rc, err := pkg.OpenSkills(ctx, src)
		if err != nil {
			return exitcode.Wrap(exitcode.FileSystem, fmt.Errorf("%s: %w", ref, err))
		}
		defer rc.Close()
		opts := layers.ReadOptions{MaxSize: layers.DefaultMaxSize, Digest: pkg.Skills.Digest}
		if pub, err = validate.ReadPublished(ref, rc, opts); err != nil {
			return exitcode.Wrap(exitcode.Verification, err)
		}
	}
	if err := report.CheckAgainst(pub); err != nil {
		return exitcode.Wrap(exitcode.FileSystem, err)
	}
	return nil
}
