package validate

import (
	"bufio"
	"errors"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

// placeholderFiles are the files stax new skill writes placeholders into
// (pkg/scaffold): a skill's SKILL.md, CALIBRATION.md and EXAMPLES.md.
// MEMORY.md is scaffolded with empty sections, and scripts or references
// are the author's own, where a TODO is code.
var placeholderFiles = []string{skill.FileName, stateful.CalibrationFile, stateful.ExamplesFile}

// placeholders warns of every line that still holds a marker stax new
// skill wrote for the author to replace: such a skill was pushed and
// served to agents as "TODO: say what this skill does". Each file is read
// line by line through the validator's buffer.
func (v *validator) placeholders(entries []layers.Entry) {
	for _, e := range entries {
		dir, base := path.Split(e.Path)
		if e.Dir || strings.Count(dir, "/") != 1 || !slices.Contains(placeholderFiles, base) || v.unreadable[e.Path] {
			continue
		}
		lines, err := placeholderLines(e.Source, v.buf)
		if err != nil {
			continue // the checks that read the file whole report it
		}
		for _, line := range lines {
			v.warnf(e.Path, line, CodePlaceholder,
				"placeholder left by stax new skill: replace it with the skill's own text "+
					"(push refuses a package with placeholders unless --allow-placeholders)")
		}
	}
}

// placeholderLines returns the 1-based lines of the file name that hold a
// placeholder, outside fenced code blocks.
func placeholderLines(name string, buf []byte) ([]int, error) {
	f, err := regularfile.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, len(buf))
	var found []int
	inFence := false
	for n := 1; ; n++ {
		// A marker is at the start of a line: the first buffer of a long
		// line is all that is needed, and the rest is skipped unread.
		line, err := r.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = r.ReadSlice('\n')
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		text := string(line)
		switch {
		case isFence(text):
			inFence = !inFence
		case !inFence && isPlaceholder(text):
			found = append(found, n)
		}
		if err != nil {
			return found, nil
		}
	}
}

// isPlaceholder reports whether line holds one of the markers the
// scaffold writes, and no other TODO:
//
//   - "TODO:" at the start of the line's text, after indentation and an
//     optional list marker ("- ", "* ", "1. "): "- TODO: the situations
//     this skill is for", or the description's "  TODO: say what this
//     skill does";
//   - "TODO" as the first word of an example's title: "## Example: TODO
//     a canonical case".
//
// A TODO within a sentence, one without its colon ("- TODO items"), and
// any inside a fenced code block are an author's text, not a placeholder.
func isPlaceholder(line string) bool {
	s := strings.TrimLeft(line, " \t")
	if title, ok := strings.CutPrefix(s, "## Example:"); ok {
		first, _, _ := strings.Cut(strings.TrimSpace(title), " ")
		return first == "TODO"
	}
	return strings.HasPrefix(trimListMarker(s), "TODO:")
}

// trimListMarker removes a Markdown list marker from the start of s: "- ",
// "* ", "+ " or a number followed by ". " or ") ".
func trimListMarker(s string) string {
	for _, m := range []string{"- ", "* ", "+ "} {
		if rest, ok := strings.CutPrefix(s, m); ok {
			return strings.TrimLeft(rest, " ")
		}
	}
	digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
	if digits > 0 && digits < len(s)-1 && (s[digits] == '.' || s[digits] == ')') && s[digits+1] == ' ' {
		return strings.TrimLeft(s[digits+2:], " ")
	}
	return s
}

// isFence reports whether line opens or closes a fenced code block: three
// backticks or tildes after at most three spaces.
func isFence(line string) bool {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return false
	}
	return strings.HasPrefix(s, "```") || strings.HasPrefix(s, "~~~")
}
