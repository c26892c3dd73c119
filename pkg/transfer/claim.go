package transfer

import (
	"context"
	"errors"
	"fmt"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/target"
)

// claimsTag says whether a copy to dst with NoOverwrite claims dst's tag
// with claimTag: a registry's, which no lock of stax's guards.
func claimsTag(dst *target.Target, opts Options) bool {
	return opts.NoOverwrite && dst.Kind == target.KindRemote && dst.Ref.Tag != "" && dst.Ref.Digest == ""
}

// claimTag points dst's tag at desc, unless the tag names another
// manifest: the write of a copy with NoOverwrite, once the registry holds
// desc's manifest by digest (src holds it too). Registries have no
// conditional write of a tag (the distribution spec has none, and
// distribution answers If-None-Match on reads only), so the claim is
// three requests: a look-up that finds the tag absent, the write, and a
// look-up that reads the tag back. A
// tag that names another digest at either look-up is a *TagExistsError
// naming that digest: at the first, nothing was written; at the second,
// a concurrent writer's PUT landed after this one, and the tag is theirs.
//
// Among stax processes sharing a lock directory the three requests run
// under dst.LockTag, one claim at a time, so exactly one of them finds
// the tag absent and the others find its digest. A writer that takes no
// such lock (another machine, another tool) is caught only when its
// write lands between ours and the read-back. One that lands between the
// first look-up and our write is overwritten by ours, and the read-back
// finds our digest: that writer's tag is lost without a word to us. One
// that lands after the read-back overwrites ours. docs/registries.md
// says so.
func claimTag(ctx context.Context, src content.Fetcher, dst *target.Target, desc ocispec.Descriptor) error {
	unlock, err := dst.LockTag(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	current, err := taggedNow(ctx, dst)
	switch {
	case err != nil:
		return err
	case current == desc.Digest:
		return nil
	case current != "":
		return errdefs.MarkUnavailable(&TagExistsError{Destination: dst.Name(), Tag: dst.Ref.Tag, Current: current, Refused: desc.Digest})
	}
	if err := putTag(ctx, src, dst, desc); err != nil {
		return err
	}
	current, err = taggedNow(ctx, dst)
	switch {
	case err != nil:
		return err
	case current == "":
		return errdefs.MarkUnavailable(fmt.Errorf("%s: tag %s names nothing right after it was written (another client deleted it, or the registry does not show its own writes yet): push again", dst.Name(), dst.Ref.Tag))
	case current != desc.Digest:
		return errdefs.MarkUnavailable(&TagExistsError{Destination: dst.Name(), Tag: dst.Ref.Tag, Current: current, Refused: desc.Digest, Lost: true})
	}
	return nil
}

// putTag tags desc in dst by pushing its manifest again, by tag: one
// request, where tagging by digest reads the manifest back first.
func putTag(ctx context.Context, src content.Fetcher, dst *target.Target, desc ocispec.Descriptor) error {
	if _, ok := dst.GraphTarget.(registry.ReferencePusher); ok {
		return pushReference(ctx, src, dst, desc)
	}
	return dst.TagAs(ctx, desc)
}

// taggedNow is the digest dst's tag names, asked of the registry; empty
// when the tag does not exist.
func taggedNow(ctx context.Context, dst *target.Target) (digest.Digest, error) {
	current, err := dst.GraphTarget.Resolve(ctx, dst.Ref.Tag)
	switch {
	case err == nil:
		return current.Digest, nil
	case errors.Is(err, errdef.ErrNotFound):
		return "", nil
	}
	return "", dst.Explain(fmt.Errorf("look up tag %s: %w", dst.Ref.Tag, err))
}
