package validate

import (
	"fmt"
	"io"
	"strings"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/hiddentext"
)

// hiddenText reports the characters reviewers cannot see in every file of
// the skills, not SKILL.md alone: an agent reads any file the body sends
// it to, and runs the scripts. Binary files are left out as
// hiddentext.Scanner decides (invalid UTF-8 with a NUL byte at its start),
// never a file read as text (hiddentext.IsTextName).
// Each file is read in chunks through the validator's buffer, so that a
// large asset costs no more memory than a small one.
func (v *validator) hiddenText(entries []layers.Entry) {
	var s hiddentext.Scanner
	for _, e := range entries {
		if e.Dir || !strings.Contains(e.Path, "/") || v.unreadable[e.Path] {
			continue // a stray top-level file is an error already
		}
		s.Reset()
		s.Text = hiddentext.IsTextName(e.Path)
		if err := scanFile(&s, e.Source, v.buf); err != nil {
			if !hiddentext.IsTextName(e.Path) { // files reports it already
				v.errorf(e.Path, 0, CodeReadError, "cannot read file: %v", err)
			}
			continue
		}
		found := s.Findings()
		for i, f := range found {
			msg := f.Describe()
			if f.Tags > 0 {
				// Agents run validate too: say how much the tags can
				// carry, never what they spell.
				msg += fmt.Sprintf(" (%d of them tag characters, which can spell out text only agents read)", f.Tags)
			}
			msg += ": reviewers cannot see it, but agents read it, so it can hide instructions " +
				"or make the text a reviewer reads differ from what an agent reads; remove it " +
				"(an editor that shows invisible characters reveals it)"
			if more := s.More(); more > 0 && i == len(found)-1 {
				msg += fmt.Sprintf("; the file has %d more runs of hidden text", more)
			}
			v.report.Errors = append(v.report.Errors, Diagnostic{
				File: v.path(e.Path), Line: f.Line, Column: f.Column, Code: CodeHiddenText, Message: msg,
			})
		}
	}
}

func scanFile(s *hiddentext.Scanner, name string, buf []byte) error {
	f, err := regularfile.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	// Only the Reader of f: its WriteTo would copy through a buffer of its own.
	if _, err := io.CopyBuffer(s, struct{ io.Reader }{f}, buf); err != nil {
		return err
	}
	return s.Close()
}
