// Package editdistance ranks the words a message offers in place of a
// mistyped one: a tag, a repository, a key of a file.
package editdistance

// Levenshtein is the Levenshtein distance between a and b, in bytes: the
// words compared are ASCII names.
func Levenshtein(a, b string) int {
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

// Closest is the word of words nearest to typed, if it is near enough to
// be what was meant: one edit and one more for every four bytes of it
// (two letters swapped are two edits), or one that starts with it. It is
// "" when none is.
func Closest(typed string, words []string) string {
	best, bestDistance := "", 0
	for _, w := range words {
		d := Levenshtein(typed, w)
		near := d <= 1+len(typed)/4 || len(typed) >= 3 && len(w) > len(typed) && w[:len(typed)] == typed
		if near && (best == "" || d < bestDistance) {
			best, bestDistance = w, d
		}
	}
	return best
}
