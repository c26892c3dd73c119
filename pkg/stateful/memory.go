package stateful

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/stax-dev/stax/pkg/skill"
)

// The frontmatter fields of MEMORY.md (docs/stateful-skills.md).
const (
	FieldVersion      = "version"
	FieldContributors = "contributors"
	FieldLastUpdated  = "lastUpdated"
)

// DateLayout is the ISO-8601 calendar date the RFC uses for lastUpdated
// and for entry dates.
const DateLayout = "2006-01-02"

// canonicalMemory are the H2 sections the RFC names for MEMORY.md.
var canonicalMemory = []string{"what worked", "what didn't", "edge cases", "open questions"}

// Memory is a parsed MEMORY.md.
type Memory struct {
	// Frontmatter is nil when the file has no readable frontmatter block;
	// Problems then say why.
	Frontmatter *MemoryFrontmatter
	// Preamble is the body before the first H2 heading, without blank
	// lines at either end; PreambleLine is its first line.
	Preamble     string
	PreambleLine int
	Sections     []MemorySection
	Problems     []Problem
	// fields is the frontmatter as parsed, and bodyLine the line after
	// its closing ---; nil and 0 when the block does not parse.
	fields   *skill.Frontmatter
	bodyLine int
}

// MemoryFrontmatter holds the fields of the frontmatter. A field that is
// absent, or of the wrong form, has its zero value; its line is set
// whenever the key is present.
type MemoryFrontmatter struct {
	Version          string
	VersionLine      int
	Contributors     int64
	ContributorsLine int
	// LastUpdated is the date as written.
	LastUpdated     string
	LastUpdatedLine int
}

// MemorySection is an H2 section of MEMORY.md and its entries.
type MemorySection struct {
	Section
	// Heading is the heading line as written, without its line ending.
	Heading string
	Entries []Entry
}

// Entry is one item of experience: a list item, or a paragraph.
type Entry struct {
	// Text is the entry as written, line endings included, without the
	// blank lines around it.
	Text string `json:"-"`
	Line int    `json:"line"`
	// List is set for a list item, unset for a paragraph.
	List bool `json:"-"`
	// Date (YYYY-MM-DD) and Signer ("@user") come from the signature that
	// ends the entry ("— @user, 2026-05-12"); empty when absent.
	Date   string `json:"date,omitempty"`
	Signer string `json:"signer,omitempty"`
	// Section is the title of the section the entry is in.
	Section string `json:"section"`
}

// Entries lists every entry of every section, in file order.
func (m *Memory) Entries() []Entry {
	var out []Entry
	for _, s := range m.Sections {
		out = append(out, s.Entries...)
	}
	return out
}

// ParseMemory parses MEMORY.md.
func ParseMemory(data []byte) *Memory {
	m := &Memory{}
	body, bodyLine := string(data), 1
	doc, err := skill.Parse(data)
	if err != nil {
		m.frontmatterProblem(err)
		var pe *skill.ParseError
		if errors.As(err, &pe) && !errors.Is(err, skill.ErrNoFrontmatter) && !errors.Is(err, skill.ErrUnterminated) {
			// The block is there but unreadable: the body still starts
			// after it.
			if rest, ok := afterFrontmatter(data); ok {
				body, bodyLine = rest, strings.Count(string(data[:len(data)-len(rest)]), "\n")+1
			}
		}
	} else {
		m.Frontmatter = m.frontmatter(doc.Frontmatter)
		m.fields, m.bodyLine = doc.Frontmatter, doc.BodyLine
		body, bodyLine = doc.Body, doc.BodyLine
	}
	pre, secs := splitH2(scanLines(body, bodyLine))
	m.Preamble, m.PreambleLine = join(pre)
	for _, s := range secs {
		sec := MemorySection{
			Section: Section{
				Title: s.heading.title, Line: s.heading.num,
				Canonical: slices.Contains(canonicalMemory, normalizeTitle(s.heading.title)),
			},
			Heading: strings.TrimRight(s.heading.raw, "\r\n"),
		}
		sec.Entries = entries(s.body, sec.Title)
		m.Sections = append(m.Sections, sec)
	}
	return m
}

// afterFrontmatter returns the text after the closing --- of a
// frontmatter block that opens on line 1, whether or not the block is
// valid YAML.
func afterFrontmatter(data []byte) (string, bool) {
	first, rest, ok := strings.Cut(string(data), "\n")
	if !ok || strings.TrimSuffix(first, "\r") != "---" {
		return "", false
	}
	for rest != "" {
		line, next, _ := strings.Cut(rest, "\n")
		if strings.TrimSuffix(line, "\r") == "---" {
			return next, true
		}
		rest = next
	}
	return "", false
}

func (m *Memory) problemf(kind ProblemKind, line int, format string, args ...any) {
	m.Problems = append(m.Problems, Problem{Kind: kind, Line: line, Message: fmt.Sprintf(format, args...)})
}

// memoryTemplate is the frontmatter to suggest, on one line.
const memoryTemplate = "the five lines ---, version: <the SKILL.md version>, contributors: <number of authors>, lastUpdated: YYYY-MM-DD, ---"

func (m *Memory) frontmatterProblem(err error) {
	var pe *skill.ParseError
	if !errors.As(err, &pe) {
		m.problemf(FrontmatterInvalid, 1, "%s frontmatter: %v", MemoryFile, err)
		return
	}
	switch {
	case errors.Is(err, skill.ErrNoFrontmatter):
		m.problemf(FrontmatterMissing, 1,
			"%s must start with a frontmatter block; add %s at the top", MemoryFile, memoryTemplate)
	case errors.Is(err, skill.ErrUnterminated):
		m.problemf(FrontmatterInvalid, 1,
			"the frontmatter opened on line 1 is never closed; add a --- line after lastUpdated")
	case errors.Is(err, skill.ErrNotMapping):
		m.problemf(FrontmatterInvalid, max(pe.Line, 1),
			"the frontmatter must be a mapping of fields; write it as %s", memoryTemplate)
	default:
		m.problemf(FrontmatterInvalid, max(pe.Line, 1), "%s", pe.Detail)
	}
}

// frontmatter checks the three fields. The SKILL.md decoder reads the
// block (one YAML reading for every frontmatter stax sees); of the
// problems it records, only those about version and duplicate keys apply
// here, the rest are SKILL.md rules.
func (m *Memory) frontmatter(f *skill.Frontmatter) *MemoryFrontmatter {
	fm := &MemoryFrontmatter{
		VersionLine:      f.Line(FieldVersion),
		ContributorsLine: f.Line(FieldContributors),
		LastUpdatedLine:  f.Line(FieldLastUpdated),
	}
	badVersion := false
	for _, e := range f.Errors {
		switch {
		case e.Kind == skill.Duplicate:
			m.problemf(FrontmatterInvalid, e.Line, "%s", e.Message)
		case e.Field == FieldVersion:
			badVersion = true
			m.problemf(FrontmatterInvalid, e.Line, "%s", e.Message)
		}
	}
	if f.VersionField == FieldVersion {
		fm.Version = f.Version
	}
	values := skill.Keys(f.Node())
	if !badVersion && fm.Version == "" {
		m.missing(FieldVersion, fm.VersionLine, "the SKILL.md version, e.g. version: 1.0.0")
	}

	if v, ok := values[FieldContributors]; !ok || skill.IsNull(v) {
		m.missing(FieldContributors, fm.ContributorsLine, "the number of distinct authors, e.g. contributors: 3")
	} else if n, err := nonNegativeInt(v); err != nil {
		m.problemf(ContributorsInvalid, fm.ContributorsLine,
			"contributors must be a non-negative integer (the number of distinct authors), not %s; e.g. contributors: 3", err)
	} else {
		fm.Contributors = n
	}

	if v, ok := values[FieldLastUpdated]; !ok || skill.IsNull(v) {
		m.missing(FieldLastUpdated, fm.LastUpdatedLine, "the date of the last change, e.g. lastUpdated: "+exampleDate)
	} else if v.Kind != yaml.ScalarNode {
		m.problemf(LastUpdatedInvalid, fm.LastUpdatedLine,
			"lastUpdated is %s, not an ISO-8601 date; write it as YYYY-MM-DD, e.g. lastUpdated: %s", skill.Describe(v), exampleDate)
	} else if !IsDate(v.Value) {
		m.problemf(LastUpdatedInvalid, fm.LastUpdatedLine,
			"lastUpdated %q is not an ISO-8601 date; write it as YYYY-MM-DD, e.g. lastUpdated: %s", v.Value, exampleDate)
	} else {
		fm.LastUpdated = v.Value
	}
	return fm
}

const exampleDate = "2026-05-19"

// missing reports an absent field on line 1, where the block opens, or an
// empty one on its own line.
func (m *Memory) missing(field string, line int, what string) {
	if line == 0 {
		m.problemf(FieldMissing, 1, "the frontmatter has no %s; add %s", field, what)
		return
	}
	m.problemf(FieldMissing, line, "%s is empty; set it to %s", field, what)
}

// nonNegativeInt decodes an integer scalar; the error names what the value
// is instead.
func nonNegativeInt(n *yaml.Node) (int64, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, errors.New(skill.Describe(n))
	}
	if n.Tag != "!!int" {
		return 0, fmt.Errorf("%q", n.Value)
	}
	var v int64
	if err := n.Decode(&v); err != nil {
		return 0, fmt.Errorf("%q", n.Value)
	}
	if v < 0 {
		return 0, fmt.Errorf("%d", v)
	}
	return v, nil
}

// IsDate reports whether s is an ISO-8601 calendar date, YYYY-MM-DD, that
// exists.
func IsDate(s string) bool {
	if len(s) != len(DateLayout) {
		return false
	}
	_, err := time.Parse(DateLayout, s)
	return err == nil
}

// signature is the provenance that ends an entry (docs/stateful-skills.md):
// an optional dash, an optional @signer with a comma, then the date; or a
// dash and a signer alone. The entry is matched with its white space
// collapsed, so a signature may sit on a line of its own.
var (
	signedDate = regexp.MustCompile(`(?:^|[\s(—–,-])(?:(@[A-Za-z0-9][\w.-]*)\s*,\s*)?(\d{4}-\d{2}-\d{2})\)?[.;]?$`)
	signerOnly = regexp.MustCompile(`(?:—|–|--|-)\s*(@[A-Za-z0-9][\w.-]*)\)?[.;]?$`)
)

// parseSignature finds the date and signer at the end of an entry.
func parseSignature(text string) (date, signer string) {
	flat := strings.Join(strings.Fields(text), " ")
	if m := signedDate.FindStringSubmatch(flat); m != nil && IsDate(m[2]) {
		return m[2], m[1]
	}
	if m := signerOnly.FindStringSubmatch(flat); m != nil {
		return "", m[1]
	}
	return "", ""
}

// entries splits the body of a section into list items and paragraphs.
// A list item runs until the next item, or a blank line followed by text
// that is not indented under it; a paragraph runs until a blank line.
// Fenced code stays with the entry it follows; a heading below H2 is an
// entry of its own.
func entries(lines []mdLine, section string) []Entry {
	var out []Entry
	var cur []mdLine
	var curList bool
	pendingBlank := false
	flush := func() {
		if text, line := join(cur); text != "" {
			date, signer := parseSignature(text)
			out = append(out, Entry{Text: text, Line: line, List: curList, Date: date, Signer: signer, Section: section})
		}
		cur = nil
	}
	start := func(l mdLine, list bool) {
		flush()
		cur, curList = []mdLine{l}, list
	}
	for _, l := range lines {
		if l.fence == inside {
			if cur == nil {
				curList = false
			}
			cur = append(cur, l)
			continue
		}
		if l.blank() {
			if cur != nil {
				cur = append(cur, l)
			}
			pendingBlank = true
			continue
		}
		content := strings.TrimRight(l.raw, "\r\n")
		indent, _ := indentation(content)
		switch {
		case l.heading > 0:
			start(l, false)
		case listItem(content) && !(curList && indent > itemIndent(cur)):
			// A new item, unless it is nested under the current one.
			start(l, true)
		case cur == nil:
			start(l, false)
		case pendingBlank && !(curList && indent >= 2):
			start(l, false)
		default:
			cur = append(cur, l)
		}
		pendingBlank = false
	}
	flush()
	return out
}

// itemIndent is the indentation of the first line of an entry.
func itemIndent(lines []mdLine) int {
	if len(lines) == 0 {
		return 0
	}
	n, _ := indentation(strings.TrimRight(lines[0].raw, "\r\n"))
	return n
}

// Before reports whether entry a is more recent than b in the order
// rendering uses: dated entries newest first, then undated ones; equal
// dates keep file order (the caller's stable sort does that).
func Before(a, b Entry) bool {
	switch {
	case a.Date == "" || b.Date == "":
		return a.Date != "" && b.Date == ""
	default:
		return a.Date > b.Date // YYYY-MM-DD sorts as text
	}
}
