// Package render assembles what an agent receives when a stateful skill is
// invoked: the files of the skill in the load order of the Stateful Skills
// RFC (docs/stateful-skills.md, "Load order"), fitted to a context budget,
// with the variables of the stax specification substituted.
//
// The load order is the SKILL.md body (its frontmatter is metadata, not
// instructions), CALIBRATION.md whole, EXAMPLES.md, then MEMORY.md without
// its frontmatter and with its entries most recent first across the whole
// file, each run of entries from one section under that section's heading.
// Parts are separated by one blank line.
//
// Over budget, pieces are dropped in the order the RFC gives: the oldest
// MEMORY.md entries first, whatever their section (undated entries count as
// oldest, and among entries of the same date the last written goes first),
// then what is left
// of MEMORY.md (text before its first section), then EXAMPLES.md blocks
// from the last, then what is left of EXAMPLES.md. The SKILL.md body and
// CALIBRATION.md are never cut: when they alone exceed the budget, Render
// refuses with an *OverBudgetError instead of returning a partial skill.
//
// Sizes are those of the text after substitution, which is what the agent
// gets; tokens are estimated with the tokens package (bytes/4, rounded up).
package render

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/stax-dev/stax/internal/bytesize"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
	"github.com/stax-dev/stax/pkg/substitute"
	"github.com/stax-dev/stax/pkg/tokens"
)

// Skill is the text of one skill.
type Skill struct {
	// Name identifies the skill in messages.
	Name string
	// SkillMD is the whole SKILL.md.
	SkillMD []byte
	// Siblings are the stateful files present, keyed by exact file name.
	Siblings map[string][]byte
}

// Budget bounds the rendered text; a zero field is no bound. With both
// set, the text must fit both.
type Budget struct {
	Tokens int64 `json:"tokens,omitempty"`
	Bytes  int64 `json:"bytes,omitempty"`
}

func (b Budget) set() bool { return b.Tokens > 0 || b.Bytes > 0 }

func (b Budget) fits(n int64) bool {
	return (b.Bytes <= 0 || n <= b.Bytes) && (b.Tokens <= 0 || tokens.Estimate(n) <= b.Tokens)
}

func (b Budget) String() string {
	var parts []string
	if b.Tokens > 0 {
		parts = append(parts, fmt.Sprintf("%d tokens", b.Tokens))
	}
	if b.Bytes > 0 {
		parts = append(parts, fmt.Sprintf("%d bytes", b.Bytes))
	}
	if len(parts) == 0 {
		return "no budget"
	}
	return strings.Join(parts, " and ")
}

// Options are the budget and the substitution values.
type Options struct {
	Budget     Budget
	Substitute substitute.Options
	// AllowHiddenText renders a skill whose files hold characters
	// reviewers cannot see; without it Render refuses it (see hiddenText).
	AllowHiddenText bool
}

// Kinds of Piece.
const (
	// KindBody is the SKILL.md body.
	KindBody = "body"
	// KindFile is a whole file: CALIBRATION.md.
	KindFile = "file"
	// KindPreamble is the text of EXAMPLES.md or MEMORY.md before its
	// first H2 heading.
	KindPreamble = "preamble"
	// KindExample is an H2 block of EXAMPLES.md.
	KindExample = "example"
	// KindEntry is a MEMORY.md entry.
	KindEntry = "entry"
)

// Piece is a unit of the rendered text that is included or dropped whole.
type Piece struct {
	File string `json:"file"`
	Kind string `json:"kind"`
	// Line is the 1-based line of the file the piece starts on.
	Line int `json:"line"`
	// Title is the heading of an example, or the section of an entry.
	Title  string `json:"title,omitempty"`
	Date   string `json:"date,omitempty"`
	Signer string `json:"signer,omitempty"`
	// Bytes is the size of the piece after substitution, without the
	// blank lines and headings around it; Tokens its estimate.
	Bytes  int64 `json:"bytes"`
	Tokens int64 `json:"tokens"`

	text string
	list bool // a list item, joined to the previous one without a blank line
}

// Result is the rendered skill.
type Result struct {
	Text   string `json:"text"`
	Bytes  int64  `json:"bytes"`
	Tokens int64  `json:"tokens"`
	Budget Budget `json:"budget"`
	// Files are the files that contributed, in load order.
	Files []string `json:"files"`
	// Included are the pieces in the text, in the order they appear.
	Included []Piece `json:"included"`
	// Dropped are the pieces left out to fit the budget, in the order
	// they were dropped.
	Dropped []Piece `json:"dropped"`
	// Entries counts MEMORY.md's entries, Examples EXAMPLES.md's blocks:
	// how many are in the text, of how many.
	Entries  Count `json:"entries"`
	Examples Count `json:"examples"`
}

// Count is how many pieces of a kind the text holds, of how many.
type Count struct {
	Included int `json:"included"`
	Total    int `json:"total"`
}

func (c Count) String() string {
	if c.Included == c.Total {
		return fmt.Sprint(c.Total)
	}
	return fmt.Sprintf("%d of %d", c.Included, c.Total)
}

// OverBudgetError is returned when the pieces that may not be cut, the
// SKILL.md body and CALIBRATION.md, exceed the budget by themselves.
type OverBudgetError struct {
	Skill  string
	Budget Budget
	// Bytes and Tokens are the size of the uncuttable pieces together.
	Bytes  int64
	Tokens int64
}

func (e *OverBudgetError) Error() string {
	var over []string
	if e.Budget.Tokens > 0 && e.Tokens > e.Budget.Tokens {
		over = append(over, fmt.Sprintf("%d tokens over", e.Tokens-e.Budget.Tokens))
	}
	if e.Budget.Bytes > 0 && e.Bytes > e.Budget.Bytes {
		over = append(over, fmt.Sprintf("%d bytes over", e.Bytes-e.Budget.Bytes))
	}
	return fmt.Sprintf("%s: the SKILL.md body and CALIBRATION.md alone take %d bytes (about %d tokens), %s the budget of %s; "+
		"they are never cut, so the skill cannot load: raise the budget or shorten them",
		e.Skill, e.Bytes, e.Tokens, strings.Join(over, " and "), e.Budget)
}

// MaxSize bounds the text of a rendered skill, whatever the budget: the
// most its files can hold within their own limits, a SKILL.md and the
// three stateful files. Only substitution can grow a skill past it (a
// body repeating $ARGUMENTS, with long arguments), and that is refused
// before the text is built rather than allowed to take the memory it
// asks for. Every command that renders (render, the MCP Skill tool) goes
// through Render and so shares the limit.
const MaxSize = skill.MaxFileSize + 3*stateful.MaxFileSize

// TooLargeError is returned when the rendered text would pass MaxSize.
type TooLargeError struct {
	Skill string
	// Limit is MaxSize.
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: the rendered skill would exceed %d bytes (%s) with its variables substituted; "+
		"pass shorter arguments, or use $ARGUMENTS fewer times in the skill's files",
		e.Skill, e.Limit, bytesize.Format(e.Limit))
}

// ErrSkillMD wraps a SKILL.md whose frontmatter cannot be read, since the
// body cannot then be told from it.
var ErrSkillMD = errors.New("cannot read SKILL.md")

// Render assembles s within opts.Budget.
func Render(s Skill, opts Options) (*Result, error) {
	if !opts.AllowHiddenText {
		if err := hiddenText(s); err != nil {
			return nil, err
		}
	}
	doc, err := skill.Parse(s.SkillMD)
	if err != nil {
		return nil, fmt.Errorf("%w of %s: %w", ErrSkillMD, s.Name, err)
	}
	// Every piece is substituted within what is left of MaxSize, so that
	// the pieces together, and the text assembled from them, stay under
	// it; the first piece that would not fit stops the rendering.
	var used int64
	tooLarge := false
	sub := func(text string) string {
		if tooLarge {
			return ""
		}
		out, err := substitute.ApplyLimit(text, opts.Substitute, MaxSize-used)
		if err != nil {
			tooLarge = true
			return ""
		}
		used += int64(len(out))
		return out
	}
	set := stateful.ParseSet(s.Siblings)
	a := &assembly{}

	a.fixed = append(a.fixed, newPiece(skill.FileName, KindBody, doc.BodyLine, sub(doc.Body)))
	if c := set.Calibration; c != nil {
		a.fixed = append(a.fixed, newPiece(stateful.CalibrationFile, KindFile, 1, sub(c.Text)))
	}
	if x := set.Examples; x != nil {
		a.examples = &part{file: stateful.ExamplesFile}
		if x.Preamble != "" {
			a.examples.preamble = ptr(newPiece(stateful.ExamplesFile, KindPreamble, x.PreambleLine, sub(x.Preamble)))
		}
		for _, b := range x.Blocks {
			p := newPiece(stateful.ExamplesFile, KindExample, b.Line, sub(b.Text))
			p.Title = b.Title
			a.examples.sections = append(a.examples.sections, section{pieces: []*Piece{&p}})
		}
	}
	if m := set.Memory; m != nil {
		a.memory = &part{file: stateful.MemoryFile}
		if m.Preamble != "" {
			a.memory.preamble = ptr(newPiece(stateful.MemoryFile, KindPreamble, m.PreambleLine, sub(m.Preamble)))
		}
		a.memory.sections = memorySections(m, sub)
	}
	if tooLarge {
		return nil, &TooLargeError{Skill: s.Name, Limit: MaxSize}
	}
	return a.fit(s.Name, opts.Budget)
}

// memorySections orders the entries of MEMORY.md newest first across the
// whole file (undated ones last, in file order; equal dates in file order)
// and groups each run of entries from one section under its heading, so
// every entry still shows where it was written. Without dates this is the
// file as written.
func memorySections(m *stateful.Memory, sub func(string) string) []section {
	type placed struct {
		entry stateful.Entry
		sec   int
	}
	var all []placed
	for i, sec := range m.Sections {
		for _, e := range sec.Entries {
			all = append(all, placed{e, i})
		}
	}
	slices.SortStableFunc(all, func(x, y placed) int { return order(x.entry, y.entry) })
	var out []section
	last := -1
	for _, pl := range all {
		sec := m.Sections[pl.sec]
		if pl.sec != last {
			out = append(out, section{heading: sub(sec.Heading)})
			last = pl.sec
		}
		p := newPiece(stateful.MemoryFile, KindEntry, pl.entry.Line, sub(pl.entry.Text))
		p.Title, p.Date, p.Signer, p.list = sec.Title, pl.entry.Date, pl.entry.Signer, pl.entry.List
		out[len(out)-1].pieces = append(out[len(out)-1].pieces, &p)
	}
	return out
}

// order sorts entries most recent first; see stateful.Before.
func order(x, y stateful.Entry) int {
	switch {
	case stateful.Before(x, y):
		return -1
	case stateful.Before(y, x):
		return 1
	}
	return 0
}

func ptr(p Piece) *Piece { return &p }

func newPiece(file, kind string, line int, text string) Piece {
	text = trimBlankLines(text)
	n := int64(len(text))
	return Piece{File: file, Kind: kind, Line: line, Bytes: n, Tokens: tokens.Estimate(n), text: text}
}

// trimBlankLines drops blank lines at the start and white space at the
// end, and ends the text with one newline; "" stays "".
func trimBlankLines(s string) string {
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			break
		}
		s = rest
	}
	s = strings.TrimRight(s, " \t\r\n")
	if s == "" {
		return ""
	}
	return s + "\n"
}

// part is EXAMPLES.md or MEMORY.md: an optional preamble, then sections of
// droppable pieces. An example is a section with one piece and no heading
// of its own (its heading is in its text).
type part struct {
	file     string
	preamble *Piece
	sections []section
}

type section struct {
	heading string // rendered before its pieces; "" for none
	pieces  []*Piece
}

type assembly struct {
	fixed            []Piece
	examples, memory *part
	dropped          map[*Piece]bool
}

// fit drops pieces until the text fits the budget.
func (a *assembly) fit(name string, budget Budget) (*Result, error) {
	a.dropped = map[*Piece]bool{}
	var drops []*Piece
	if m := a.memory; m != nil {
		// The entries are laid out newest first: the oldest is last.
		for i := len(m.sections) - 1; i >= 0; i-- {
			for j := len(m.sections[i].pieces) - 1; j >= 0; j-- {
				drops = append(drops, m.sections[i].pieces[j])
			}
		}
		if m.preamble != nil {
			drops = append(drops, m.preamble)
		}
	}
	if x := a.examples; x != nil {
		for i := len(x.sections) - 1; i >= 0; i-- {
			drops = append(drops, x.sections[i].pieces...)
		}
		if x.preamble != nil {
			drops = append(drops, x.preamble)
		}
	}

	if budget.set() {
		for _, p := range drops {
			a.dropped[p] = true
		}
		if fixed := int64(len(a.text())); !budget.fits(fixed) {
			return nil, &OverBudgetError{Skill: name, Budget: budget, Bytes: fixed, Tokens: tokens.Estimate(fixed)}
		}
		a.dropped = map[*Piece]bool{}
	}
	res := &Result{Budget: budget, Dropped: []Piece{}}
	for _, p := range drops {
		if budget.fits(int64(len(a.text()))) {
			break
		}
		a.dropped[p] = true
		res.Dropped = append(res.Dropped, *p)
	}
	res.Text = a.text()
	if len(res.Text) > MaxSize {
		// The pieces fit, but not with the blank lines between them.
		return nil, &TooLargeError{Skill: name, Limit: MaxSize}
	}
	res.Bytes = int64(len(res.Text))
	res.Tokens = tokens.Estimate(res.Bytes)
	res.Included = a.included()
	for _, p := range drops {
		switch p.Kind {
		case KindEntry:
			res.Entries.Total++
		case KindExample:
			res.Examples.Total++
		}
	}
	for _, p := range res.Included {
		switch p.Kind {
		case KindEntry:
			res.Entries.Included++
		case KindExample:
			res.Examples.Included++
		}
	}
	for _, p := range res.Included {
		if len(res.Files) == 0 || res.Files[len(res.Files)-1] != p.File {
			res.Files = append(res.Files, p.File)
		}
	}
	return res, nil
}

// text assembles the pieces not dropped.
func (a *assembly) text() string {
	var parts []string
	for _, p := range a.fixed {
		if p.text != "" {
			parts = append(parts, p.text)
		}
	}
	for _, pt := range []*part{a.examples, a.memory} {
		if s := a.partText(pt); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

func (a *assembly) partText(pt *part) string {
	if pt == nil {
		return ""
	}
	var blocks []string
	if p := pt.preamble; p != nil && !a.dropped[p] && p.text != "" {
		blocks = append(blocks, p.text)
	}
	for _, s := range pt.sections {
		var b strings.Builder
		var prev *Piece
		for _, p := range s.pieces {
			if a.dropped[p] || p.text == "" {
				continue
			}
			if prev != nil && !(prev.list && p.list) {
				b.WriteString("\n") // a blank line between paragraphs
			}
			b.WriteString(p.text)
			prev = p
		}
		if prev == nil {
			continue // a section with nothing left is left out, heading and all
		}
		if s.heading != "" {
			blocks = append(blocks, s.heading+"\n\n"+b.String())
		} else {
			blocks = append(blocks, b.String())
		}
	}
	return strings.Join(blocks, "\n")
}

// included lists the pieces of the text in the order they appear.
func (a *assembly) included() []Piece {
	var out []Piece
	for _, p := range a.fixed {
		if p.text != "" {
			out = append(out, p)
		}
	}
	for _, pt := range []*part{a.examples, a.memory} {
		if pt == nil {
			continue
		}
		if p := pt.preamble; p != nil && !a.dropped[p] {
			out = append(out, *p)
		}
		for _, s := range pt.sections {
			for _, p := range s.pieces {
				if !a.dropped[p] && p.text != "" {
					out = append(out, *p)
				}
			}
		}
	}
	if out == nil {
		out = []Piece{}
	}
	return out
}
