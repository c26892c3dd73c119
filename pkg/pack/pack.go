// Package pack builds a stax package artifact from a package root: it
// validates the skills, streams the skills layer into a content store, and
// writes the config and manifest.
package pack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/scratch"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/validate"
)

// Options control a build.
type Options struct {
	Project *staxyaml.Project
	// Overrides replace the fields of stax.yaml they set (from flags).
	Overrides staxyaml.Definition
	Strict    bool
	Symlinks  layers.SymlinkMode
	// Limits bound the package built: its MaxSize the uncompressed skills
	// layer (see layers.WriteOptions).
	layers.Limits
	// Created is the manifest's creation time; the zero value means the
	// Unix epoch, so that builds are reproducible by default.
	Created time.Time
	// Dependencies are the package's declared packages, resolved to
	// digests; Build refuses a definition that declares packages without
	// them, since it cannot resolve references itself.
	Dependencies []artifact.PackageRef
	// Publish builds the package to be published: its dependencies are
	// resolved and recorded by reference, never by directory, since its
	// consumers have no such directory. The zero value builds for the
	// source checkout, where directories resolve.
	Publish bool
	// Parts, when set, are the skills of the package in place of the
	// project's skills directory: each skill directory name is the
	// directory on disk that holds it, inside the project's root (see
	// layers.ScanOptions.Parts).
	Parts map[string]string
	// Lenient builds a package of someone else's skills: the content
	// rules they break are warnings, or with Strict all errors but the
	// advice to the author (validate.Options.Lenient).
	Lenient bool
	// Annotations are added to the manifest's (the source and revision
	// of a package built from a repository).
	Annotations map[string]string
}

// Result is a built package.
type Result struct {
	Descriptor ocispec.Descriptor
	Definition staxyaml.Definition
	Config     *artifact.Config
	// ConfigDescriptor is the config blob Config was encoded into.
	ConfigDescriptor ocispec.Descriptor
	// Layers are all the manifest's layers, as written.
	Layers []ocispec.Descriptor
	Report *validate.Report
	// Notices are defaults the build filled in.
	Notices []string
}

// InvalidError is the error of a build whose skills do not validate; its
// message lists every error, so whoever prints it shows what to fix.
type InvalidError struct {
	Dir    string
	Report *validate.Report
}

func (e *InvalidError) Error() string {
	var b strings.Builder
	noun := "errors"
	if len(e.Report.Errors) == 1 {
		noun = "error"
	}
	fmt.Fprintf(&b, "the skills in %s do not validate (%d %s):", e.Dir, len(e.Report.Errors), noun)
	for _, d := range e.Report.Errors {
		b.WriteString("\n  " + d.Format("error"))
	}
	return b.String()
}

// A Resolver resolves the packages a project declares to the records of
// them its package keeps. Package resolve implements it (see
// resolve.Dependencies): pack cannot resolve them itself, since a declared
// package directory is resolved by building it, with pack.
type Resolver interface {
	// Resolve resolves the packages p declares. build is how p is built
	// (for publishing or for the source checkout), and so how the package
	// directories among them are built.
	Resolve(ctx context.Context, p *staxyaml.Project, build Options) ([]artifact.PackageRef, error)
}

// Project builds the package of p into pusher: resolver resolves the
// packages p declares, then Build validates p and pushes its package with
// them recorded. A nil resolver builds a project that declares none.
func Project(ctx context.Context, p *staxyaml.Project, pusher content.Pusher, resolver Resolver, opts Options) (*Result, error) {
	var deps []artifact.PackageRef
	if resolver != nil {
		var err error
		if deps, err = resolver.Resolve(ctx, p, opts); err != nil {
			return nil, err
		}
	}
	opts.Project, opts.Dependencies = p, deps
	return Build(ctx, pusher, opts)
}

// Build validates opts.Project and pushes its package into pusher.
func Build(ctx context.Context, pusher content.Pusher, opts Options) (*Result, error) {
	def, notices := effectiveDefinition(opts.Project, opts.Overrides)
	if err := def.Check(); err != nil {
		return nil, errdefs.Invalid(err)
	}
	res := &Result{Definition: def, Notices: notices}

	report, err := validateSkills(opts)
	if err != nil {
		return nil, err
	}
	res.Report = report
	if report != nil && !report.Valid {
		return res, errdefs.Invalid(&InvalidError{Dir: opts.Project.SkillsDir, Report: report})
	}

	cfg := &artifact.Config{
		SpecVersion: artifact.SpecVersion,
		Kind:        artifact.KindPackage,
		Name:        def.Name,
		Version:     def.Version,
		Description: def.Description,
		Author:      def.Author,
		License:     def.License,
		Tags:        def.Tags,
	}
	if len(def.Packages) != len(opts.Dependencies) {
		return res, errdefs.Resolution(fmt.Errorf("%s declares %d packages but %d were resolved", opts.Project.Root, len(def.Packages), len(opts.Dependencies)))
	}
	cfg.Packages = opts.Dependencies
	if opts.Publish {
		if err := CheckPublishable(def.Name, cfg.Packages); err != nil {
			return res, err
		}
	}
	var layerDescs []ocispec.Descriptor
	if report != nil && len(report.Skills) > 0 {
		cfg.Skills = skillRecords(report)
		written, err := pushSkillsLayer(ctx, pusher, report.Layer, opts.MaxSize, cfg.Skills)
		if err != nil {
			return res, err
		}
		desc := artifact.SkillsLayer(written, len(cfg.Skills))
		layerDescs = append(layerDescs, desc)
	}
	if len(cfg.Packages) > 0 {
		desc, err := artifact.PushPackagesLayer(ctx, pusher, cfg.Packages)
		if err != nil {
			return res, errdefs.MarkLocal(err)
		}
		layerDescs = append(layerDescs, desc)
	}
	created := opts.Created
	if created.IsZero() {
		created = time.Unix(0, 0)
	}
	res.Descriptor, res.ConfigDescriptor, err = artifact.PackManifestAnnotated(ctx, pusher, cfg, layerDescs, created, opts.Annotations)
	if err != nil {
		return res, errdefs.MarkLocal(err)
	}
	res.Layers = layerDescs
	if len(res.Layers) == 0 {
		res.Layers = []ocispec.Descriptor{ocispec.DescriptorEmptyJSON}
	}
	res.Config = cfg
	return res, nil
}

// validateSkills validates the skills of opts.Project (ValidateSkills).
func validateSkills(opts Options) (*validate.Report, error) {
	return ValidateSkills(opts.Project, validate.Options{Strict: opts.Strict, Symlinks: opts.Symlinks, Parts: opts.Parts, Lenient: opts.Lenient})
}

// ValidateSkills validates the skills of p as a build does, with opts
// but for the directories, which are p's. It returns nil for a package
// root without a skills directory that has dependencies: a package may
// carry only those. A skills directory stax.yaml names must exist; a
// package with neither skills nor dependencies is empty, which the
// no-skills warning says.
func ValidateSkills(p *staxyaml.Project, opts validate.Options) (*validate.Report, error) {
	if _, err := os.Stat(p.SkillsDir); errors.Is(err, fs.ErrNotExist) && p.Definition != nil && opts.Parts == nil {
		switch {
		case p.Definition.Skills != "":
			return nil, errdefs.MarkLocal(fmt.Errorf("%s: skills: %s names a directory that does not exist (%s): create it, or correct the path",
				filepath.Join(p.Root, staxyaml.FileName), p.Definition.Skills, p.SkillsDir))
		case len(p.Definition.Packages) > 0:
			return nil, nil
		}
		return emptyReport(p.SkillsDir, opts.Strict), nil
	}
	opts.Root, opts.PackageRoot = p.SkillsDir, p.Root
	if p.Definition == nil {
		// One skill of a package, given in its place, is told to give the
		// package (see validate.Options.Package).
		if _, err := os.Stat(filepath.Join(p.Root, skill.FileName)); err == nil {
			if held, err := staxyaml.PackageOfSkillsDir(filepath.Dir(p.Root)); err == nil && held != nil {
				opts.Package = held.Root
			}
		}
	}
	report, err := validate.Dir(opts)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	return report, nil
}

// layoutTarget is a pusher that stores blobs in an OCI layout directory
// (see target.Target): the layer is written there in place.
type layoutTarget interface {
	LayoutDir() string
}

// pushSkillsLayer streams the layer into pusher, hashing it as it is
// written, and sets the digest of each skill in records. Into a local store or
// layout it goes straight to the layout's ingest directory, then into
// place. Elsewhere it goes to a temporary file first: a content store
// needs the digest before the bytes.
func pushSkillsLayer(ctx context.Context, pusher content.Pusher, layer *layers.Outline, maxSize int64, records []artifact.SkillRecord) (layers.WriteResult, error) {
	write := func(w io.Writer) (layers.WriteResult, error) {
		return layer.Write(w, layers.WriteOptions{Limits: layers.Limits{MaxSize: maxSize}}, recordDigests(records))
	}
	if lt, ok := pusher.(layoutTarget); ok && lt.LayoutDir() != "" {
		var written layers.WriteResult
		var writeErr error
		err := store.WriteBlob(lt.LayoutDir(), func(w io.Writer) (digest.Digest, error) {
			written, writeErr = write(w)
			return written.Digest, writeErr
		})
		switch {
		case writeErr != nil:
			return written, errdefs.Invalid(fmt.Errorf("write skills layer: %w", writeErr))
		case err != nil:
			return written, errdefs.MarkLocal(fmt.Errorf("store skills layer: %w", err))
		}
		return written, nil
	}

	// In a scratch directory, which the next run removes if this one is
	// killed.
	dir, release, err := scratch.Dir("layer")
	if err != nil {
		return layers.WriteResult{}, errdefs.MarkLocal(fmt.Errorf("create layer file: %w", err))
	}
	defer release()
	tmp, err := os.Create(filepath.Join(dir, "skills.tar.gz"))
	if err != nil {
		return layers.WriteResult{}, errdefs.MarkLocal(fmt.Errorf("create layer file: %w", err))
	}
	defer tmp.Close()

	written, err := write(tmp)
	if err != nil {
		return written, errdefs.Invalid(fmt.Errorf("write skills layer: %w", err))
	}
	if _, err := tmp.Seek(0, 0); err != nil {
		return written, errdefs.MarkLocal(fmt.Errorf("rewind layer file: %w", err))
	}
	desc := ocispec.Descriptor{MediaType: layers.MediaTypeSkills, Digest: written.Digest, Size: written.Size}
	if storage, ok := pusher.(content.ReadOnlyStorage); ok {
		if exists, err := storage.Exists(ctx, desc); err == nil && exists {
			return written, nil
		}
	}
	if err := pusher.Push(ctx, desc, tmp); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return written, errdefs.MarkLocal(fmt.Errorf("store skills layer %s: %w", desc.Digest, err))
	}
	return written, nil
}

// emptyReport is the report of a package with no skills and no
// dependencies: valid, with the no-skills warning, unless strict.
func emptyReport(dir string, strict bool) *validate.Report {
	d := validate.Diagnostic{File: dir, Code: validate.CodeNoSkills,
		Message: "no skills found and no packages: the package is empty; add skill directories, each with a SKILL.md"}
	r := &validate.Report{Valid: !strict, Skills: []validate.Skill{}, Errors: []validate.Diagnostic{}, Warnings: []validate.Diagnostic{d}}
	if strict {
		r.Errors, r.Warnings = r.Warnings, r.Errors
	}
	return r
}

// skillRecords are the records of the report's skills, without their
// digests: recordDigests sets them as the layer is written.
func skillRecords(report *validate.Report) []artifact.SkillRecord {
	records := make([]artifact.SkillRecord, 0, len(report.Skills))
	for _, s := range report.Skills {
		records = append(records, artifact.SkillRecord{
			Name:        s.Name,
			Description: s.Description,
			Version:     s.Version,
			Path:        s.Dir,
		})
	}
	return records
}

// recordDigests is the callback of layers.Outline.Write that sets the
// digest of each skill in records as the layer is written: the parts of
// the layer and the records are both in layer order.
func recordDigests(records []artifact.SkillRecord) func([]layers.FileDigest) error {
	next := 0
	return func(files []layers.FileDigest) error {
		for dir, d := range layers.SkillDigests(files) {
			for next < len(records) && records[next].Path != dir {
				next++
			}
			if next == len(records) {
				return fmt.Errorf("skill directory %s is not among the validated skills", dir)
			}
			records[next].Digest = d
		}
		return nil
	}
}

// effectiveDefinition layers flags over stax.yaml over defaults.
func effectiveDefinition(p *staxyaml.Project, over staxyaml.Definition) (staxyaml.Definition, []string) {
	var def staxyaml.Definition
	if p.Definition != nil {
		def = *p.Definition
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&def.Name, over.Name)
	set(&def.Version, over.Version)
	set(&def.Description, over.Description)
	set(&def.Author, over.Author)
	set(&def.License, over.License)
	if len(over.Tags) > 0 {
		def.Tags = over.Tags
	}
	// Where stax.yaml is, the field goes into it: stax init would refuse
	// the file, and with --force replace it, install section and all.
	setIt := func(field, flag string) string {
		if p.Definition != nil {
			return fmt.Sprintf("add %s: to %s, or pass %s", field, filepath.Join(p.Root, staxyaml.FileName), flag)
		}
		return "set it with `stax init` or " + flag
	}
	var notices []string
	if def.Name == "" {
		def.Name = staxyaml.NameFromDir(p.Root)
		notices = append(notices, fmt.Sprintf("no package name in %s: using %q (%s)", p.Root, def.Name, setIt("name", "--name")))
	}
	if def.Version == "" {
		def.Version = DefaultVersion
		notices = append(notices, fmt.Sprintf("no package version in %s: using %q (%s)", p.Root, def.Version, setIt("version", "--version")))
	}
	return def, notices
}

// DefaultVersion is the version of a package that does not declare one.
const DefaultVersion = "0.0.0"

// PathDependencyError is a package to be published that depends on a
// directory: it would publish, and no consumer could install it.
type PathDependencyError struct {
	Package string
	Path    string
}

func (e *PathDependencyError) Error() string {
	return fmt.Sprintf("%s depends on the directory %s, which its consumers cannot resolve: publish that package and depend on its reference, "+
		"or name the reference beside the path in stax.yaml (packages: - {path: %s, ref: REGISTRY/NAME:TAG}) and push with --push-dependencies",
		e.Package, e.Path, e.Path)
}

// CheckPublishable refuses dependencies recorded by directory (exit 4).
func CheckPublishable(name string, deps []artifact.PackageRef) error {
	for _, d := range deps {
		if declaration.IsPath(d.Ref) {
			return errdefs.Resolution(&PathDependencyError{Package: name, Path: d.Ref})
		}
	}
	return nil
}
