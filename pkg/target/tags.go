package target

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/store"
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
	tags = slices.DeleteFunc(tags, IsDigestTag)
	if len(tags) == 0 {
		return ""
	}
	shown := nearestTags(tags, t.Ref.Tag, maxTagsShown)
	repo := t.Ref
	repo.Tag, repo.Digest = "", ""
	more := ""
	if len(tags) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(tags)-len(shown))
	}
	return fmt.Sprintf("; %s has the tags %s%s (stax tags %s lists them)", repo.Familiar(), strings.Join(shown, ", "), more, repo.Familiar())
}

// nearestTags returns at most n of tags, the nearest to want by edit
// distance, in the order semver.SortTags gives.
func nearestTags(tags []string, want string, n int) []string {
	tags = slices.Clone(tags)
	if len(tags) > n {
		slices.SortStableFunc(tags, func(a, b string) int {
			return store.EditDistance(a, want) - store.EditDistance(b, want)
		})
		tags = tags[:n]
	}
	semver.SortTags(tags)
	return tags
}
