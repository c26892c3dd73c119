package semver

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	mmsemver "github.com/Masterminds/semver/v3"

	"github.com/stax-dev/stax/internal/editdistance"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/termtext"
)

// Range is a set of versions written as npm and Helm write one: ^1.2.0,
// ~1.2, 1.x, >=1.0.0 <2.0.0, 1.0.0 - 2.0.0, and alternatives joined by ||.
// A pre-release is in a range only when the range names a pre-release
// itself, so ^2.0.0 never picks 2.1.0-rc.1.
type Range struct {
	text        string
	constraints *mmsemver.Constraints
}

// rangeExamples end every message about a range that does not parse.
const rangeExamples = "write a range as npm and Helm do, e.g. ^1.2.0, ~1.2, 1.x, >=1.0.0 <2.0.0, 1.0.0 - 2.0.0"

// ParseRange reads a version range.
func ParseRange(s string) (*Range, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errdefs.Invalid(fmt.Errorf("version range is empty: %s, or * for any release", rangeExamples))
	}
	c, err := mmsemver.NewConstraint(s)
	if err != nil {
		return nil, errdefs.Invalid(fmt.Errorf("version range %q: %v: %s", s, err, rangeExamples))
	}
	return &Range{text: s, constraints: c}, nil
}

// String is the range as it was written.
func (r *Range) String() string { return r.text }

// Allows reports whether v is in the range.
func (r *Range) Allows(v Version) bool { return r.constraints.Check(v.library()) }

// ParseTag reads an OCI tag as a version: MAJOR.MINOR.PATCH[-PRE], with a
// leading v accepted (v1.2.0), as Git release tags are often written. ok
// is false for a tag that is not one (latest, 1.2, sha256-….sig).
func ParseTag(tag string) (v Version, ok bool) {
	v, err := Parse(strings.TrimPrefix(tag, "v"))
	return v, err == nil
}

// Highest picks from tags the one of the highest version in r; with r nil,
// the highest release (not a pre-release). Tags that are not versions
// never match. Of two tags of one version (1.2.0 and v1.2.0), the one
// without the v wins.
func Highest(tags []string, r *Range) (tag string, ok bool) {
	var best *mmsemver.Version
	for _, t := range tags {
		v, isVersion := ParseTag(t)
		if !isVersion || (r == nil && v.Pre != "") {
			continue
		}
		lv := v.library()
		if r != nil && !r.constraints.Check(lv) {
			continue
		}
		if !ok || compareTags(t, lv, tag, best) > 0 {
			tag, best, ok = t, lv, true
		}
	}
	return tag, ok
}

// compareTags orders two version tags by version, then prefers the one
// without a leading v, so a choice never depends on the order of a list.
// It takes the versions as the library holds them, made once a tag.
func compareTags(a string, av *mmsemver.Version, b string, bv *mmsemver.Version) int {
	if c := av.Compare(bv); c != 0 {
		return c
	}
	return strings.Compare(b, a)
}

// SortTags sorts tags as people read a repository's tags: versions first,
// the highest first, then the other tags by name. Each tag is read once,
// not at each comparison: a repository can list a million tags.
func SortTags(tags []string) {
	type sortKey struct {
		tag     string
		version *mmsemver.Version // nil: not a version
	}
	keys := make([]sortKey, len(tags))
	for i, tag := range tags {
		keys[i].tag = tag
		if v, ok := ParseTag(tag); ok {
			keys[i].version = v.library()
		}
	}
	slices.SortStableFunc(keys, func(a, b sortKey) int {
		switch {
		case a.version != nil && b.version != nil:
			return compareTags(b.tag, b.version, a.tag, a.version)
		case a.version != nil:
			return -1
		case b.version != nil:
			return 1
		}
		return cmp.Compare(a.tag, b.tag)
	})
	for i, k := range keys {
		tags[i] = k.tag
	}
}

// NearestTags lists, for a message, at most n of tags in the order
// SortTags gives: the nearest to near by edit distance when near is set,
// else the first in that order (the highest versions), and says how many
// more there are. It is empty when tags is. A server named the tags, so
// each is escaped (termtext.Escape): one holding a line feed or an escape
// sequence cannot forge a line of the message or drive the terminal.
func NearestTags(tags []string, near string, n int) string {
	tags = slices.Clone(tags)
	all := len(tags)
	if near != "" && all > n {
		slices.SortStableFunc(tags, func(a, b string) int {
			return editdistance.Levenshtein(a, near) - editdistance.Levenshtein(b, near)
		})
		tags = tags[:n]
	}
	SortTags(tags)
	tags = tags[:min(n, len(tags))]
	more := ""
	if all > len(tags) {
		more = fmt.Sprintf(" and %d more", all-len(tags))
	}
	for i, tag := range tags {
		tags[i] = termtext.Escape(tag)
	}
	return strings.Join(tags, ", ") + more
}
