package store

import (
	"slices"
	"strings"

	"github.com/stax-dev/stax/internal/editdistance"
)

// Nearest lists at most limit of tags closest to want, closest first:
// within a few edits of it, or sharing its name or the start of it. It
// is what a message about a missing tag offers instead.
func Nearest(tags []string, want string, limit int) []string {
	name, _, _ := strings.Cut(want, ":")
	type candidate struct {
		tag      string
		distance int
	}
	var found []candidate
	for _, tag := range tags {
		d := editdistance.Levenshtein(tag, want)
		tagName, _, _ := strings.Cut(tag, ":")
		near := d <= max(2, len(want)/4) || tagName == name ||
			strings.HasPrefix(tag, name) || strings.HasPrefix(want, tagName)
		if near {
			found = append(found, candidate{tag, d})
		}
	}
	slices.SortStableFunc(found, func(a, b candidate) int { return a.distance - b.distance })
	out := make([]string, 0, min(len(found), limit))
	for _, c := range found[:min(len(found), limit)] {
		out = append(out, c.tag)
	}
	return out
}
