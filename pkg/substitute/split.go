package substitute

import "strings"

// Split cuts an argument string, as an agent passes it to a skill, into
// the positional arguments of $ARGUMENTS[N]: words separated by white
// space, where a word in single or double quotes may hold spaces ("a b"
// is one argument). Quotes are removed and nothing else is interpreted:
// no escapes, variables or globs. An unterminated quote runs to the end.
func Split(s string) []string {
	var (
		args  []string
		word  strings.Builder
		quote rune // the open quote, or 0
		open  bool // a word has started, possibly an empty quoted one
	)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '"' || r == '\'':
			quote, open = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if open {
				args = append(args, word.String())
				word.Reset()
				open = false
			}
		default:
			word.WriteRune(r)
			open = true
		}
	}
	if open {
		args = append(args, word.String())
	}
	return args
}
