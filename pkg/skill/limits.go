package skill

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/stax-dev/stax/internal/bytesize"
	"github.com/stax-dev/stax/internal/regularfile"
)

// The limits of a SKILL.md, shared by every command that reads one
// (validate, pack, install, list, render, mcp), so that a file one of them
// accepts is never refused, or worse exhausts memory, in another.
const (
	// MaxFileSize bounds a whole SKILL.md. A runtime puts the body in a
	// context window, and no context window holds more than a few MiB of
	// text: a larger file is not a skill.
	MaxFileSize = 8 << 20
	// MaxFrontmatterSize bounds the YAML between the "---" lines. Parsing
	// YAML into nodes costs up to about 150 times the text in memory, so
	// the size is checked before the parser sees a byte. Real frontmatter
	// is a few hundred bytes: a name, a description of at most 1024
	// characters, and a handful of fields.
	MaxFrontmatterSize = 64 << 10
	// MaxFrontmatterNodes bounds the YAML nodes of the frontmatter (every
	// key, value, list item and collection counts one), so that what a
	// reader keeps per skill (a line per field, the metadata map) stays
	// small however densely the YAML is written.
	MaxFrontmatterNodes = 1024
)

// ErrTooLarge is wrapped by the ParseError of a SKILL.md over one of the
// limits above; it is the error regularfile.ReadFile wraps for a file over
// its limit.
var ErrTooLarge = regularfile.ErrTooLarge

func fileTooLarge(size int) *ParseError {
	return &ParseError{Err: ErrTooLarge,
		Detail: fmt.Sprintf("the file is %s, over the limit of %s; keep it short and move material to reference files it cites",
			bytesize.Format(int64(size)), bytesize.Format(MaxFileSize))}
}

func frontmatterTooLarge(line int) *ParseError {
	return &ParseError{Err: ErrTooLarge, Line: line,
		Detail: fmt.Sprintf("the frontmatter passes the limit of %s on this line, before its closing ---; "+
			"keep the frontmatter to the fields runtimes read and move the rest to the body or reference files",
			bytesize.Format(MaxFrontmatterSize))}
}

// checkNodes refuses a frontmatter document of more than
// MaxFrontmatterNodes nodes, naming the line of the first one past the
// limit. Aliases count one node each and are not followed, so a cycle or
// an alias bomb costs nothing here.
func checkNodes(doc *yaml.Node) error {
	n := 0
	var over *yaml.Node
	var walk func(*yaml.Node) bool
	walk = func(node *yaml.Node) bool {
		if n++; n > MaxFrontmatterNodes {
			over = node
			return false
		}
		for _, c := range node.Content {
			if !walk(c) {
				return false
			}
		}
		return true
	}
	if walk(doc) {
		return nil
	}
	return &ParseError{Err: ErrTooLarge, Line: over.Line + frontmatterOffset,
		Detail: fmt.Sprintf("the frontmatter has more than %d YAML keys, values and list items, and passes the limit on this line; "+
			"keep the frontmatter to the fields runtimes read and move the rest to the body or reference files",
			MaxFrontmatterNodes)}
}
