package workflow

import (
	"context"
	"fmt"
	"slices"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/stateful"
	"github.com/stax-dev/stax/pkg/target"
)

// InspectOptions say which package Inspect reads.
type InspectOptions struct {
	// Ref is the package: a reference, oci:PATH[:TAG|@DIGEST], or a
	// package directory. Required.
	Ref string
	// Build shapes a package built from a directory; its MaxSize bounds
	// the skills layer read or built (0 is layers.DefaultMaxSize,
	// negative no limit). The zero value builds as pack does by default.
	Build pack.Options
	// Scope is where a reference is looked up; the zero value is the
	// local store, then the registry.
	Scope source.Scope
}

// InspectResult is a package's manifest, config and skills.
type InspectResult struct {
	Reference string `json:"reference"`
	// Source is where the package was read: local, layout or remote.
	Source     string             `json:"source"`
	Descriptor ocispec.Descriptor `json:"descriptor"`
	Manifest   ocispec.Manifest   `json:"manifest"`
	Config     *artifact.Config   `json:"config"`
	Skills     []InspectedSkill   `json:"skills"`
	// NotInstalled are the layers stax does not install: rules, prompt,
	// MCP server configs and the other layers of an agent artifact.
	NotInstalled []NotInstalledLayer `json:"notInstalled"`
	Notices      []string            `json:"notices"`
}

// NotInstalledLayer is a layer of an inspected package that stax does
// not install, with its kind (artifact.LayerKind).
type NotInstalledLayer struct {
	Kind string `json:"kind"`
	ocispec.Descriptor
}

// InspectedSkill is one skill of an inspected package.
type InspectedSkill struct {
	artifact.SkillRecord
	// Verified says the layer's files hash to the digest the config
	// lists; absent when the layer was not read (a remote package).
	Verified    *bool          `json:"verified,omitempty"`
	Files       int            `json:"files"`
	Frontmatter map[string]any `json:"frontmatter"`
	// Stateful lists the skill's MEMORY.md, EXAMPLES.md and CALIBRATION.md
	// with their counts; absent when the layer was not read.
	Stateful *stateful.Summary `json:"stateful,omitempty"`
	// FromLayer says the config lists no skills (as other stax writers'
	// configs do) and the record was read off the skills layer, so there
	// is no digest in the config to check it against.
	FromLayer bool `json:"fromLayer,omitempty"`
}

// Mismatched reports whether the layer was read and the skill's files in
// it are not what the config records.
func (s *InspectedSkill) Mismatched() bool { return s.Verified != nil && !*s.Verified }

// Mismatched reports whether a skill does not match the config: a package
// that fails verification.
func (r *InspectResult) Mismatched() bool {
	return slices.ContainsFunc(r.Skills, func(s InspectedSkill) bool { return s.Mismatched() })
}

// Inspect reads a package's manifest and config and lists its skills. The
// skills layer of a local package (the store, a layout or a directory) is
// read once and each skill checked against the digest the config records;
// a remote package's layer is fetched only when its config lists no
// skills, and its skills otherwise come from the config. A skill that does
// not match is a notice, and Mismatched says so. The layers stax does not
// install are listed with their kinds.
func Inspect(ctx context.Context, env *Env, opts InspectOptions) (*InspectResult, error) {
	src, err := env.open(ctx, opts.Ref, opts.Build, opts.Scope)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	pkg, err := src.Package(ctx)
	if err != nil {
		return nil, err
	}
	res := &InspectResult{
		Reference: src.Name, Source: string(src.Kind), Descriptor: src.Descriptor, Manifest: pkg.Manifest,
		Config: pkg.Config, Notices: append([]string{}, pkg.Notices...), NotInstalled: []NotInstalledLayer{},
	}
	for _, l := range pkg.NotInstalled() {
		res.NotInstalled = append(res.NotInstalled, NotInstalledLayer{Kind: artifact.LayerKind(l.MediaType), Descriptor: l})
	}
	if src.Kind == target.KindRemote && (len(pkg.Config.Skills) > 0 || pkg.Skills == nil) {
		res.Skills = configSkills(pkg)
	} else if res.Skills, err = inspectSkills(ctx, src, pkg); err != nil {
		return nil, err
	}
	for _, s := range res.Skills {
		if s.Mismatched() {
			res.Notices = append(res.Notices, fmt.Sprintf("skill %s: layer content does not match the config digest %s", s.Path, s.Digest))
		}
	}
	return res, nil
}

// inspectSkills reads the skills layer once and pairs what it holds with
// the config's records.
func inspectSkills(ctx context.Context, src *source.Source, pkg *artifact.Package) ([]InspectedSkill, error) {
	snap, err := src.Snapshot(ctx, pkg)
	if err != nil {
		return nil, err
	}
	records, fromLayer := pkg.Config.Skills, len(pkg.Config.Skills) == 0
	if fromLayer {
		records = snap.Records()
	}
	skills := make([]InspectedSkill, 0, len(records))
	for _, rec := range records {
		s, ok := snap.Skills[rec.Path]
		item := InspectedSkill{SkillRecord: rec, FromLayer: fromLayer}
		if !fromLayer {
			verified := ok && s.Digest() == rec.Digest
			item.Verified = &verified
		}
		if ok {
			item.Files, item.Frontmatter = len(s.Files), s.Frontmatter
			item.Stateful = &s.Stateful
		}
		skills = append(skills, item)
	}
	return skills, nil
}

// configSkills lists the skills the config records, for a package whose
// layer is not read.
func configSkills(pkg *artifact.Package) []InspectedSkill {
	skills := make([]InspectedSkill, 0, len(pkg.Config.Skills))
	for _, rec := range pkg.Config.Skills {
		skills = append(skills, InspectedSkill{SkillRecord: rec})
	}
	return skills
}
