package diff

import (
	"context"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/snapshot"
	"github.com/stax-dev/stax/pkg/source"
)

// PackageResult compares two packages: their skills file for file, and
// their own fields for information.
type PackageResult struct {
	// Identical says A and B hold the same skills, file for file; the
	// package metadata does not count.
	Identical bool `json:"identical"`
	A         Side `json:"a"`
	B         Side `json:"b"`
	// Metadata compares the packages' own fields, for information.
	Metadata []FieldChange `json:"metadata"`
	*Result
}

// Side names one of the packages compared.
type Side struct {
	Reference string `json:"reference"`
	// Source is local, layout, remote, or directory for one built on the fly.
	Source  string        `json:"source"`
	Digest  digest.Digest `json:"digest"`
	Name    string        `json:"name"`
	Version string        `json:"version"`
}

// Packages compares the packages a and b. Their skills layers are streamed
// through the safe layer reader with the sources' limits, never extracted;
// two layers with one digest are not read at all, as nothing in them can
// differ. Notices of either package are kept, labelled A: and B:.
func Packages(ctx context.Context, a, b *source.Source) (*PackageResult, error) {
	var pkgs [2]*artifact.Package
	for i, src := range []*source.Source{a, b} {
		pkg, err := src.Package(ctx)
		if err != nil {
			return nil, err
		}
		pkgs[i] = pkg
	}
	snaps := [2]*snapshot.Snapshot{snapshot.Empty(), snapshot.Empty()}
	if pkgs[0].Skills == nil || pkgs[1].Skills == nil || pkgs[0].Skills.Digest != pkgs[1].Skills.Digest {
		for i, src := range []*source.Source{a, b} {
			snap, err := src.Snapshot(ctx, pkgs[i])
			if err != nil {
				return nil, err
			}
			snaps[i] = snap
		}
	}
	res := &PackageResult{
		A: side(a, pkgs[0]), B: side(b, pkgs[1]),
		Metadata: Fields(metadataFields(pkgs[0].Config), metadataFields(pkgs[1].Config)),
		Result:   Compare(snaps[0], snaps[1]),
	}
	res.Identical = res.Result.Identical()
	for i, label := range []string{"A", "B"} {
		for _, n := range pkgs[i].Notices {
			res.Notices = append(res.Notices, label+": "+n)
		}
	}
	return res, nil
}

func side(src *source.Source, pkg *artifact.Package) Side {
	kind := string(src.Kind)
	if src.Built != nil {
		kind = "directory"
	}
	return Side{
		Reference: src.Name, Source: kind, Digest: src.Descriptor.Digest,
		Name: pkg.Config.Name, Version: pkg.Config.Version,
	}
}

// metadataFields are the fields of a package's config that stax.yaml sets,
// the empty ones left out so that absent and empty compare equal.
func metadataFields(c *artifact.Config) map[string]any {
	m := map[string]any{}
	for k, v := range map[string]string{
		"name": c.Name, "version": c.Version, "description": c.Description,
		"author": c.Author, "license": c.License,
	} {
		if v != "" {
			m[k] = v
		}
	}
	if len(c.Tags) > 0 {
		tags := make([]any, len(c.Tags))
		for i, t := range c.Tags {
			tags[i] = t
		}
		m["tags"] = tags
	}
	return m
}
