package stateful

import "strings"

// The sibling files are read as Markdown only as far as their structure
// needs: ATX headings ("## Title") outside fenced code blocks, list items,
// and paragraphs. Setext headings (a title underlined with === or ---) are
// not recognised: the spec's sections are all written "## Title", and
// treating a "---" line as a heading underline would misread thematic
// breaks.

// fence says where a line sits relative to a fenced code block.
type fence uint8

const (
	outside fence = iota
	opening       // the ``` or ~~~ line that opens a block
	inside        // a line of the block, or the line that closes it
)

// mdLine is one line of a Markdown text.
type mdLine struct {
	// raw is the line with its line ending, as written.
	raw string
	// num is the 1-based line of the file.
	num   int
	fence fence
	// heading is the ATX heading level, 0 when the line is not a heading.
	heading int
	// title is the text of a heading.
	title string
}

func (l mdLine) blank() bool { return l.fence == outside && strings.TrimSpace(l.raw) == "" }

// scanLines splits text, which starts on line first of its file, into
// lines and marks headings and fenced code.
func scanLines(text string, first int) []mdLine {
	var out []mdLine
	var fenceMark string // the opening fence while inside a block
	num := first
	for text != "" {
		raw := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			raw = text[:i+1]
		}
		text = text[len(raw):]
		l := mdLine{raw: raw, num: num}
		num++
		content := strings.TrimRight(raw, "\r\n")
		if fenceMark != "" {
			l.fence = inside
			if closesFence(content, fenceMark) {
				fenceMark = ""
			}
			out = append(out, l)
			continue
		}
		if mark := opensFence(content); mark != "" {
			l.fence = opening
			fenceMark = mark
			out = append(out, l)
			continue
		}
		l.heading, l.title = atxHeading(content)
		out = append(out, l)
	}
	return out
}

// indentation is the number of leading spaces of s, a tab counting as
// four, and s without them.
func indentation(s string) (int, string) {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n, s[i:]
		}
	}
	return n, ""
}

// opensFence returns the fence a line opens (``` or ~~~, three or more),
// or "".
func opensFence(s string) string {
	n, rest := indentation(s)
	if n > 3 {
		return ""
	}
	for _, c := range []byte{'`', '~'} {
		run := 0
		for run < len(rest) && rest[run] == c {
			run++
		}
		if run >= 3 {
			if c == '`' && strings.ContainsRune(rest[run:], '`') {
				return "" // an info string with a backquote: inline code, not a fence
			}
			return rest[:run]
		}
	}
	return ""
}

// closesFence reports whether s closes a block opened with mark: the same
// character, at least as many times, and nothing else on the line.
func closesFence(s, mark string) bool {
	n, rest := indentation(s)
	if n > 3 {
		return false
	}
	rest = strings.TrimRight(rest, " \t")
	return len(rest) >= len(mark) && strings.Trim(rest, mark[:1]) == ""
}

// atxHeading returns the level and text of an ATX heading line, or 0.
func atxHeading(s string) (int, string) {
	n, rest := indentation(s)
	if n > 3 {
		return 0, ""
	}
	level := 0
	for level < len(rest) && rest[level] == '#' {
		level++
	}
	if level == 0 || level > 6 {
		return 0, ""
	}
	rest = rest[level:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "" // "#hashtag" is text
	}
	title := strings.TrimSpace(rest)
	// A closing sequence of #s, preceded by a space, is not part of the title.
	if t := strings.TrimRight(title, "#"); t != title && (t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		title = strings.TrimSpace(t)
	}
	return level, title
}

// mdSection is an H2 heading and the lines up to the next one.
type mdSection struct {
	heading mdLine
	body    []mdLine
}

// splitH2 splits lines at their level-2 headings: the lines before the
// first one, and each section.
func splitH2(lines []mdLine) ([]mdLine, []mdSection) {
	var pre []mdLine
	var secs []mdSection
	for _, l := range lines {
		switch {
		case l.fence == outside && l.heading == 2:
			secs = append(secs, mdSection{heading: l})
		case len(secs) == 0:
			pre = append(pre, l)
		default:
			secs[len(secs)-1].body = append(secs[len(secs)-1].body, l)
		}
	}
	return pre, secs
}

// join concatenates lines without the blank lines at either end.
func join(lines []mdLine) (string, int) {
	for len(lines) > 0 && lines[0].blank() {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1].blank() {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return "", 0
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.raw)
	}
	return b.String(), lines[0].num
}

// listItem reports whether s starts a list item: "-", "*", "+" or a
// number followed by "." or ")", then a space, indented at most 3 spaces.
func listItem(s string) bool {
	n, rest := indentation(s)
	if n > 3 || rest == "" {
		return false
	}
	switch rest[0] {
	case '-', '*', '+':
		return len(rest) == 1 || rest[1] == ' ' || rest[1] == '\t' || rest[1] == '\r' || rest[1] == '\n'
	}
	i := 0
	for i < len(rest) && i < 9 && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(rest) || (rest[i] != '.' && rest[i] != ')') {
		return false
	}
	i++
	return i == len(rest) || rest[i] == ' ' || rest[i] == '\t' || rest[i] == '\r' || rest[i] == '\n'
}

// normalizeTitle is a heading title compared with the conventional ones:
// lowercase, single spaces, straight apostrophes, no trailing colon.
func normalizeTitle(s string) string {
	s = strings.ReplaceAll(s, "’", "'")
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimSpace(strings.TrimSuffix(s, ":"))
}
