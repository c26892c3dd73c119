package checkout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"time"

	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/validate"
	"github.com/stax-dev/stax/pkg/warning"
)

// BuildOptions say how a source becomes a package.
type BuildOptions struct {
	// Name is the package's name. Empty derives it: stax.yaml's name, else
	// the plugin's, else Subdir's last folder's, else the repository's.
	Name string
	// Tag is the git tag the checkout is at: a semantic version (v1.2.0,
	// 1.2.0) is the package's version when stax.yaml sets none; without
	// one the version is 0.0.0.
	Tag string
	// Source is the repository's URL, annotated as
	// org.opencontainers.image.source with any credentials removed;
	// Revision is the commit, annotated as org.opencontainers.image.revision.
	Source, Revision string
	// Strict refuses a skill that breaks a content rule (see
	// validate.ContentRule), as stax pack --strict does but for the
	// advice to the author (validate.Lint). The zero value warns of it;
	// the safety rules refuse the build either way.
	Strict bool
	// Symlinks is layers.SymlinkFlatten when empty: a link in the
	// repository is packaged as what it leads to, inside the checkout.
	Symlinks layers.SymlinkMode
	// Limits bound the skills layer built; only its MaxSize applies, as
	// to stax pack (layers.WriteOptions).
	layers.Limits
	// Created is the manifest's creation time; zero is the Unix epoch.
	Created time.Time
	// Resolver resolves the packages a stax.yaml declares; nil builds a
	// package that declares none.
	Resolver pack.Resolver
}

// Result is a package built from a source.
type Result struct {
	*pack.Result
	// Warnings are the source's (a plugin's parts stax does not install)
	// and the content rules its skills break, one per skill and rule,
	// naming files relative to the checkout.
	Warnings warning.List
}

// Build builds src's skills into pusher as stax pack builds the same
// files: same files, same layer digest.
func Build(ctx context.Context, pusher content.Pusher, src *Source, opts BuildOptions) (*Result, error) {
	if src.Follow != nil {
		return nil, errdefs.Invalid(fmt.Errorf("plugin %s lives in another repository (%s): fetch it, then find its skills there", src.Plugin.Name, src.Follow.URL))
	}
	annotations, err := annotate(opts.Source, opts.Revision)
	if err != nil {
		return nil, err
	}
	pkgRoot := "."
	if src.Project != nil {
		pkgRoot = src.Subdir
	}
	if err := checkIgnoreFile(src.Root, pkgRoot); err != nil {
		return nil, err
	}
	popts := pack.Options{
		Project:     &staxyaml.Project{Root: src.Root, SkillsDir: src.Root},
		Overrides:   staxyaml.Definition{Name: opts.Name, Version: version(opts.Tag)},
		Lenient:     true,
		Strict:      opts.Strict,
		Symlinks:    cmp.Or(opts.Symlinks, layers.SymlinkFlatten),
		Limits:      layers.Limits{MaxSize: opts.MaxSize},
		Created:     opts.Created,
		Annotations: annotations,
	}
	if src.Project != nil {
		popts.Project = src.Project
		if def := src.Project.Definition; def != nil && def.Version != "" {
			popts.Overrides.Version = ""
		}
	}
	if src.Project == nil || src.selected {
		popts.Parts = map[string]string{}
		for _, s := range src.Skills {
			popts.Parts[s.Name] = filepath.Join(src.Root, filepath.FromSlash(s.Dir))
		}
	}
	if src.Project == nil && popts.Overrides.Name == "" {
		popts.Overrides.Name = staxyaml.NameFrom(src.packageName())
	}
	res, err := pack.Project(ctx, popts.Project, pusher, opts.Resolver, popts)
	if err == nil {
		err = src.leftOut(res.Config.Skills, pkgRoot)
	}
	src.inRepository(err)
	out := &Result{Result: res, Warnings: src.Warnings}
	if res != nil && res.Report != nil {
		out.Warnings = append(out.Warnings, src.contentWarnings(res.Report.Warnings)...)
	}
	return out, err
}

// leftOut refuses a package that lacks a skill chosen by name, or holds
// none of the skills found: the package root's .staxignore left them out,
// and a package without them would install nothing the user asked for.
func (src *Source) leftOut(records []artifact.SkillRecord, pkgRoot string) error {
	ignore := path.Join(pkgRoot, layers.IgnoreFile)
	if !src.selected {
		if len(records) == 0 && len(src.Skills) > 0 {
			return errdefs.Invalid(fmt.Errorf("%s leaves out every skill of %s", ignore, src.where()))
		}
		return nil
	}
	for _, s := range src.Skills {
		if !slices.ContainsFunc(records, func(r artifact.SkillRecord) bool { return r.Path == s.Name }) {
			return errdefs.Invalid(fmt.Errorf("skill %s (%s) is left out of the package by %s", s.Name, s.Dir, ignore))
		}
	}
	return nil
}

// packageName is the word a package without stax.yaml is named after.
func (src *Source) packageName() string {
	switch {
	case src.Plugin != nil:
		return src.Plugin.Name
	case src.Subdir != ".":
		return path.Base(src.Subdir)
	}
	return cmp.Or(src.repository, "skills")
}

// version is the version tag names, pack.DefaultVersion when it names
// none.
func version(tag string) string {
	v, ok := semver.ParseTag(tag)
	if !ok {
		return pack.DefaultVersion
	}
	v.Build = "" // build metadata is no part of an OCI tag
	return v.String()
}

// contentWarnings are ds, the warnings of the build, as warnings naming
// files relative to the checkout, without the advice to the skills'
// author.
func (src *Source) contentWarnings(ds []validate.Diagnostic) []warning.Warning {
	var out []warning.Warning
	for _, d := range ds {
		if validate.Lint(d.Code) {
			continue
		}
		if rel, err := filepath.Rel(src.Root, d.File); err == nil && filepath.IsLocal(rel) {
			d.File = filepath.ToSlash(rel)
		}
		out = append(out, d.Warning())
	}
	return out
}

// inRepository names the files of err, a build's skills that do not
// validate, by their paths in the repository, as its warnings are, and
// the skills by where they are in it: not by the temporary checkout they
// were read from, which is gone once the command ends.
func (src *Source) inRepository(err error) {
	var invalid *pack.InvalidError
	if !errors.As(err, &invalid) {
		return
	}
	for i, d := range invalid.Report.Errors {
		if rel, rerr := filepath.Rel(src.Root, d.File); rerr == nil && filepath.IsLocal(rel) {
			invalid.Report.Errors[i].File = filepath.ToSlash(rel)
		}
	}
	invalid.Dir = src.where()
}

// annotate is the source and revision annotations: the URL without
// credentials, and a full commit.
func annotate(source, revision string) (map[string]string, error) {
	out := map[string]string{}
	if source != "" {
		u, err := url.Parse(source)
		if err != nil || u.Scheme == "" {
			return nil, errdefs.Invalid(fmt.Errorf("source URL of the package does not parse as a URL"))
		}
		out[artifact.AnnotationSource] = withoutCredentials(u).String()
	}
	if revision != "" {
		if !gitSHA.MatchString(revision) {
			return nil, errdefs.Invalid(fmt.Errorf("revision %q is not a full commit", revision))
		}
		out[artifact.AnnotationRevision] = revision
	}
	return out, nil
}
