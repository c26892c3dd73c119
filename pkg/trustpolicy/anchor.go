package trustpolicy

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"

	"github.com/stax-dev/stax/pkg/termtext"
)

// Unanchored says, for each regular expression of id not anchored at
// both ends, that it matches anywhere in the value, what else it accepts,
// and how to anchor it. cosign matches such an expression as written, and
// so does stax; but `.*@acme.example` trusting evil@acme.example.attacker.com
// is rarely what its writer meant, so the caller warns. Expressions that
// do not compile are Check's to report, and left out.
func (id Identity) Unanchored() []string {
	var out []string
	for _, p := range []struct{ what, re string }{
		{"certificate identity", id.SubjectRegExp},
		{"OIDC issuer", id.IssuerRegExp},
	} {
		if p.re == "" {
			continue
		}
		if w := unanchored(p.what, p.re); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// unanchored is the warning for the expression re of what, or "" when it
// is anchored at both ends or does not compile.
func unanchored(what, re string) string {
	parsed, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return ""
	}
	compiled, err := regexp.Compile(re)
	if err != nil {
		return ""
	}
	start, end := anchoredStart(parsed), anchoredEnd(parsed)
	if start && end {
		return ""
	}
	msg := fmt.Sprintf("the %s pattern %s is not anchored: it matches anywhere in the %[1]s", what, quotePattern(re))
	if other := otherMatch(parsed, start, end); compiled.MatchString(other) {
		msg += ", so it also accepts " + quotePattern(other)
	}
	return msg + "; to match the whole " + what + ", write " + quotePattern(anchor(escapeDots(re), start, end))
}

// escapeDots is re with each dot that stands alone between two letters or
// digits escaped: the dot of a host name (acme.example), which unescaped
// matches any character, so that ^.*@acme.example$ would still accept
// evil@acme-example. A dot with a quantifier after it (.*, .+) or beside
// anything else is left as written.
func escapeDots(re string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(re); i++ {
		c := re[i]
		switch {
		case c == '\\' && i+1 < len(re):
			b.WriteString(re[i : i+2])
			i++
			continue
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '.' && !inClass && i > 0 && i+1 < len(re) && isWordByte(re[i-1]) && isWordByte(re[i+1]) && (i < 2 || re[i-2] != '\\'):
			b.WriteString(`\.`)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// anchor is re anchored at both ends: ^ and $ added where missing, unless
// that leaves it unanchored (an alternation, or flags such as (?m) that
// change what a $ after them means), when it is grouped inside them.
func anchor(re string, start, end bool) string {
	anchored := re
	if !start {
		anchored = "^" + anchored
	}
	if !end {
		anchored += "$"
	}
	if parsed, err := syntax.Parse(anchored, syntax.Perl); err == nil && anchoredStart(parsed) && anchoredEnd(parsed) {
		return anchored
	}
	return "^(?:" + re + ")$"
}

// anchoredStart reports whether every match of re begins at the start of
// the text.
func anchoredStart(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginText:
		return true
	case syntax.OpConcat:
		return len(re.Sub) > 0 && anchoredStart(re.Sub[0])
	case syntax.OpCapture:
		return anchoredStart(re.Sub[0])
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !anchoredStart(sub) {
				return false
			}
		}
		return true
	}
	return false
}

// anchoredEnd reports whether every match of re ends at the end of the
// text.
func anchoredEnd(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEndText:
		return true
	case syntax.OpConcat:
		return len(re.Sub) > 0 && anchoredEnd(re.Sub[len(re.Sub)-1])
	case syntax.OpCapture:
		return anchoredEnd(re.Sub[0])
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !anchoredEnd(sub) {
				return false
			}
		}
		return true
	}
	return false
}

// otherMatch is a value re accepts that its writer likely did not mean: a
// short match of re with text before it when the start is not anchored,
// and after it when the end is not. The caller checks that re accepts it.
func otherMatch(re *syntax.Regexp, start, end bool) string {
	var b strings.Builder
	shortMatch(re, &b)
	s := b.String()
	if !start {
		s = "evil" + s
	}
	if !end {
		if strings.HasSuffix(s, "/") {
			s += "evil"
		} else {
			s += ".attacker.com"
		}
	}
	return s
}

// shortMatch writes a short text re matches, taking the likely meant
// character where re allows many: a dot for any character, as in an
// unescaped acme.example.
func shortMatch(re *syntax.Regexp, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(classRune(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('.')
	case syntax.OpCapture, syntax.OpPlus, syntax.OpAlternate:
		shortMatch(re.Sub[0], b)
	case syntax.OpRepeat:
		for range re.Min {
			shortMatch(re.Sub[0], b)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			shortMatch(sub, b)
		}
	}
}

// classRune is a readable rune of the class ranges: a letter, digit or
// punctuation where the class has one.
func classRune(ranges []rune) rune {
	for _, r := range "ax0-." {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= r && r <= ranges[i+1] {
				return r
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1] >= '!' {
			return max(ranges[i], '!')
		}
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'x'
}

// quotePattern quotes a pattern for a terminal: between backquotes as
// written when the one rule of what prints (pkg/termtext) leaves it as it
// is, so that it reads and copies as it was typed, else escaped.
func quotePattern(s string) string {
	if termtext.Escape(s) == s && !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	return strconv.QuoteToASCII(s)
}
