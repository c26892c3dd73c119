package skill

import (
	"strings"
	"unicode"
)

// SplitTools splits the string form of allowed-tools into tool patterns.
//
// The Agent Skills specification separates tools with spaces
// ("Bash(git:*) Read"); Claude Code skills separate them with commas and
// put spaces inside patterns ("Bash(git add:*), Read"). Splitting on
// whitespace and commas outside parentheses reads both as their authors
// meant, and is plain whitespace splitting when there are no parentheses.
func SplitTools(s string) []string {
	var (
		out   []string
		cur   strings.Builder
		depth int
	)
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || unicode.IsSpace(r)):
			flush()
			continue
		}
		cur.WriteRune(r)
	}
	flush()
	return out
}
