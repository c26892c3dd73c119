package workflow

import (
	"context"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/validate"
)

// PackOptions say what Pack builds, how, and where it tags it.
type PackOptions struct {
	// Dir is a package root holding stax.yaml, or a bare skills
	// directory. Required.
	Dir string
	// Tag names where the package is tagged: NAME[:TAG] in the local
	// store, or oci:PATH[:TAG] in a layout; a tag left out is the package
	// version. Empty is NAME:VERSION in the local store. A digest is
	// refused: it is computed, not chosen.
	Tag string
	// Build shapes the package: overrides of stax.yaml, strictness,
	// symlinks and the creation time. Build.MaxSize bounds the packages it
	// depends on too; 0 is layers.DefaultMaxSize, negative no limit.
	Build pack.Options
}

// PackResult is the package Pack built.
type PackResult struct {
	// Reference is where the package is tagged.
	Reference    string               `json:"reference"`
	Digest       string               `json:"digest"`
	MediaType    string               `json:"mediaType"`
	ArtifactType string               `json:"artifactType"`
	Size         int64                `json:"size"`
	Layers       []ocispec.Descriptor `json:"layers"`
	Skills       int                  `json:"skills"`
	// Warnings are what validation found likely to surprise.
	Warnings []validate.Diagnostic `json:"warnings"`
	// Notices are the defaults the build filled in.
	Notices []string `json:"notices"`
	// Name and Version are the package's, as built.
	Name    string `json:"-"`
	Version string `json:"-"`
}

// Pack validates the skills of a directory, builds the package, stores
// it in the local store or an OCI layout, and tags it. The build is
// reproducible: the same files and options give the same digest. A layout
// the build created is removed when it fails.
func Pack(ctx context.Context, env *Env, opts PackOptions) (*PackResult, error) {
	var tagRef *reference.Reference
	if opts.Tag != "" {
		ref, err := reference.Parse(opts.Tag)
		if err != nil {
			return nil, errdefs.Invalid(err)
		}
		if ref.Digest != "" {
			return nil, errdefs.Invalid(fmt.Errorf("--tag %s: a digest is computed, not chosen; give a tag", opts.Tag))
		}
		tagRef = &ref
	}
	p, err := staxyaml.Open(opts.Dir)
	if err != nil {
		return nil, err
	}
	// The dependencies are resolved, local tags read, before the
	// destination is opened: its lock (the store's, or an oci: layout's)
	// is not held through lookups in registries, and is the last taken.
	build := opts.Build
	build.Project = p
	if build.Dependencies, err = resolve.Dependencies(resolve.Options{Source: cache.New(env.Opener, nil), Limits: layers.Limits{MaxSize: opts.Build.MaxSize}}).Resolve(ctx, p, opts.Build); err != nil {
		return nil, err
	}
	dst, err := env.packDestination(ctx, tagRef)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	res, err := buildInto(ctx, dst, tagRef, build)
	if err != nil {
		return nil, target.DiscardAfter(dst, err)
	}
	out := &PackResult{
		Reference: dst.Ref.Familiar(), Digest: res.Descriptor.Digest.String(),
		MediaType: res.Descriptor.MediaType, ArtifactType: res.Descriptor.ArtifactType,
		Size: res.Descriptor.Size, Layers: res.Layers, Skills: len(res.Config.Skills),
		Warnings: []validate.Diagnostic{}, Notices: res.Notices,
		Name: res.Definition.Name, Version: res.Definition.Version,
	}
	if res.Report != nil {
		out.Warnings = res.Report.Warnings
	}
	if out.Notices == nil {
		out.Notices = []string{}
	}
	return out, nil
}

// packDestination opens the layout an oci: tag names, else the local
// store.
func (e *Env) packDestination(ctx context.Context, tagRef *reference.Reference) (*target.Target, error) {
	if tagRef != nil && tagRef.IsLayout() {
		return e.Opener.Open(ctx, *tagRef, store.ReadWrite)
	}
	return e.Opener.OpenLocal(ctx, reference.Reference{}, store.ReadWrite)
}

// buildInto builds the package build says into dst and tags it there, as
// tagRef says or as its name and version say.
func buildInto(ctx context.Context, dst *target.Target, tagRef *reference.Reference, build pack.Options) (*pack.Result, error) {
	res, err := pack.Build(ctx, dst, build)
	if err != nil {
		return nil, err
	}
	if dst.Ref, err = tagReference(tagRef, res.Definition); err != nil {
		return nil, err
	}
	if err := dst.TagAs(ctx, res.Descriptor); err != nil {
		return nil, err
	}
	return res, nil
}

// tagReference is tagRef with its tag defaulted to the package version,
// or NAME:VERSION without tagRef.
func tagReference(tagRef *reference.Reference, def staxyaml.Definition) (reference.Reference, error) {
	if tagRef == nil {
		ref, err := reference.Parse(def.Name + ":" + def.Version)
		return ref, errdefs.Invalid(err)
	}
	ref := *tagRef
	if ref.Tag == "" {
		ref.Tag = def.Version
	}
	return ref, nil
}
