package workflow

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/termtext"
)

// TagsOptions say whose tags Tags lists.
type TagsOptions struct {
	// Ref names the repository: a registry reference or an oci: layout; a
	// tag or digest in it is ignored. Required.
	Ref string
	// All keeps the tags named after digests (cosign's sha256-….sig,
	// .att, .sbom and the referrers tag schema's sha256-…); false hides
	// them and counts them in Hidden.
	All bool
	// Local lists the tags the local store holds for Ref's repository;
	// false asks the registry (or reads the layout).
	Local bool
}

// TagsResult is a repository's tags, as people read them.
type TagsResult struct {
	// Repository is Ref without its tag or digest.
	Repository string `json:"repository"`
	// Tags are the version tags, highest version first, then the others
	// by name.
	Tags []string `json:"tags"`
	// Hidden counts the digest tags left out (without All).
	Hidden int `json:"hidden"`
	// Missing is, for a repository of the local store without tags, what
	// a message saying it has none adds: where stax looked, and the name
	// meant (see missingLocal).
	Missing string `json:"-"`
}

// Tags lists the tags of a repository, following the registry's pages to
// the end (a git repository's, with one git ls-remote), sorted as
// semver.SortTags sorts them.
func Tags(ctx context.Context, env *Env, opts TagsOptions) (*TagsResult, error) {
	// The repository named enters here, and is parsed once.
	d, err := declaration.Parse(opts.Ref, declaration.Where{})
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	switch d.Kind {
	case declaration.Directory:
		return nil, errdefs.Invalid(fmt.Errorf("%s names a package directory, which has no tags: name a registry repository, an oci: layout or a git repository; a directory is published with stax push", termtext.Escape(opts.Ref)))
	case declaration.Git:
		return gitTags(ctx, env, d.Git, opts)
	}
	ref := d.Ref
	ref.Tag, ref.Digest = "", ""
	var t *target.Target
	// A name without a registry host is a repository of the local store,
	// as install and pull take it: not docker.io/library/NAME.
	if (opts.Local || !d.IsRemote()) && !ref.IsLayout() {
		t, err = env.Opener.OpenLocal(ctx, ref, store.ReadOnly)
	} else {
		t, err = env.Opener.Open(ctx, ref, store.ReadOnly)
	}
	if err != nil {
		return nil, err
	}
	defer t.Close()
	tags, err := t.Tags(ctx)
	if err != nil {
		return nil, err
	}
	res := &TagsResult{Repository: ref.Familiar(), Tags: tags}
	if !opts.All {
		res.Tags = slices.DeleteFunc(tags, target.IsDigestTag)
		res.Hidden = len(tags) - len(res.Tags)
	}
	if res.Tags == nil {
		res.Tags = []string{}
	}
	semver.SortTags(res.Tags)
	if len(tags) == 0 && t.Kind == target.KindLocal {
		res.Missing = missingLocal(ctx, t, d)
	}
	return res, nil
}

// missingLocal says, of the local store's repository t that holds no
// tags, where stax looked and what may have been meant: a repository the
// store holds a typo away, else, for a name written without a registry
// host (team-skills, alpine), which the store's it is, how Docker Hub's
// is written.
func missingLocal(ctx context.Context, t *target.Target, d declaration.Declaration) string {
	msg := " in the local store"
	if near := t.NearRepositoryHint(ctx); near != "" {
		return msg + near
	}
	if !d.IsRemote() {
		msg += fmt.Sprintf(" (a name without a registry host is the local store's: write %s for Docker Hub's)", termtext.Escape(d.Ref.Name()))
	}
	return msg
}

// gitTags lists the tags of the git repository ref (opts.Ref, parsed). A git
// repository has no digest tags. With opts.Local, they are the REFs the
// local store keeps packages of, from that repository and SUBDIR (see
// localGitTags).
func gitTags(ctx context.Context, env *Env, ref gitsource.Reference, opts TagsOptions) (*TagsResult, error) {
	if opts.Local {
		return localGitTags(ctx, env, ref)
	}
	cache, err := env.gitCache()
	if err != nil {
		return nil, err
	}
	refs, err := cache.ListRefs(ctx, ref)
	if err != nil {
		return nil, err
	}
	return &TagsResult{Repository: ref.Repository(), Tags: refs.TagNames()}, nil
}

// localGitTags lists what follows the # of the local store's tags of
// packages built from ref's repository and SUBDIR (resolve.GitNode.StoreKey):
// the REF each was built at, with the plugin and skills chosen, if any
// (v1.0.0, main?skill=pdf).
func localGitTags(ctx context.Context, env *Env, ref gitsource.Reference) (*TagsResult, error) {
	keys, err := store.Tags(ctx, env.Opener.StoreDir)
	if err != nil {
		return nil, err
	}
	ref.Ref = ""
	prefix := ref.String() + "#"
	// Sorted as semver.SortTags sorts the REFs, a REF's choices by name.
	byRef := map[string][]string{}
	for _, key := range keys {
		if tag, ok := strings.CutPrefix(key, prefix); ok {
			at, _, _ := strings.Cut(tag, "?")
			byRef[at] = append(byRef[at], tag)
		}
	}
	refs := slices.Collect(maps.Keys(byRef))
	semver.SortTags(refs)
	tags := []string{}
	for _, at := range refs {
		tags = append(tags, slices.Sorted(slices.Values(byRef[at]))...)
	}
	return &TagsResult{Repository: ref.Repository(), Tags: tags}, nil
}
