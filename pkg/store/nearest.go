package store

import (
	"slices"
	"strings"
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
		d := EditDistance(tag, want)
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

// EditDistance is the Levenshtein distance between a and b, in bytes:
// tags are ASCII. Messages that offer the nearest tags rank them by it.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
