// Package gitpackage builds a package from a git source: it resolves the
// declaration's REF to a commit (or takes the commit stax.lock recorded),
// writes that commit's SUBDIR from the git cache into a private scratch
// directory, finds and chooses the skills there (pkg/checkout) and builds
// them as stax pack builds the same files. A plugin its marketplace keeps
// in another repository is followed and fetched the same way.
//
// It is the one way a git source becomes a package: install (as a source
// of packages resolve is handed), push, copy and update call it.
package gitpackage

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/checkout"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/scratch"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/termtext"
)

// Declaration is a git source as asked for.
type Declaration struct {
	// Ref is the repository, SUBDIR and REF.
	Ref gitsource.Reference
	// Plugin, when set, takes that plugin of the marketplace at SUBDIR:
	// NAME or NAME@MARKETPLACE.
	Plugin string
	// Skills, when set, keeps only these skills, by name.
	Skills []string
	// Range picks the highest semver tag in it when Ref names no REF.
	Range *semver.Range
	// Locked, when set, is what stax.lock recorded: its commits are
	// materialized as they are, with no ls-remote.
	Locked *Locked
}

// Locked is where a git source was found: the commit of its repository
// and, for a plugin its marketplace keeps in another repository, that
// repository's commit too.
type Locked struct {
	Resolved gitsource.Resolved
	// Followed is the followed plugin's repository and commit; nil when
	// the plugin is in the same repository or none was asked for.
	Followed *Followed
}

// Followed is a plugin's repository, as its marketplace named it, and the
// commit taken.
type Followed struct {
	Ref      gitsource.Reference
	Resolved gitsource.Resolved
}

// Options say how the package is built.
type Options struct {
	// Cache is the git cache the trees are taken from.
	Cache *gitsource.Cache
	// Strict refuses a skill that breaks a content rule, as stax pack
	// does; the zero value warns of it.
	Strict bool
	// Limits bound the tree taken from git and the skills layer built
	// of it (checkout.BuildOptions).
	layers.Limits
	// Resolver resolves the packages a stax.yaml in the tree declares;
	// nil builds a package that declares none.
	Resolver pack.Resolver
}

// Built is a package built from a git source.
type Built struct {
	// Result is the build: the package's descriptor (Result.Descriptor)
	// and the warnings of a lenient build and of the plugin's parts stax
	// does not install.
	*checkout.Result
	// Locked is where it was found, for stax.lock.
	Locked Locked
	// Source is what was found in the tree and built, its skills those
	// chosen. Its Root is removed once Build returns.
	Source *checkout.Source
}

// Build builds decl's package into pusher: the local store, or the
// temporary layout a resolve opens.
func Build(ctx context.Context, pusher content.Pusher, decl Declaration, opts Options) (*Built, error) {
	var built *Built
	err := Checkout(ctx, decl, opts.Cache, func(src *checkout.Source, locked Locked) error {
		ref, resolved := decl.Ref, locked.Resolved
		if f := locked.Followed; f != nil {
			ref, resolved = f.Ref, f.Resolved
		}
		tag := ""
		if resolved.Kind == gitsource.KindTag {
			tag = resolved.Ref
		}
		res, err := checkout.Build(ctx, pusher, src, checkout.BuildOptions{
			Tag:      tag,
			Source:   ref.Repository(),
			Revision: resolved.Commit,
			Strict:   opts.Strict,
			Limits:   opts.Limits,
			Resolver: opts.Resolver,
		})
		if err != nil {
			return err
		}
		built = &Built{Result: res, Locked: locked, Source: src}
		return nil
	})
	return built, err
}

// Checkout finds decl's skills and hands them to use while the tree they
// are in exists: it resolves the commit (or takes the locked one), writes
// the tree into a scratch directory, finds and chooses the skills, and
// removes the tree once use returns.
func Checkout(ctx context.Context, decl Declaration, cache *gitsource.Cache, use func(*checkout.Source, Locked) error) error {
	locked, err := resolveCommit(ctx, cache, decl.Ref, decl.Range, lockedMain(decl.Locked))
	if err != nil {
		return err
	}
	return materialize(ctx, cache, decl.Ref, locked.Commit, func(root string) error {
		src, err := checkout.Find(checkout.Options{Root: root, Plugin: decl.Plugin, Repository: repositoryName(decl.Ref), RootSubdir: decl.Ref.Subdir})
		if err != nil {
			return inRepository(decl.Ref, err)
		}
		if src.Follow == nil {
			if err := src.Select(decl.Skills); err != nil {
				return err
			}
			return use(src, Locked{Resolved: locked})
		}
		return follow(ctx, cache, decl, src, locked, use)
	})
}

// follow fetches the plugin src names from the repository it lives in,
// and finds its skills there.
func follow(ctx context.Context, cache *gitsource.Cache, decl Declaration, src *checkout.Source, locked gitsource.Resolved, use func(*checkout.Source, Locked) error) error {
	f := src.Follow
	ref, err := gitsource.New(f.URL, f.Path, cmp.Or(f.SHA, f.Ref))
	if err != nil {
		return errdefs.Invalid(fmt.Errorf("plugin %s names its repository %s: %w", termtext.Escape(src.Plugin.Name), termtext.Escape(f.URL), err))
	}
	var was *gitsource.Resolved
	if decl.Locked != nil && decl.Locked.Followed != nil && decl.Locked.Followed.Ref.Repository() == ref.Repository() {
		was = &decl.Locked.Followed.Resolved
	}
	followed, err := resolveCommit(ctx, cache, ref, nil, was)
	if err != nil {
		return err
	}
	plugin := src.Plugin
	return materialize(ctx, cache, ref, followed.Commit, func(root string) error {
		fsrc, err := checkout.Find(checkout.Options{Root: root, Repository: repositoryName(ref), RootSubdir: ref.Subdir})
		if err != nil {
			return inRepository(ref, err)
		}
		fsrc.Plugin, fsrc.Layout = plugin, checkout.LayoutPlugin
		fsrc.Warnings = append(src.Warnings, fsrc.Warnings...)
		if err := fsrc.Select(decl.Skills); err != nil {
			return err
		}
		return use(fsrc, Locked{Resolved: locked, Followed: &Followed{Ref: ref, Resolved: followed}})
	})
}

// resolveCommit is locked when set; else ref's REF (or the highest tag in
// rng) resolved with one git ls-remote.
func resolveCommit(ctx context.Context, cache *gitsource.Cache, ref gitsource.Reference, rng *semver.Range, locked *gitsource.Resolved) (gitsource.Resolved, error) {
	if locked != nil {
		return *locked, nil
	}
	refs, err := cache.ListRefs(ctx, ref)
	if err != nil {
		return gitsource.Resolved{}, err
	}
	return refs.Resolve(ref.Ref, rng)
}

// materialize writes ref's SUBDIR at commit into a scratch directory,
// hands it to use and removes it.
func materialize(ctx context.Context, cache *gitsource.Cache, ref gitsource.Reference, commit string, use func(root string) error) error {
	dir, release, err := scratch.Dir("git")
	if err != nil {
		return errdefs.MarkLocal(fmt.Errorf("create a temporary directory for %s: %w", termtext.Escape(ref.Display()), err))
	}
	defer release()
	root := filepath.Join(dir, "tree")
	if _, err := cache.Materialize(ctx, ref, commit, root); err != nil {
		return err
	}
	return use(root)
}

func lockedMain(l *Locked) *gitsource.Resolved {
	if l == nil {
		return nil
	}
	return &l.Resolved
}

// repositoryName is the last word of ref's repository path: skills for
// github.com/anthropics/skills.
func repositoryName(ref gitsource.Reference) string {
	return strings.TrimSuffix(path.Base(ref.Repository()), ".git")
}

// inRepository names ref's repository in err, a failure to find skills in
// its tree.
func inRepository(ref gitsource.Reference, err error) error {
	return fmt.Errorf("%s: %w", termtext.Escape(ref.String()), err)
}
