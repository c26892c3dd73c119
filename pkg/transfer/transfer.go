// Package transfer copies stax packages between targets — registry to
// local store (pull), store to registry (push), any to any (copy) — after
// checking, before any layer is fetched, that what it is about to copy is a
// stax package of a sane size.
package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry"

	"github.com/stax-dev/stax/internal/inorder"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/target"
)

// Progress follows the blobs of a copy.
type Progress interface {
	// Track wraps the reader of a blob being copied. The wrapper must keep
	// io.Seeker when r has it, so that a failed upload can be resent.
	Track(desc ocispec.Descriptor, r io.ReadCloser) io.ReadCloser
	// Skipped reports a blob the destination already had.
	Skipped(desc ocispec.Descriptor)
}

// Options control a copy.
type Options struct {
	// Concurrency is how many blobs move at once; 0 means oras-go's default.
	Concurrency int
	// Referrers copies what refers to the package (signatures) as well.
	Referrers bool
	// Limits bound the package: its MaxSize the sum of its blob sizes,
	// checked before any is fetched; the zero value is the defaults.
	layers.Limits
	// Progress, when set, is told about every blob.
	Progress Progress
	// TagVersion tags the destination with the package's version, for a
	// destination reference without a tag.
	TagVersion bool
	// AnyArtifact copies an image index or image manifest that is not a
	// stax package too (a container image, say), vetted the same way: every
	// manifest read and every size checked before any blob moves. Without
	// it, only stax packages are copied.
	AnyArtifact bool
	// Mounts, when set, names the repositories of the destination's
	// registry that blobs can be mounted from, and learns where the
	// package's blobs are once copied. Without it blobs are mounted only
	// between two repositories of one registry.
	Mounts Mounts
	// Package is the package src names, read and checked already by the
	// caller (with Check or CheckBuilt), which Copy does not read again;
	// nil means Copy reads and checks it. Its layers still count against
	// MaxSize.
	Package *artifact.Package
	// NewTag says the caller has just seen that the destination's tag
	// does not exist (it listed the repository's tags). A push by tag then
	// PUTs the package's manifest under the tag without first asking the
	// registry whether it holds it by digest: the PUT is due either way.
	// Every blob is still looked up before it is uploaded. A layout's
	// tag is looked up again all the same, under its writer's lock.
	NewTag bool
	// Tagged is the digest the caller has just seen the destination's tag
	// name (it looked the tag up); empty when it did not look. A push by
	// tag of the package it names reads and writes nothing more: the
	// registry holds the manifest under the tag, and with it every blob
	// the manifest lists, as a registry that answers a manifest lookup
	// does for any copy.
	Tagged digest.Digest
	// NoOverwrite refuses, before any blob is written, a copy to a tag of
	// a registry or a layout that names another manifest already, with a
	// *TagExistsError: a release tag is then never replaced by accident.
	// A registry's tag is looked up again as it is written, and read
	// back (see claimTag): of concurrent copies of different manifests to
	// one new tag, one succeeds and the others fail with a
	// *TagExistsError naming its digest. False moves the tag, and
	// Result.Replaced says from where.
	NoOverwrite bool
}

// Mounts are the repositories, per registry host, known to hold blobs.
type Mounts interface {
	// Sources are the repositories of host known to hold d, except the
	// repository except.
	Sources(host string, d digest.Digest, except string) []string
	// Add records that repository of host holds the blobs ds.
	Add(host, repository string, ds ...digest.Digest)
}

// Result is a copied package.
type Result struct {
	Descriptor ocispec.Descriptor
	// Package is the package copied; nil when Image is set.
	Package *artifact.Package
	// Image describes what was copied when it is not a stax package
	// (only with Options.AnyArtifact).
	Image *Image
	// Skipped counts the blobs the destination already had.
	Skipped int
	// Copied counts the blobs that were transferred.
	Copied int
	// Replaced is the digest the destination's tag named before the copy
	// moved it to Descriptor; empty when the tag was new, named
	// Descriptor already, or the destination is the local store.
	Replaced digest.Digest
}

// TagExistsError is a copy refused by Options.NoOverwrite: the
// destination's tag names another manifest.
type TagExistsError struct {
	// Destination names the destination, tag included.
	Destination string
	// Tag is the destination's tag; Current the digest it names, and
	// Refused the digest of what the copy would have put there.
	Tag              string
	Current, Refused digest.Digest
	// Lost says the tag was absent when the copy looked, and another
	// writer's tag landed after the copy's own: the manifest Refused is
	// in the destination by digest, untagged.
	Lost bool
}

func (e *TagExistsError) Error() string {
	if e.Lost {
		return fmt.Sprintf("%s: another push tagged %s with %s at the same time, after this one tagged it with %s, and --no-overwrite keeps theirs: give this release a new tag, or leave out --no-overwrite to move the tag", e.Destination, e.Tag, e.Current, e.Refused)
	}
	return fmt.Sprintf("%s: tag %s names %s already, not %s, and --no-overwrite keeps it: give this release a new tag, or leave out --no-overwrite to move the tag", e.Destination, e.Tag, e.Current, e.Refused)
}

// Copy copies the package src names to dst and tags it there.
func Copy(ctx context.Context, src, dst *target.Target, opts Options) (*Result, error) {
	desc, err := src.Lookup(ctx)
	if err != nil {
		return nil, err
	}
	res := &Result{Descriptor: desc}
	vetted, budget, err := vet(ctx, src, desc, opts, res)
	if err != nil {
		return nil, err
	}
	if opts.TagVersion {
		if res.Package == nil {
			return nil, errdefs.Invalid(fmt.Errorf("%s is an %s, which has no version to tag %s with; give the destination a tag", src.Name(), res.Image.Kind, dst.Name()))
		}
		if dst.Ref, err = dst.Ref.WithTag(res.Package.Config.Version); err != nil {
			return nil, errdefs.Invalid(fmt.Errorf("%s: the package version cannot be a tag: %w", src.Name(), err))
		}
	}

	previous, known, lookupErr := taggedBefore(ctx, dst, opts)
	switch {
	case known && previous != "" && previous != desc.Digest && opts.NoOverwrite:
		return nil, errdefs.MarkUnavailable(&TagExistsError{Destination: dst.Name(), Tag: dst.Ref.Tag, Current: previous, Refused: desc.Digest})
	case known && previous != desc.Digest:
		res.Replaced = previous
	case lookupErr != nil && opts.NoOverwrite:
		return nil, lookupErr
	}

	from := source{ReadOnlyGraphTarget: src, progress: opts.Progress, failed: &firstError{}}
	_, isPusher := dst.GraphTarget.(registry.ReferencePusher)
	byTag := dst.Kind == target.KindRemote && dst.Ref.Tag != "" && dst.Ref.Digest == "" && isPusher
	// A tag claimed (NoOverwrite) is written only once its manifest is
	// there by digest, by claimTag.
	pushByTag := byTag && !claimsTag(dst, opts)
	if byTag && !opts.Referrers && known && previous == desc.Digest {
		res.Skipped = 1
		if opts.Progress != nil {
			opts.Progress.Skipped(desc)
		}
		recordMounts(opts.Mounts, src, dst, vetted)
		return res, nil
	}
	var counts copyCounts
	graph := graphOptions(from, src, dst, desc, vetted, budget, pushByTag, &counts, opts)
	to := mountOrUpload(dst.GraphTarget)
	if dst.Kind != target.KindRemote {
		to = fillingIncomplete{GraphTarget: to, vetted: vetted}
	}
	if pushByTag && known && previous == "" {
		to = withoutRootLookup(to, desc.Digest)
	}
	if opts.Referrers {
		err = oras.ExtendedCopyGraph(ctx, from, to, desc, oras.ExtendedCopyGraphOptions{CopyGraphOptions: graph})
	} else {
		err = oras.CopyGraph(ctx, from, to, desc, graph)
	}
	res.Copied, res.Skipped = int(counts.copied.Load()), int(counts.skipped.Load())
	if err != nil {
		return nil, explainCopy(err, from.failed.get(), src, dst)
	}
	if err := tagCopied(ctx, from, src, dst, desc, graph, counts.tagged.Load(), opts); err != nil {
		return nil, err
	}
	res.Copied, res.Skipped = int(counts.copied.Load()), int(counts.skipped.Load())
	recordMounts(opts.Mounts, src, dst, vetted)
	return res, nil
}

// vet checks what src holds at desc before anything of it is copied: a
// package within opts.MaxSize (set in res.Package), or with
// opts.AnyArtifact an image (res.Image). It returns the successors of
// every manifest and index of the graph, whose leaves are the blobs they
// list, and the size budget what refers to it counts against.
func vet(ctx context.Context, src *target.Target, desc ocispec.Descriptor, opts Options, res *Result) (map[digest.Digest][]ocispec.Descriptor, *sizeBudget, error) {
	pkg, err := opts.Package, error(nil)
	switch {
	case pkg == nil:
		pkg, err = artifact.Fetch(ctx, src, desc)
	case pkg.Descriptor.Digest != desc.Digest:
		return nil, nil, fmt.Errorf("%s: the package checked is %s, not %s", src.Name(), pkg.Descriptor.Digest, desc.Digest)
	}
	pkg, total, err := checked(src, pkg, err, opts.MaxSize)
	switch {
	case err == nil:
		res.Package = pkg
		vetted := map[digest.Digest][]ocispec.Descriptor{desc.Digest: append([]ocispec.Descriptor{pkg.Manifest.Config}, pkg.Manifest.Layers...)}
		return vetted, &sizeBudget{limit: limit(opts.MaxSize), used: total}, nil
	case opts.AnyArtifact && errors.Is(err, artifact.ErrInvalidPackage):
		image, err := vetImage(ctx, src, desc, opts.MaxSize)
		if err != nil {
			return nil, nil, err
		}
		res.Image = image.image
		return image.successors, image.budget, nil
	}
	return nil, nil, err
}

// copyCounts are what a copy's hooks count, atomically: oras-go copies
// blobs concurrently.
type copyCounts struct {
	copied, skipped atomic.Int64
	// tagged says the package's manifest went to dst by tag.
	tagged atomic.Bool
}

// graphOptions are the options of the copy of desc's graph from src to
// dst, which walk only what vetted lists and count into counts.
func graphOptions(from source, src, dst *target.Target, desc ocispec.Descriptor, vetted map[digest.Digest][]ocispec.Descriptor, budget *sizeBudget, pushByTag bool, counts *copyCounts, opts Options) oras.CopyGraphOptions {
	leaves := map[digest.Digest]bool{}
	for _, succ := range vetted {
		for _, d := range succ {
			if _, ok := vetted[d.Digest]; !ok {
				leaves[d.Digest] = true
			}
		}
	}
	return oras.CopyGraphOptions{
		Concurrency: opts.Concurrency,
		// Every node is vetted before it is fetched. The successors of the
		// root, and of the manifests an index lists, are the ones vetted:
		// never a subject or anything else a hostile manifest might point
		// at, and never expanded, even when a "layer" claims to be a
		// manifest. What refers to the package (signatures) counts
		// against the same size limit.
		FindSuccessors: func(ctx context.Context, fetcher content.Fetcher, d ocispec.Descriptor) ([]ocispec.Descriptor, error) {
			if succ, ok := vetted[d.Digest]; ok {
				return succ, nil
			}
			if leaves[d.Digest] {
				return nil, nil
			}
			succ, err := content.Successors(ctx, fetcher, d)
			if err != nil {
				return nil, err
			}
			for _, s := range succ {
				if _, ok := vetted[s.Digest]; ok {
					continue // the package or image, vetted already
				}
				if err := budget.add(s); err != nil {
					return nil, errdefs.Invalid(fmt.Errorf("%s: %s, which refers to the package, %w", src.Name(), d.Digest, err))
				}
			}
			return succ, nil
		},
		// The package's manifest goes to a registry by tag, in one PUT,
		// rather than by digest and then again by tag.
		PreCopy: func(ctx context.Context, d ocispec.Descriptor) error {
			if d.Digest != desc.Digest || !pushByTag {
				return nil
			}
			if err := pushReference(ctx, from, dst, d); err != nil {
				return err
			}
			counts.tagged.Store(true)
			counts.copied.Add(1)
			return oras.SkipNode
		},
		PostCopy: func(context.Context, ocispec.Descriptor) error {
			counts.copied.Add(1)
			return nil
		},
		// Between two repositories of one registry, blobs are mounted
		// rather than downloaded and uploaded again.
		MountFrom: mountFrom(src, dst, opts.Mounts),
		OnMounted: func(context.Context, ocispec.Descriptor) error {
			counts.copied.Add(1)
			return nil
		},
		OnCopySkipped: func(_ context.Context, d ocispec.Descriptor) error {
			counts.skipped.Add(1)
			if opts.Progress != nil {
				opts.Progress.Skipped(d)
			}
			return nil
		},
	}
}

// tagCopied tags desc in dst once its graph is there: a claim of the tag
// with NoOverwrite (claimTag), else a tag unless the copy pushed the
// manifest by tag already; then, with Referrers, the digest tags of what
// refers to it.
func tagCopied(ctx context.Context, from source, src, dst *target.Target, desc ocispec.Descriptor, graph oras.CopyGraphOptions, tagged bool, opts Options) error {
	switch {
	case claimsTag(dst, opts):
		if err := claimTag(ctx, from, dst, desc); err != nil {
			return err
		}
	case !tagged:
		if err := tagUnlessTagged(ctx, dst, desc); err != nil {
			return err
		}
	}
	if opts.Referrers {
		return copyDigestTags(ctx, from, src, dst, desc, graph)
	}
	return nil
}

// taggedBefore is the digest dst's tag names before a copy to it (empty: the
// tag is new), and whether that is known: from what the caller saw of a
// registry (Options.NewTag, Options.Tagged), else from one lookup of the
// tag. A destination by digest, or the local store, has no tag to move. A
// lookup that fails leaves it unknown, and the copy as it was before it
// looked, unless NoOverwrite needs to know.
func taggedBefore(ctx context.Context, dst *target.Target, opts Options) (digest.Digest, bool, error) {
	switch {
	case dst.Kind == target.KindLocal || dst.Ref.Tag == "" || dst.Ref.Digest != "":
		return "", false, nil
	case dst.Kind == target.KindLayout:
		// What the caller saw may be stale: a layout read now is read
		// under the lock its writer holds, and costs no request.
	case opts.NewTag:
		return "", true, nil
	case opts.Tagged != "":
		return opts.Tagged, true, nil
	}
	current, err := taggedNow(ctx, dst)
	if err != nil {
		return "", false, err
	}
	return current, true, nil
}

// recordMounts records that the registries of src and dst hold the blobs
// that vetted lists as the successors of the copied manifests.
func recordMounts(m Mounts, src, dst *target.Target, vetted map[digest.Digest][]ocispec.Descriptor) {
	if m == nil {
		return
	}
	var ds []digest.Digest
	for _, succ := range vetted {
		for _, d := range succ {
			if _, manifest := vetted[d.Digest]; !manifest {
				ds = append(ds, d.Digest)
			}
		}
	}
	for _, t := range []*target.Target{src, dst} {
		if t.Kind == target.KindRemote {
			m.Add(t.Ref.Registry, t.Ref.Repository, ds...)
		}
	}
}

// digestTagSuffixes are the tags cosign puts its signatures, attestations
// and SBOMs under: sha256-<hex of the subject>.sig and so on.
var digestTagSuffixes = []string{".sig", ".att", ".sbom"}

// copyDigestTags copies what cosign tagged after the package's digest, as
// regctl image copy --digest-tags does. Their blobs count against the
// size limit, as referrers do.
func copyDigestTags(ctx context.Context, from source, src, dst *target.Target, desc ocispec.Descriptor, graph oras.CopyGraphOptions) error {
	if src.Kind == target.KindLocal || dst.Kind == target.KindLocal {
		return nil
	}
	tags, err := src.Tags(ctx)
	if err != nil {
		return err
	}
	prefix := desc.Digest.Algorithm().String() + "-" + desc.Digest.Encoded()
	for _, suffix := range digestTagSuffixes {
		tag := prefix + suffix
		if !slices.Contains(tags, tag) {
			continue
		}
		d, err := src.GraphTarget.Resolve(ctx, tag)
		if err != nil {
			return src.Explain(fmt.Errorf("resolve %s: %w", tag, err))
		}
		if err := oras.CopyGraph(ctx, from, dst.GraphTarget, d, graph); err != nil {
			return explainCopy(err, from.failed.get(), src, dst)
		}
		if err := dst.GraphTarget.Tag(ctx, d, tag); err != nil {
			return dst.Explain(fmt.Errorf("tag %s: %w", tag, err))
		}
	}
	return nil
}

// mountFrom names the repositories blobs can be mounted from in dst: src's
// own, when it is another repository of the same registry, then those m
// knows of. It is nil when dst is not a registry.
func mountFrom(src, dst *target.Target, m Mounts) func(context.Context, ocispec.Descriptor) ([]string, error) {
	if dst.Kind != target.KindRemote {
		return nil
	}
	sameRegistry := src.Kind == target.KindRemote && src.Ref.Registry == dst.Ref.Registry && src.Ref.Repository != dst.Ref.Repository
	if !sameRegistry && m == nil {
		return nil
	}
	return func(_ context.Context, d ocispec.Descriptor) ([]string, error) {
		var repos []string
		if sameRegistry {
			repos = append(repos, src.Ref.Repository)
		}
		if m != nil {
			for _, r := range m.Sources(dst.Ref.Registry, d.Digest, dst.Ref.Repository) {
				if !slices.Contains(repos, r) {
					repos = append(repos, r)
				}
			}
		}
		return repos, nil
	}
}

// pushReference pushes the manifest d from src to dst under dst's tag.
func pushReference(ctx context.Context, src content.Fetcher, dst *target.Target, d ocispec.Descriptor) error {
	rc, err := src.Fetch(ctx, d)
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := dst.GraphTarget.(registry.ReferencePusher).PushReference(ctx, d, rc, dst.Ref.Tag); err != nil {
		// oras-go reports a hook's error as the source's; this one is
		// the registry's, such as credentials without push access.
		return dst.Explain(err)
	}
	return nil
}

// fillingIncomplete is a layout or the local store answering that it
// does not hold a manifest of the graph (vetted lists their successors)
// while it lacks a blob the manifest refers to: oras-go copies nothing
// under a manifest the destination holds, and one whose corrupt blob was
// removed (see store.RemoveCorrupt, and the layout a user mended as
// stax told them) holds the manifest without it. The copy then puts the
// blob back. Asking costs a stat a blob: a registry is not asked so.
type fillingIncomplete struct {
	oras.GraphTarget
	vetted map[digest.Digest][]ocispec.Descriptor
}

func (f fillingIncomplete) Exists(ctx context.Context, d ocispec.Descriptor) (bool, error) {
	held, err := f.GraphTarget.Exists(ctx, d)
	if err != nil || !held {
		return held, err
	}
	for _, succ := range f.vetted[d.Digest] {
		if held, err := f.Exists(ctx, succ); err != nil || !held {
			return held, err
		}
	}
	return true, nil
}

// withoutRootLookup returns dst answering, without a request, that it
// does not hold the manifest root; it keeps dst's Mount.
func withoutRootLookup(dst oras.GraphTarget, root digest.Digest) oras.GraphTarget {
	t := rootNotHeld{GraphTarget: dst, root: root}
	if m, ok := dst.(registry.Mounter); ok {
		return struct {
			rootNotHeld
			registry.Mounter
		}{t, m}
	}
	return t
}

type rootNotHeld struct {
	oras.GraphTarget
	root digest.Digest
}

func (r rootNotHeld) Exists(ctx context.Context, d ocispec.Descriptor) (bool, error) {
	if d.Digest == r.root {
		return false, nil
	}
	return r.GraphTarget.Exists(ctx, d)
}

// tagUnlessTagged tags desc in dst, unless dst is a registry whose tag
// names desc already: a re-push then writes nothing.
func tagUnlessTagged(ctx context.Context, dst *target.Target, desc ocispec.Descriptor) error {
	if dst.Kind == target.KindRemote && dst.Ref.Tag != "" && dst.Ref.Digest == "" {
		if current, err := dst.GraphTarget.Resolve(ctx, dst.Ref.Tag); err == nil && current.Digest == desc.Digest {
			return nil
		}
	}
	return dst.TagAs(ctx, desc)
}

// Check reads and vets the manifest and config of the package at desc, and
// refuses a package whose blobs add up to more than maxSize (0: the
// default limit, negative: none) or past the 64-bit maximum.
func Check(ctx context.Context, src *target.Target, desc ocispec.Descriptor, maxSize int64) (*artifact.Package, error) {
	pkg, err := artifact.Fetch(ctx, src, desc)
	pkg, _, err = checked(src, pkg, err, maxSize)
	return pkg, err
}

// CheckBuilt is Check for a package just built into src from a directory,
// whose config is cfg, encoded as the blob cfgDesc: cfg is vetted in
// memory rather than read back (see artifact.FetchBuilt).
func CheckBuilt(ctx context.Context, src *target.Target, desc ocispec.Descriptor, cfg *artifact.Config, cfgDesc ocispec.Descriptor, maxSize int64) (*artifact.Package, error) {
	pkg, err := artifact.FetchBuilt(ctx, src, desc, cfg, cfgDesc)
	pkg, _, err = checked(src, pkg, err, maxSize)
	return pkg, err
}

// checked explains the error of reading the package pkg from src and
// checks its layers' sizes, returning their sum.
func checked(src *target.Target, pkg *artifact.Package, err error, maxSize int64) (*artifact.Package, int64, error) {
	if errors.Is(err, artifact.ErrInvalidPackage) {
		return nil, 0, errdefs.Invalid(fmt.Errorf("%s: %w", src.Name(), err))
	}
	if err != nil {
		return nil, 0, src.Explain(err)
	}
	used, err := LayersSize(pkg.Manifest.Layers, maxSize)
	if err != nil {
		return nil, 0, errdefs.Invalid(fmt.Errorf("%s: its layers %w", src.Name(), err))
	}
	return pkg, used, nil
}

// LayersSize adds up the sizes of a package's layers, refusing what Check
// refuses: a negative size, a sum past the 64-bit maximum, and one over
// the limit maxSize means (see Options.MaxSize).
func LayersSize(layers []ocispec.Descriptor, maxSize int64) (int64, error) {
	budget := &sizeBudget{limit: limit(maxSize)}
	for _, l := range layers {
		if err := budget.add(l); err != nil {
			return 0, err
		}
	}
	return budget.used, nil
}

// limit is the size limit maxSize means: 0 the default, negative none.
func limit(maxSize int64) int64 {
	if maxSize == 0 {
		return layers.DefaultMaxSize
	}
	return maxSize
}

// sizeBudget adds up the sizes of the blobs of a copy, refusing a negative
// size, a sum past the 64-bit maximum, and one over the limit (when it is
// positive). It is safe for concurrent use.
type sizeBudget struct {
	mu    sync.Mutex
	limit int64
	used  int64
}

func (b *sizeBudget) add(d ocispec.Descriptor) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case d.Size < 0:
		return fmt.Errorf("include %s with a negative size (%d)", d.Digest, d.Size)
	case d.Size > math.MaxInt64-b.used:
		return fmt.Errorf("declare sizes whose sum would overflow (%s claims %d bytes)", d.Digest, d.Size)
	}
	b.used += d.Size
	if b.limit > 0 && b.used > b.limit {
		return fmt.Errorf("hold %d bytes, over the %d-byte limit; pass --max-size to allow more", b.used, b.limit)
	}
	return nil
}

// explainCopy attributes a copy failure to the side it happened on. Bytes
// that do not match their digest, and reads that failed, are the source's
// fault even when the destination, reading from it, is the one that
// noticed; readErr is the first error of reading from the source.
func explainCopy(err, readErr error, src, dst *target.Target) error {
	var copyErr *oras.CopyError
	if errors.Is(err, content.ErrMismatchedDigest) {
		return src.Explain(err)
	}
	if readErr != nil {
		return src.Explain(readErr)
	}
	if errdefs.Of(err) != errdefs.Unclassified {
		return err // explained where it happened, in a hook
	}
	if errors.As(err, &copyErr) && copyErr.Origin == oras.CopyErrorOriginDestination {
		return dst.Explain(copyErr.Err)
	}
	if errors.As(err, &copyErr) {
		return src.Explain(copyErr.Err)
	}
	return src.Explain(err)
}

// DefaultConcurrency is how many packages a command looks up and fetches
// at once when not told. Packages of skills are small, and fetching one
// is a round trip or two of waiting on the registry: ten of them, a
// project's worth, then cost two round trips rather than seven (3,
// oras's default, is meant for the layers of one image). Extracting
// layers, which is CPU and disk work, is bounded apart from it (see
// layers.ExtractWorkers).
const DefaultConcurrency = inorder.DefaultLimit
