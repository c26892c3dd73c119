// Package termtext makes text that comes from outside stax safe to print
// on a terminal.
//
// Tag names from a registry, strings from a stax.yaml or a MEMORY.md, file
// names from a package: any of them can hold an escape sequence (ESC, CSI,
// an OSC that retitles the window or writes the clipboard) that a terminal
// obeys, a carriage return that overwrites what a line said, or a line
// feed that adds a line stax never wrote. As git and gh do, stax prints
// such characters escaped, in the form a Go string literal writes them
// (\x1b, \r, \n, \u202e), so what is printed is what is there, visibly.
package termtext

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Escape returns s with every character that does not print written as
// its escape: controls (C0, DEL, C1, so newlines too), format characters
// such as bidirectional overrides and zero-width characters, separators
// other than the space, and bytes that are not UTF-8. A string with none
// of them is returned as it is, so ordinary text reads as it always did.
// Use it for one value inside a line: a tag, a name, a title.
func Escape(s string) string {
	return escape(s, false)
}

// EscapeLines is Escape for text made of lines, such as an error message
// that lists one problem a line: newlines and tabs are kept, and
// everything else Escape escapes is escaped. A value that must not start
// a line of its own must go through Escape before it joins the text.
func EscapeLines(s string) string {
	return escape(s, true)
}

func escape(s string, lines bool) string {
	// Invalid UTF-8 decodes as utf8.RuneError, which prints does not pass.
	i := strings.IndexFunc(s, func(r rune) bool { return !prints(r, lines) })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case prints(r, lines):
			b.WriteString(s[i : i+size])
		default:
			// strconv writes a byte that is not UTF-8 as \xNN, a control
			// as \x1b or \r, any other rune as \uNNNN or \UNNNNNNNN.
			quoted := strconv.Quote(s[i : i+size])
			b.WriteString(quoted[1 : len(quoted)-1])
		}
		i += size
	}
	return b.String()
}

// Writer writes to W a stream of messages, such as the warnings a job
// writes as it goes, whose parts from outside were not escaped one by one.
// Each Write is one message, a line: it is written through Escape but for
// the newline that ends it, so that a line feed in what a message quotes
// cannot forge a line of its own. A message of several lines shows its
// inner newlines escaped. Each Write must hold whole characters, as one
// written by fmt.Fprintf does; Write reports len(p) written when W took
// all of the escaped text.
type Writer struct{ W io.Writer }

func (w Writer) Write(p []byte) (int, error) {
	msg, end := strings.CutSuffix(string(p), "\n")
	text := Escape(msg)
	if end {
		text += "\n"
	}
	if _, err := io.WriteString(w.W, text); err != nil {
		return 0, err
	}
	return len(p), nil
}

// JSON returns the JSON text data with every character Escape escapes
// written as a \uXXXX escape. encoding/json escapes the C0 controls but
// writes DEL, the C1 controls (U+009B is CSI, a terminal's escape
// sequence in one character) and format characters as they are. Outside
// its strings, JSON text is ASCII that prints, so only characters inside
// strings change, and the JSON reads back the same.
func JSON(data []byte) []byte {
	var out []byte
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r < utf8.RuneSelf && r >= 0x20 && r != 0x7f || r == '\n' || r == '\t' || r == '\r' || prints(r, false) {
			if out != nil {
				out = append(out, data[i:i+size]...)
			}
			i += size
			continue
		}
		if out == nil {
			out = append(make([]byte, 0, len(data)+16), data[:i]...)
		}
		if r == utf8.RuneError && size == 1 {
			// Not UTF-8: encoding/json never writes it, and no JSON
			// reader would take it; U+FFFD is what they read it as.
			out = append(out, `\ufffd`...)
		} else if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		} else {
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += size
	}
	if out == nil {
		return data
	}
	return out
}

// prints reports whether r is shown as itself: a graphic character or the
// space, and, in lines, a newline or tab. The quote and backslash print;
// escaping them would change every path and message that holds them.
func prints(r rune, lines bool) bool {
	if lines && (r == '\n' || r == '\t') {
		return true
	}
	return r != utf8.RuneError && unicode.IsPrint(r)
}
