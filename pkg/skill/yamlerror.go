package skill

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblems are the messages of yaml.v3's parser (as opposed to its
// scanner). yaml.v3 v3.0.1 prints the line of a scanner error 1-based but
// the line of a parser error 0-based, and omits "line 0": the two must be
// told apart to point at the right line.
var parserProblems = []string{
	"did not find expected <stream-start>",
	"did not find expected <document start>",
	"did not find expected node content",
	"did not find expected key",
	"did not find expected '-' indicator",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"found duplicate %YAML directive",
	"found duplicate %TAG directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// quotingProblems are the messages that an unquoted value usually causes.
var quotingProblems = []string{
	"mapping values are not allowed in this context",
	"found character that cannot start any token",
	"did not find expected key",
}

// yamlError turns an error of yaml.Unmarshal on the frontmatter fm into a
// ParseError that points at a line of the file.
func yamlError(err error, fm []byte) *ParseError {
	msg := err.Error()
	yamlLineNo := 0 // 1-based line of the frontmatter, 0 when unknown
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		yamlLineNo, msg = n, m[2]
		if isParserProblem(msg) {
			yamlLineNo++
		}
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
		switch {
		case isParserProblem(msg):
			yamlLineNo = 1 // a 0-based line 0, which yaml.v3 leaves out
		case isReaderProblem(msg):
			// Reader errors carry no line; find the bad bytes ourselves.
			yamlLineNo = unprintableLine(fm)
		case strings.HasPrefix(msg, "unknown anchor"):
			yamlLineNo = aliasLine(fm, msg)
		default:
			yamlLineNo = 1 // a scanner error on line 1, which yaml.v3 leaves out
		}
	}
	for _, p := range quotingProblems {
		if strings.HasPrefix(msg, p) {
			msg += ` (a value that contains ": " or " #", or starts with one of [ { * & ! | > % @ or a backquote, must be quoted)`
			break
		}
	}
	pe := &ParseError{Err: ErrYAML, Detail: "invalid YAML in frontmatter: " + msg}
	if yamlLineNo > 0 {
		pe.Line = yamlLineNo + frontmatterOffset
	}
	return pe
}

func isParserProblem(msg string) bool {
	for _, p := range parserProblems {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// readerProblems are the messages of yaml.v3's reader, which checks the
// encoding of the input before any YAML is parsed.
var readerProblems = []string{
	"invalid leading UTF-8 octet",
	"incomplete UTF-8 octet sequence",
	"invalid trailing UTF-8 octet",
	"invalid Unicode character",
	"control characters are not allowed",
}

func isReaderProblem(msg string) bool {
	for _, p := range readerProblems {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// unprintableLine is the 1-based line of the first sequence of b that is
// not UTF-8 or is a character YAML does not allow, or 0 if there is none.
func unprintableLine(b []byte) int {
	line := 1
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 || !yamlPrintable(r) {
			return line
		}
		if r == '\n' {
			line++
		}
		b = b[size:]
	}
	return 0
}

// yamlPrintable is YAML's set of characters allowed in a stream.
func yamlPrintable(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r', r == 0x85:
		return true
	case r >= 0x20 && r <= 0x7e, r >= 0xa0 && r <= 0xd7ff, r >= 0x10000 && r <= 0x10ffff:
		return true
	case r >= 0xe000 && r <= 0xfffd:
		return r != 0xfeff // a byte order mark is allowed only at the start
	}
	return false
}

var unknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced`)

// aliasLine is the 1-based line of the first use of the unknown anchor
// named in msg, or 0.
func aliasLine(fm []byte, msg string) int {
	m := unknownAnchor.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	for i, l := range strings.Split(string(fm), "\n") {
		if strings.Contains(l, "*"+m[1]) {
			return i + 1
		}
	}
	return 0
}
