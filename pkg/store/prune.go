package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// Pruned is what Prune removed from a store, or would remove.
type Pruned struct {
	// Manifests are the manifests no tag reaches, listed in index.json by
	// digest alone (packages fetched by digest, such as dependencies,
	// and what a moved tag left behind), sorted.
	Manifests []digest.Digest `json:"manifests"`
	// Tags are the tags of the referrers tag schema whose subject is
	// removed, sorted.
	Tags []string `json:"tags"`
	// Blobs counts the files of blobs/ removed, manifests included, and
	// Bytes their size.
	Blobs int   `json:"blobs"`
	Bytes int64 `json:"bytes"`
}

// Prune removes from the store what no tag reaches: the manifests listed
// by digest alone, and every blob nothing kept refers to. What a tag names
// is kept with all it refers to (config, layers, the manifests of an
// index, a subject), and so are the referrers of what is kept (signatures,
// SBOMs, attestations, and their referrers), found by their subject, with
// the referrers index that lists them. roots are kept as a tag is, with
// all they refer to and their referrers: the packages a project's
// stax.lock pins, which install --frozen --offline takes from here. A dry
// run reads the same and changes nothing.
//
// index.json is rewritten first, then the blobs go: a prune killed part
// way leaves blobs no index lists, which the next prune removes, never an
// index that lists a removed blob. Prune needs the store opened for
// writing, but for a dry run: the exclusive lock keeps every other command
// out, so no blob a pull is writing is taken for garbage.
func (s *Store) Prune(ctx context.Context, dryRun bool, roots ...digest.Digest) (*Pruned, error) {
	if !dryRun && !s.writer {
		return nil, errdefs.MarkLocal(fmt.Errorf("prune %s: the store is not opened for writing", s.Dir))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	kept, dropTags, err := s.reachable(ctx, roots, dryRun)
	if err != nil {
		return nil, err
	}
	pruned := &Pruned{Manifests: []digest.Digest{}, Tags: dropTags}
	drop := slices.Clone(dropTags)
	for ref, desc := range s.index.refs {
		if ref == desc.Digest.String() && !kept[desc.Digest] {
			pruned.Manifests = append(pruned.Manifests, desc.Digest)
			drop = append(drop, ref)
		}
	}
	slices.Sort(pruned.Manifests)
	garbage, err := s.unreachableBlobs(ctx, kept, pruned)
	if err != nil || dryRun {
		return pruned, err
	}
	if len(drop) > 0 {
		for _, ref := range drop {
			delete(s.index.refs, ref)
		}
		if err := s.saveIndex(); err != nil {
			return nil, err
		}
		// What the graph says refers to what is built again when asked.
		s.graph = nil
	}
	var errs []error
	for _, name := range garbage {
		if err := s.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return pruned, errdefs.MarkLocal(fmt.Errorf("prune %s: %w", s.Dir, err))
	}
	return pruned, nil
}

// reachable returns the digests of what the store keeps (see Prune),
// tagged or among roots, and the referrers tags whose subject it does not
// keep. A dry run removes no damaged manifest. The caller holds s.mu.
func (s *Store) reachable(ctx context.Context, roots []digest.Digest, dryRun bool) (map[digest.Digest]bool, []string, error) {
	w := &pruneWalk{ctx: ctx, s: s, kept: map[digest.Digest]bool{}, dryRun: dryRun}
	refs := slices.Sorted(maps.Keys(s.index.refs))
	var referrersTags []string
	for _, ref := range refs {
		desc := s.index.refs[ref]
		switch {
		case ref == desc.Digest.String():
		case isReferrersTag(ref):
			referrersTags = append(referrersTags, ref)
		default:
			if err := w.keep(desc); err != nil {
				return nil, nil, err
			}
		}
	}
	for _, root := range roots {
		// A root the store does not list by its digest is a package it
		// keeps by a tag, or does not hold.
		if desc, ok := s.index.refs[root.String()]; ok && desc.Digest == root {
			if err := w.keep(desc); err != nil {
				return nil, nil, err
			}
		}
	}
	// The referrers of what is kept, found by their subject, until no
	// more are found: a signature of an SBOM of a package is kept too.
	subjects := map[digest.Digest]digest.Digest{}
	for _, ref := range refs {
		desc := s.index.refs[ref]
		if ref != desc.Digest.String() || w.kept[desc.Digest] {
			continue
		}
		subject, err := s.subjectOf(ctx, desc)
		switch {
		case errors.Is(err, errdef.ErrNotFound):
			continue
		case errors.Is(err, content.ErrMismatchedDigest), errors.Is(err, content.ErrTrailingData):
			return nil, nil, s.corruptManifest(desc, dryRun)
		case err != nil:
			return nil, nil, err
		}
		if subject != nil {
			subjects[desc.Digest] = subject.Digest
		}
	}
	for found := true; found; {
		found = false
		for _, d := range slices.Sorted(maps.Keys(subjects)) {
			if w.kept[subjects[d]] {
				delete(subjects, d)
				if err := w.keep(s.index.refs[d.String()]); err != nil {
					return nil, nil, err
				}
				found = true
			}
		}
	}
	var dropTags []string
	for _, tag := range referrersTags {
		alg, hex, _ := strings.Cut(tag, "-")
		if !w.kept[digest.NewDigestFromEncoded(digest.Algorithm(alg), hex)] {
			dropTags = append(dropTags, tag)
		} else if err := w.keep(s.index.refs[tag]); err != nil {
			return nil, nil, err
		}
	}
	if dropTags == nil {
		dropTags = []string{}
	}
	return w.kept, dropTags, nil
}

// pruneWalk marks what a manifest refers to, and what that refers to.
type pruneWalk struct {
	ctx  context.Context
	s    *Store
	kept map[digest.Digest]bool
	// dryRun leaves a damaged manifest in place.
	dryRun bool
}

func (w *pruneWalk) keep(desc ocispec.Descriptor) error {
	queue := []ocispec.Descriptor{desc}
	for len(queue) > 0 {
		d := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if w.kept[d.Digest] {
			continue
		}
		w.kept[d.Digest] = true
		if !isManifest(d.MediaType) {
			continue
		}
		next, err := w.s.successors(w.ctx, d, w.dryRun)
		if err != nil {
			return err
		}
		queue = append(queue, next...)
	}
	return nil
}

// successors returns what the manifest desc refers to; none when the
// store does not hold it. A manifest that cannot be read stops a prune:
// what it refers to is unknown, and would be removed.
func (s *Store) successors(ctx context.Context, desc ocispec.Descriptor, dryRun bool) ([]ocispec.Descriptor, error) {
	if desc.Size > maxManifestSize {
		return nil, errdefs.Invalid(fmt.Errorf("prune %s: manifest %s is over %d bytes: nothing was removed", s.Dir, desc.Digest, maxManifestSize))
	}
	next, err := content.Successors(ctx, s.blobs, plain(desc))
	switch {
	case errors.Is(err, errdef.ErrNotFound):
		return nil, nil
	case errors.Is(err, content.ErrMismatchedDigest), errors.Is(err, content.ErrTrailingData):
		return nil, s.corruptManifest(desc, dryRun)
	case err != nil:
		return nil, errdefs.MarkLocal(fmt.Errorf("prune %s: read manifest %s: %w: nothing was removed", s.Dir, desc.Digest, err))
	}
	return next, nil
}

// corruptManifest removes the store's copy of the manifest desc, whose
// content does not match its digest, and explains it. The store is
// stax's cache, and prune holds its write lock: a copy that does not
// verify is of no use, and left in place it fails every prune. What it
// referred to is unknown, so this prune removes nothing else; the next
// one finds the manifest gone and removes what nothing kept refers to.
// The tag that names it is left: index.json is the record of what was
// pulled, and the next pull or install of the package fetches the
// manifest again under it. A dry run changes nothing, and in a store
// opened for reading holds the shared lock alone: it leaves the copy.
// The caller holds s.mu.
func (s *Store) corruptManifest(desc ocispec.Descriptor, dryRun bool) error {
	file := BlobFile(s.Dir, desc)
	if dryRun || !s.writer {
		return errdefs.MarkDataLoss(fmt.Errorf("prune %s: manifest %s does not match its digest: nothing was removed; run `stax store prune` without --dry-run to remove the corrupt copy %s", s.Dir, desc.Digest, file))
	}
	removed, err := removeCorrupt(s.root, desc)
	if err != nil {
		return errdefs.MarkDataLoss(fmt.Errorf("prune %s: manifest %s does not match its digest, and removing it failed (%v): nothing was removed; remove %s, then run `stax store prune` again", s.Dir, desc.Digest, err, file))
	}
	if !removed {
		// The copy holds its digest: what does not match is the size
		// the record naming it gives, and the copy, perhaps the only
		// one, is kept.
		return errdefs.MarkDataLoss(fmt.Errorf("prune %s: manifest %s is recorded with size %d, which its stored copy %s, matching its digest, does not have: the record naming it was altered; nothing was removed: pull (or pack) that package again to record it anew, then run `stax store prune` again", s.Dir, desc.Digest, desc.Size, file))
	}
	s.graph = nil
	return errdefs.MarkDataLoss(fmt.Errorf("prune %s: the store's copy of manifest %s was corrupt, its content did not match its digest; it was removed from the store (a tag naming it is kept: the next pull or install of that package fetches it again, or pack it again if it was packed here), and nothing else was removed: run `stax store prune` again", s.Dir, desc.Digest))
}

// unreachableBlobs returns the files of blobs/ that hold no digest in
// kept, and counts them in pruned. Files whose name is no digest are
// not the store's, and are left.
func (s *Store) unreachableBlobs(ctx context.Context, kept map[digest.Digest]bool, pruned *Pruned) ([]string, error) {
	var garbage []string
	for _, alg := range []digest.Algorithm{digest.SHA256, digest.SHA384, digest.SHA512} {
		dir := path.Join(ocispec.ImageBlobsDir, alg.String())
		entries, err := fs.ReadDir(s.root.FS(), dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, errdefs.MarkLocal(fmt.Errorf("prune %s: %w", s.Dir, err))
		}
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			d := digest.NewDigestFromEncoded(alg, e.Name())
			if !e.Type().IsRegular() || d.Validate() != nil || kept[d] {
				continue
			}
			info, err := e.Info()
			if err != nil {
				return nil, errdefs.MarkLocal(fmt.Errorf("prune %s: %w", s.Dir, err))
			}
			garbage = append(garbage, path.Join(dir, e.Name()))
			pruned.Blobs++
			pruned.Bytes += info.Size()
		}
	}
	return garbage, nil
}
