// Package bumprule holds the rule a new release of a package follows: a
// skill whose stateful files (MEMORY.md, EXAMPLES.md, CALIBRATION.md)
// changed since the published package it follows must have its version
// bumped. push applies it to the package it builds, and validate
// --against to a skills directory; both read the published package with
// the limits of the command.
package bumprule

import (
	"context"
	"slices"

	"github.com/opencontainers/go-digest"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/validate"
)

// Check holds a package built for a push to the release rule: a skill
// whose MEMORY.md, EXAMPLES.md or CALIBRATION.md changed since
// the published package it follows must have its version bumped. That
// package is against when it is set, or else the one the destination's tags say came
// before: the same tag if it exists, else the highest semantic version
// below it. A repository with nothing before has nothing to compare with.
func Check(ctx context.Context, opts source.Options, against string, dst reference.Reference, built *pack.Result) (Seen, error) {
	var seen Seen
	if built.Report == nil {
		return seen, nil
	}
	ref := against
	opts.Scope = source.LocalThenRemote
	ownTag := false
	if ref == "" {
		prev, newTag, err := Previous(ctx, opts.Opener, dst, built.Definition.Version)
		seen.NewTag = newTag
		if err != nil || prev == nil {
			return seen, err
		}
		ref, opts.Scope, ownTag = prev.String(), source.RemoteOnly, !newTag
	}
	src, err := source.Open(ctx, ref, opts)
	if err != nil {
		return seen, err
	}
	defer src.Close()
	if ownTag {
		seen.Tagged = src.Descriptor.Digest
	}
	// The published package may be the very one built (an unchanged
	// re-push): nothing changed, and nothing of it needs reading.
	if src.Descriptor.Digest != built.Descriptor.Digest {
		pkg, err := src.Package(ctx)
		if err != nil {
			return seen, err
		}
		// The configs' skill digests cover every file of a skill: only a
		// skill that changed can have changed stateful files, and only
		// then is the published layer worth downloading.
		if changedSkills(built.Config, pkg.Config) {
			if err := compare(ctx, src, pkg, built.Report); err != nil {
				return seen, err
			}
		}
	}
	if !built.Report.Valid {
		return seen, errdefs.Invalid(&pack.InvalidError{Dir: built.Definition.Name + " (compared with " + ref + ")", Report: built.Report})
	}
	return seen, nil
}

// Seen is what Check learnt of the destination on the way, which spares
// the push asking again.
type Seen struct {
	// NewTag is set when Check listed the destination's tags and the tag
	// the push goes to was not among them.
	NewTag bool
	// Tagged is the digest the destination's tag names, when Check looked
	// it up (the tag existed and no --against was given); empty otherwise.
	Tagged digest.Digest
}

// changedSkills reports whether a skill of built is in published with
// other content.
func changedSkills(built, published *artifact.Config) bool {
	before := map[string]digest.Digest{}
	for _, s := range published.Skills {
		before[s.Path] = s.Digest
	}
	for _, s := range built.Skills {
		if d, ok := before[s.Path]; ok && d != s.Digest {
			return true
		}
	}
	return false
}

// Previous is the reference of the package a push to dst follows, or nil
// when the destination holds none. newTag reports that the destination's
// tags were listed and dst's tag (version, when dst has none) is not
// among them.
func Previous(ctx context.Context, opener *target.Opener, dst reference.Reference, version string) (prev *reference.Reference, newTag bool, err error) {
	if dst.Digest != "" {
		return nil, false, nil
	}
	if dst.Tag == "" {
		dst.Tag = version
	}
	if dst.IsLayout() && store.CheckLayout(dst.Layout) != nil {
		return nil, false, nil // no layout yet: nothing was released into it
	}
	t, err := opener.Open(ctx, dst, store.ReadOnly)
	if err != nil {
		return nil, false, err
	}
	defer t.Close()
	tags, err := t.Tags(ctx)
	if err != nil {
		return nil, false, err
	}
	newTag = !slices.Contains(tags, dst.Tag)
	tag, ok := PrecedingTag(tags, dst.Tag)
	if !ok {
		return nil, newTag, nil
	}
	dst.Tag = tag
	return &dst, newTag, nil
}

// PrecedingTag picks from tags the one a release tagged tag follows.
func PrecedingTag(tags []string, tag string) (string, bool) {
	if slices.Contains(tags, tag) {
		return tag, true
	}
	current, err := semver.Parse(tag)
	if err != nil {
		return "", false
	}
	best, found := semver.Version{}, ""
	for _, candidate := range tags {
		v, err := semver.Parse(candidate)
		if err != nil || semver.Compare(v, current) >= 0 {
			continue
		}
		if found == "" || semver.Compare(v, best) > 0 {
			best, found = v, candidate
		}
	}
	return found, found != ""
}

// Against adds to report the skills whose stateful files changed since
// the package published at ref without a version bump. The published layer is read through the safe layer reader and
// hashed file by file; nothing is extracted.
func Against(ctx context.Context, ref string, opts source.Options, report *validate.Report) error {
	src, pkg, err := source.OpenPackage(ctx, ref, opts)
	if err != nil {
		return err
	}
	defer src.Close()
	return compare(ctx, src, pkg, report)
}

// compare is Against on a package already open.
func compare(ctx context.Context, src *source.Source, pkg *artifact.Package, report *validate.Report) error {
	snap, err := src.Snapshot(ctx, pkg)
	if err != nil {
		return err
	}
	if err := report.CheckAgainst(validate.PublishedFrom(src.Name, snap)); err != nil {
		return errdefs.MarkLocal(err)
	}
	return nil
}
