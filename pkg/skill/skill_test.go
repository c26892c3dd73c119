package skill

import (
	"errors"
	"strings"
	"testing"
)

func TestParseSplitsFrontmatterAndBody(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		body      string
		bodyLine  int
		bodyLines int
	}{
		{
			name:      "lf",
			in:        "---\nname: a\ndescription: b\n---\n# Title\n\nText\n",
			body:      "# Title\n\nText\n",
			bodyLine:  5,
			bodyLines: 3,
		},
		{
			name:      "crlf",
			in:        "---\r\nname: a\r\ndescription: b\r\n---\r\nBody\r\n",
			body:      "Body\r\n",
			bodyLine:  5,
			bodyLines: 1,
		},
		{
			name:      "no trailing newline after body",
			in:        "---\nname: a\ndescription: b\n---\nline 1\nline 2",
			body:      "line 1\nline 2",
			bodyLine:  5,
			bodyLines: 2,
		},
		{
			name:      "closing delimiter at end of file",
			in:        "---\nname: a\ndescription: b\n---",
			body:      "",
			bodyLine:  5,
			bodyLines: 0,
		},
		{
			name:      "dashes inside the body are body",
			in:        "---\nname: a\ndescription: b\n---\n---\nmore\n",
			body:      "---\nmore\n",
			bodyLine:  5,
			bodyLines: 2,
		},
		{
			name:      "empty frontmatter",
			in:        "---\n---\nBody\n",
			body:      "Body\n",
			bodyLine:  3,
			bodyLines: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if doc.Body != tt.body {
				t.Errorf("Body = %q, want %q", doc.Body, tt.body)
			}
			if doc.BodyLine != tt.bodyLine {
				t.Errorf("BodyLine = %d, want %d", doc.BodyLine, tt.bodyLine)
			}
			if got := doc.BodyLineCount(); got != tt.bodyLines {
				t.Errorf("BodyLineCount = %d, want %d", got, tt.bodyLines)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		err    error
		line   int
		detail string // substring of the message
	}{
		{"no frontmatter", "# Title\nname: a\n", ErrNoFrontmatter, 1, "line 1 must be ---"},
		{"empty file", "", ErrNoFrontmatter, 1, "line 1 must be ---"},
		{"frontmatter not on line 1", "\n---\nname: a\n---\n", ErrNoFrontmatter, 1, "line 1 must be ---"},
		{"trailing space after delimiter", "--- \nname: a\n---\n", ErrNoFrontmatter, 1, "line 1 must be ---"},
		{"byte order mark", "\xef\xbb\xbf---\nname: a\n---\n", ErrNoFrontmatter, 1, "byte order mark"},
		{"only the opening line", "---", ErrUnterminated, 1, "never closed"},
		{"unterminated", "---\nname: a\ndescription: b\n# Body\n", ErrUnterminated, 1, "never closed"},
		// Scanner errors: yaml counts lines from 1.
		{"mapping value in plain scalar", "---\nname: a\ndescription: Use it: now\n---\n", ErrYAML, 3, "mapping values are not allowed"},
		{"unquoted backquote", "---\nname: a\ndescription: x\nmodel: `m`\n---\n", ErrYAML, 4, "cannot start any token"},
		{"tab indentation", "---\nname: a\ntags:\n\t- x\n---\n", ErrYAML, 4, "cannot start any token"},
		{"scanner error on first yaml line", "---\nname: @a\n---\n", ErrYAML, 2, "cannot start any token"},
		// Parser errors: yaml counts lines from 0.
		{"unclosed flow list", "---\nname: a\ndescription: b\ntags: [a, b\nlicense: MIT\n---\n", ErrYAML, 4, "did not find expected ',' or ']'"},
		{"list item in mapping", "---\nname: a\ndescription: b\n- c\n---\n", ErrYAML, 4, "did not find expected key"},
		{"parser error on first yaml line", "---\nargument-hint: [a] [b]\n---\n", ErrYAML, 2, "did not find expected key"},
		// A parser error's line in yaml is where the enclosing block
		// starts: the mapping after a comment, not the line at fault.
		{"dedent after a comment", "---\n# team skill\nname: a\nmetadata:\n    version: 1\n  author: x\n---\n", ErrYAML, 6, "did not find expected key"},
		// Reader errors carry no line; Parse finds it.
		{"invalid utf-8", "---\nname: a\ndescription: \xff\n---\n", ErrYAML, 3, "UTF-8"},
		{"control character", "---\nname: a\ndescription: b\nlicense: \x01\n---\n", ErrYAML, 4, "control characters"},
		// Composer errors carry no line either.
		{"unknown anchor", "---\nname: a\ndescription: b\nlicense: *nope\n---\n", ErrYAML, 4, "unknown anchor 'nope'"},
		{"list", "---\n- a\n- b\n---\n", ErrNotMapping, 2, "not a list"},
		{"scalar", "---\njust text\n---\n", ErrNotMapping, 2, "not a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", doc)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("error %v is not %v", err, tt.err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError", err)
			}
			if pe.Line != tt.line {
				t.Errorf("Line = %d, want %d (%v)", pe.Line, tt.line, err)
			}
			if !strings.Contains(pe.Detail, tt.detail) {
				t.Errorf("Detail = %q, want it to contain %q", pe.Detail, tt.detail)
			}
		})
	}
}

func TestYAMLErrorSuggestsQuoting(t *testing.T) {
	_, err := Parse([]byte("---\nname: a\ndescription: Use it: now\n---\n"))
	if err == nil || !strings.Contains(err.Error(), "must be quoted") {
		t.Errorf("error %v does not suggest quoting", err)
	}
	_, err = Parse([]byte("---\nname: a\ndescription: b\ntags: [a, b\n---\n"))
	if err == nil || strings.Contains(err.Error(), "must be quoted") {
		t.Errorf("error %v suggests quoting for an unclosed list", err)
	}
}

func TestEncodeRoundTripsUnknownFields(t *testing.T) {
	in := `---
# Kept: comments are part of the node.
name: round-trip
description: Keeps what it does not know
x-team: platform
x-owners:
  - alice
  - bob
custom:
  nested:
    depth: 2
metadata:
  version: "1.10"
  author: someone
---
Body stays.
`
	doc, err := Parse([]byte(in))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	out, err := doc.Encode()
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	again, err := Parse(out)
	if err != nil {
		t.Fatalf("Parse of encoded document: %v\n%s", err, out)
	}
	if again.Body != doc.Body {
		t.Errorf("Body = %q, want %q", again.Body, doc.Body)
	}
	if !strings.Contains(string(out), "# Kept: comments are part of the node.") {
		t.Errorf("comment lost:\n%s", out)
	}
	want, err := doc.Frontmatter.Fields()
	if err != nil {
		t.Fatal(err)
	}
	got, err := again.Frontmatter.Fields()
	if err != nil {
		t.Fatal(err)
	}
	if !equalJSON(t, got, want) {
		t.Errorf("fields after round trip = %v, want %v", got, want)
	}
	var names []string
	for _, u := range again.Frontmatter.Unknown {
		names = append(names, u.Name)
	}
	if strings.Join(names, ",") != "x-team,x-owners,custom" {
		t.Errorf("Unknown after round trip = %v", names)
	}
	if again.Frontmatter.Version != "1.10" {
		t.Errorf("Version after round trip = %q, want 1.10", again.Frontmatter.Version)
	}
}

func TestFrontmatterYAMLEmpty(t *testing.T) {
	doc, err := Parse([]byte("---\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := doc.FrontmatterYAML()
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 0 {
		t.Errorf("FrontmatterYAML = %q, want empty", out)
	}
	enc, err := doc.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if string(enc) != "---\n---\n" {
		t.Errorf("Encode = %q", enc)
	}
}
