// Package publish pushes a package's dependencies out with it: the
// package directories it declares with a reference, each built and
// pushed there before it (stax push --push-dependencies), and the
// registry packages it depends on, copied to a mirror registry beside
// it (stax copy --with-dependencies).
package publish

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// Published is a package directory pushed to the reference declared
// beside it.
type Published struct {
	Dir    string
	Ref    string
	Digest digest.Digest
	// Replaced is the digest Ref's tag named before the push moved it;
	// empty when the tag was new or named Digest already.
	Replaced digest.Digest
}

// PushDependencies pushes, dependencies first, every package directory
// p declares with a reference beside it, each built for publishing, so that
// building p with Build.Publish records them by reference and digest. A
// directory declared without a reference is left for that build to refuse.
func PushDependencies(ctx context.Context, p *staxyaml.Project, opts source.Options, copyOpts transfer.Options) ([]Published, error) {
	opts.Build.Publish = true
	pub := &publisher{ctx: ctx, opts: opts, copyOpts: copyOpts, done: map[string]bool{}}
	root, err := filepath.Abs(p.Root)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	if err := pub.dependencies(p, []string{root}); err != nil {
		return pub.out, err
	}
	return pub.out, nil
}

type publisher struct {
	ctx      context.Context
	opts     source.Options
	copyOpts transfer.Options
	done     map[string]bool
	out      []Published
}

func (pub *publisher) dependencies(p *staxyaml.Project, path []string) error {
	if p.Definition == nil {
		return nil
	}
	for _, dep := range p.Definition.Packages {
		if dep.Path == "" || dep.Ref == "" {
			continue
		}
		dir := dep.Path
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(p.Root, dir)
		}
		dir, err := filepath.Abs(dir)
		if err != nil {
			return errdefs.MarkLocal(err)
		}
		chain := append(append([]string{}, path...), dir)
		if err := resolve.CheckNesting(chain, path, dir); err != nil {
			return err
		}
		if pub.done[dir] {
			continue
		}
		sub, err := staxyaml.Open(dir)
		if err != nil {
			return err
		}
		if err := pub.dependencies(sub, chain); err != nil {
			return err
		}
		published, err := pub.push(sub, dep.Ref)
		if err != nil {
			return fmt.Errorf("push %s to %s: %w", dep.Path, dep.Ref, err)
		}
		pub.done[dir] = true
		pub.out = append(pub.out, published)
	}
	return nil
}

// push builds sub for publishing and pushes it to ref, as stax push
// pushes a package directory.
func (pub *publisher) push(sub *staxyaml.Project, ref string) (Published, error) {
	dstRef, err := reference.Parse(ref)
	if err != nil {
		return Published{}, errdefs.Invalid(err)
	}
	if dstRef.Tag == "" && dstRef.Digest == "" {
		// Consumers resolve the reference as recorded: it must name a tag.
		return Published{}, errdefs.Invalid(fmt.Errorf("ref %s names no tag: give the version, e.g. %s:1.0.0", ref, ref))
	}
	src, err := source.Open(pub.ctx, sub.Root, pub.opts)
	if err != nil {
		return Published{}, err
	}
	defer src.Close()
	dst, copied, err := Push(pub.ctx, pub.opts.Opener, src.Target, dstRef, pub.copyOpts)
	if err != nil {
		return Published{}, err
	}
	defer dst.Close()
	return Published{Dir: sub.Root, Ref: ref, Digest: src.Descriptor.Digest, Replaced: copied.Replaced}, nil
}

// Push copies the package of src to the registry or layout dstRef names:
// the one push of stax, of a package (stax push) and of each dependency
// pushed out before it. A destination without a tag or digest is tagged
// with the package's version. It returns the destination open, for the
// caller to sign what it pushed and close; when the copy fails, a layout
// the push created is removed.
func Push(ctx context.Context, opener *target.Opener, src *target.Target, dstRef reference.Reference, opts transfer.Options) (*target.Target, *transfer.Result, error) {
	dst, err := opener.Open(ctx, dstRef, store.ReadWrite)
	if err != nil {
		return nil, nil, err
	}
	opts.TagVersion = dstRef.Tag == "" && dstRef.Digest == ""
	res, err := transfer.Copy(ctx, src, dst, opts)
	if err != nil {
		return nil, nil, target.DiscardAfter(dst, err)
	}
	return dst, res, nil
}
