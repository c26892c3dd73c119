package resolve

import (
	"fmt"
	"net/url"
	"slices"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitpackage"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/transfer"
)

// GitOptions say how the git sources of a resolve become packages (see
// package gitpackage).
type GitOptions struct {
	// Cache is the git cache trees are taken from.
	Cache *gitsource.Cache
	// Strict refuses a skill that breaks a content rule; the zero value
	// warns of it (Node.Warnings).
	Strict bool
	// Locked are the commits stax.lock recorded, by the key of the node
	// (Node.Key): a source found here is materialized at them, with no
	// ls-remote.
	Locked map[string]gitpackage.Locked
}

// GitChoice is what is taken of a git source: a plugin of its
// marketplace, and of the skills found, those named (none: all).
type GitChoice struct {
	Plugin string
	Skills []string
}

// GitNode is where a package built from a git source was found.
type GitNode struct {
	// Reference is the repository, SUBDIR and REF declared.
	Reference gitsource.Reference
	GitChoice
	// Locked is the commit (and a followed plugin's) the tree was taken
	// from.
	Locked gitpackage.Locked
}

// resolveGit builds the package of the git declaration d into a scratch
// layout, as a directory's is built. Its key and Ref are the reference
// without credentials: they are written to stax.lock.
func (r *resolver) resolveGit(d declaration.Declaration, path []string) (*Node, error) {
	ref := d.Git
	key := ref.String()
	path[len(path)-1] = key
	if err := CheckNesting(path, r.stack, key); err != nil {
		return nil, err
	}
	if r.opts.Git == nil || r.opts.Git.Cache == nil {
		return nil, errdefs.Invalid(fmt.Errorf("%s: a git source cannot be read here", chain(path)))
	}
	gopts := r.opts.Git
	gdecl := gitpackage.Declaration{Ref: ref, Plugin: d.Plugin, Skills: d.Skills, Range: d.Range}
	if l, ok := gopts.Locked[key]; ok {
		gdecl.Locked = &l
	}
	var built *gitpackage.Built
	t, err := r.opts.Source.OpenBuilt(r.ctx, "resolve", func(pusher content.Pusher) (ocispec.Descriptor, error) {
		b, err := gitpackage.Build(r.ctx, pusher, gdecl, gitpackage.Options{Cache: gopts.Cache, Strict: gopts.Strict, Limits: r.opts.Limits})
		if err != nil {
			return ocispec.Descriptor{}, err
		}
		built = b
		return b.Descriptor, nil
	})
	if err != nil {
		return nil, err
	}
	r.graph.targets = append(r.graph.targets, t)
	res := built.Result.Result
	if n, done, err := r.seen(key, res.Descriptor.Digest, path); done || err != nil {
		return n, err
	}
	pkg, err := transfer.CheckBuilt(r.ctx, t, res.Descriptor, res.Config, res.ConfigDescriptor, r.opts.MaxSize)
	if err != nil {
		return nil, err
	}
	n := &Node{Ref: key, Key: key, Digest: res.Descriptor.Digest, Package: pkg, Target: t, Path: path,
		Git: &GitNode{Reference: ref, GitChoice: GitChoice{Plugin: gdecl.Plugin, Skills: gdecl.Skills}, Locked: built.Locked}, Warnings: built.Warnings}
	if gdecl.Range != nil {
		n.Range = gdecl.Range.String()
	}
	if built.Locked.Resolved.Kind == gitsource.KindTag {
		n.Tag = built.Locked.Resolved.Ref
	}
	r.remember(n)
	return n, nil
}

// StoreKey is the tag the package is kept under in the local store: the
// git reference at the REF it resolved through, without credentials
// (resolvedRef), and the plugin and skills chosen, which change what is
// built: git+https://HOST/PATH//SUBDIR#REF?plugin=NAME&skill=NAME. A
// branch that moves, like a registry tag, moves the key to the package
// of its new commit; the old one is then kept by stax store prune only
// while a stax.lock pins its digest. No registry package's key is the
// same: the store keys those by reference.Reference.Familiar, whose
// grammar (distribution's: a host of letters, digits, '.', '-' and a
// port; a lower-case path; a tag of word characters, '.' and '-') has
// no '+' and no "://", which every git reference's key holds (git+URL,
// or git://). A '?' follows REF unambiguously: git allows none in a ref
// name.
func (g *GitNode) StoreKey() string {
	key := g.resolvedRef()
	q := url.Values{}
	if g.Plugin != "" {
		q.Set("plugin", g.Plugin)
	}
	for _, s := range slices.Sorted(slices.Values(g.Skills)) {
		q.Add("skill", s)
	}
	if len(q) > 0 {
		key += "?" + q.Encode()
	}
	return key
}

// resolvedRef is the git reference at the REF it resolved through (the
// tag, branch or commit), without credentials: what a package that
// depends on it records.
func (g *GitNode) resolvedRef() string {
	r := g.Reference
	r.Ref = g.Locked.Resolved.Ref
	return r.String()
}
