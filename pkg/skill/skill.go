// Package skill models SKILL.md, the entrypoint of an agent skill: YAML
// frontmatter between "---" lines at the very top of the file, then a
// Markdown body.
//
// Parsing keeps the frontmatter as a yaml.Node so that every field carries
// the line it was written on, and so that fields stax does not know survive
// a round trip unchanged. Checks that need more than one file (names that
// must be unique, names that must match directories) belong to the
// validate package; this package reports what a single file says.
package skill

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// FileName is the entrypoint every skill directory must hold.
const FileName = "SKILL.md"

// Limits of the Agent Skills specification, counted in characters (runes).
const (
	MaxNameLength          = 64
	MaxDescriptionLength   = 1024
	MaxCompatibilityLength = 500
)

// delimiter opens and closes the frontmatter.
const delimiter = "---"

// Sentinel errors wrapped by ParseError, for errors.Is.
var (
	ErrNoFrontmatter = errors.New("missing frontmatter")
	ErrUnterminated  = errors.New("unterminated frontmatter")
	ErrYAML          = errors.New("invalid frontmatter YAML")
	ErrNotMapping    = errors.New("frontmatter is not a mapping")
)

// ParseError is a SKILL.md whose frontmatter cannot be read at all.
type ParseError struct {
	// Err is ErrNoFrontmatter, ErrUnterminated, ErrYAML or ErrNotMapping.
	Err error
	// Line is the 1-based line of the file the problem was found on, or 0
	// when the YAML parser did not say.
	Line int
	// Detail says what is wrong and how to fix it.
	Detail string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Detail)
	}
	return e.Detail
}

func (e *ParseError) Unwrap() error { return e.Err }

// Document is a parsed SKILL.md.
type Document struct {
	Frontmatter *Frontmatter
	// Body is everything after the closing delimiter line, byte for byte.
	Body string
	// BodyLine is the 1-based line of the file the body starts on.
	BodyLine int
}

// BodyLineCount is the number of lines of the body; a last line without a
// trailing newline counts.
func (d *Document) BodyLineCount() int {
	if d.Body == "" {
		return 0
	}
	n := strings.Count(d.Body, "\n")
	if !strings.HasSuffix(d.Body, "\n") {
		n++
	}
	return n
}

// FrontmatterYAML re-encodes the frontmatter from the node it was parsed
// into, so unknown fields and comments survive. Formatting may change
// (yaml picks the indentation); content does not.
func (d *Document) FrontmatterYAML() ([]byte, error) {
	return d.Frontmatter.encode()
}

// Encode reassembles a SKILL.md from the frontmatter node and the body.
func (d *Document) Encode() ([]byte, error) {
	fm, err := d.FrontmatterYAML()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(delimiter + "\n")
	b.Write(fm)
	b.WriteString(delimiter + "\n")
	b.WriteString(d.Body)
	return b.Bytes(), nil
}

var utf8BOM = []byte("\xef\xbb\xbf")

// Parse splits data into frontmatter and body and decodes the frontmatter.
// It fails with a *ParseError only when the frontmatter cannot be read, or
// when data passes one of the limits (ErrTooLarge); a field of the wrong
// type is recorded in Frontmatter.Errors instead, so that every such
// problem is reported at once.
func Parse(data []byte) (*Document, error) {
	if len(data) > MaxFileSize {
		return nil, fileTooLarge(len(data))
	}
	if bytes.HasPrefix(data, utf8BOM) {
		// Runtimes look for "---" as the very first bytes; a BOM hides it.
		return nil, &ParseError{Err: ErrNoFrontmatter, Line: 1,
			Detail: "the file starts with a UTF-8 byte order mark; remove it so that line 1 is exactly ---"}
	}
	first, rest, ok := cutLine(data)
	if !isDelimiter(first) {
		return nil, &ParseError{Err: ErrNoFrontmatter, Line: 1,
			Detail: "line 1 must be --- to open the YAML frontmatter (name and description are required)"}
	}
	if !ok {
		return nil, &ParseError{Err: ErrUnterminated, Line: 1,
			Detail: "the frontmatter opened on line 1 is never closed; add a --- line after the last field"}
	}

	// Find the closing delimiter line.
	yamlStart := len(data) - len(rest)
	pos, line := yamlStart, 2
	for {
		l, next, more := cutLine(data[pos:])
		if isDelimiter(l) {
			fm := data[yamlStart:pos]
			body := data[pos+len(l):]
			if more {
				body = next
			}
			f, err := decode(fm)
			if err != nil {
				return nil, err
			}
			return &Document{Frontmatter: f, Body: string(body), BodyLine: line + 1}, nil
		}
		if !more {
			return nil, &ParseError{Err: ErrUnterminated, Line: 1,
				Detail: "the frontmatter opened on line 1 is never closed; add a --- line after the last field"}
		}
		pos = len(data) - len(next)
		if pos-yamlStart > MaxFrontmatterSize {
			return nil, frontmatterTooLarge(line)
		}
		line++
	}
}

// cutLine returns the first line of b without its "\n", the bytes after
// that newline, and whether there was a newline at all.
func cutLine(b []byte) (line, rest []byte, ok bool) {
	return bytes.Cut(b, []byte("\n"))
}

// isDelimiter accepts "---" with an optional "\r", so files saved with
// Windows line endings parse the same.
func isDelimiter(line []byte) bool {
	return string(bytes.TrimSuffix(line, []byte("\r"))) == delimiter
}
