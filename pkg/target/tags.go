package target

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/editdistance"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/termtext"
)

// DefaultTag is the tag a reference with neither tag nor digest names,
// given the tags of its repository: the highest release (as helm install
// without --version picks it), else latest, which push never writes but
// other tools do.
func DefaultTag(tags []string) string {
	if tag, ok := semver.Highest(tags, nil); ok {
		return tag
	}
	return "latest"
}

// SelectDefault gives the target's reference, when it names neither tag
// nor digest, what such a reference means: the one manifest of a layout
// that lists only one (ko and crane write such layouts untagged), else
// DefaultTag of the repository's tags. Lookup does this itself; a copy
// does it first, to tag the destination as the source.
func (t *Target) SelectDefault(ctx context.Context) error {
	if t.Ref.Tag != "" || t.Ref.Digest != "" {
		return nil
	}
	if t.Kind == KindLayout {
		d, ok, err := SoleManifest(t.Ref.Layout)
		if err != nil {
			return err
		}
		if ok {
			t.Ref.Digest = d
			return nil
		}
	}
	tags, err := t.Tags(ctx)
	if err != nil {
		return err
	}
	t.Ref.Tag = DefaultTag(tags)
	return nil
}

// IsDigestTag reports whether tag is named after a digest rather than a
// version: cosign's sha256-<hex>.sig, .att and .sbom, and the
// sha256-<hex> tags of the OCI referrers tag schema. People listing a
// repository's tags rarely want them.
func IsDigestTag(tag string) bool {
	algorithm, rest, ok := strings.Cut(tag, "-")
	if !ok {
		return false
	}
	encoded, _, _ := strings.Cut(rest, ".")
	return digest.NewDigestFromEncoded(digest.Algorithm(algorithm), encoded).Validate() == nil
}

// maxTagsShown is how many tags a message about a missing tag lists.
const maxTagsShown = 10

// missingTagHint lists the tags of the target's repository nearest to the
// one that was not found, for the message saying so; empty when the
// repository has none or listing them fails (the not-found error is then
// all there is to say).
func (t *Target) missingTagHint(ctx context.Context) string {
	tags, err := t.Tags(ctx)
	if err != nil {
		return ""
	}
	shown := SomeTags(tags, t.Ref.Tag, maxTagsShown)
	if shown == "" {
		return t.NearRepositoryHint(ctx)
	}
	repo := t.Ref
	repo.Tag, repo.Digest = "", ""
	return fmt.Sprintf("; %s has the tags %s (stax tags %s lists them)", repo.Familiar(), shown, repo.Familiar())
}

// SomeTags lists, for a message, at most n of tags as
// semver.NearestTags does, digest tags left out.
func SomeTags(tags []string, near string, n int) string {
	return semver.NearestTags(slices.DeleteFunc(slices.Clone(tags), IsDigestTag), near, n)
}

// NearRepositoryHint names, for a message saying the target was not
// found (or its repository has no tags), the repository nearest to the
// target's, as a typo of it: one its registry's catalog lists, else one
// the local store holds packages of on the same registry. Empty when
// nothing is near, or the target's own repository is listed. A registry
// that refuses its catalog (most hosted ones do) gives no hint, and no
// error: the not-found error is what there is to say.
func (t *Target) NearRepositoryHint(ctx context.Context) string {
	switch t.Kind {
	case KindRemote:
		if t.client == nil {
			return ""
		}
		var names []string
		// A catalog refused, or cut short by its bounds, suggests from
		// what was read.
		t.client.ListRepositories(ctx, t.Host, func(page []string) error {
			names = append(names, page...)
			return nil
		})
		if near := t.nearRepository(names); near != "" {
			return fmt.Sprintf("; registry %s has no repository %s: did you mean %s?", t.Host, termtext.Escape(t.Ref.Repository), near)
		}
		return t.storedRepositoryHint(ctx, t.storeDir)
	case KindLocal:
		return t.storedRepositoryHint(ctx, t.dir)
	}
	return ""
}

// storedRepositoryHint is NearRepositoryHint from the repositories of
// the target's registry the local store in dir holds packages of.
func (t *Target) storedRepositoryHint(ctx context.Context, dir string) string {
	if dir == "" {
		return ""
	}
	keys, err := store.Tags(ctx, dir)
	if err != nil {
		return ""
	}
	var names []string
	for _, key := range keys {
		if ref, err := reference.Parse(key); err == nil && ref.Registry == t.Ref.Registry {
			names = append(names, ref.Repository)
		}
	}
	if near := t.nearRepository(slices.Compact(names)); near != "" {
		return fmt.Sprintf("; did you mean %s? (the local store holds packages of it)", near)
	}
	return ""
}

// nearRepository is the target's reference with the repository of names
// nearest to its own in place of its own, escaped for a message (the
// names come from a registry or a store: one holding a line feed or an
// escape sequence cannot forge a line or drive the terminal); empty when
// none is near, or names holds the target's own.
func (t *Target) nearRepository(names []string) string {
	if slices.Contains(names, t.Ref.Repository) {
		return ""
	}
	near := editdistance.Closest(t.Ref.Repository, names)
	if near == "" {
		return ""
	}
	meant := t.Ref
	meant.Repository, meant.Digest = near, ""
	return termtext.Escape(meant.Familiar())
}
