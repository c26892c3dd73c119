// Package hiddentext finds the characters a person reviewing a skill
// cannot see but an agent reading it obeys: text hidden in plain sight.
//
// Skills are instructions. Their authors and reviewers read them in
// editors, diffs and web views that draw nothing for these code points,
// while a model reads every one. They are hidden text:
//
//   - Tag characters, U+E0000–U+E007F. Each mirrors an ASCII character and
//     draws nothing, so a run of them spells a message only the model
//     sees ("ASCII smuggling"). Allowed only in the one shape emoji use
//     them: an emoji tag sequence of U+1F3F4 WAVING BLACK FLAG, three to
//     seven tag letters and digits spelling a subdivision code (region:
//     two letters or three digits; then one to four letters or digits),
//     and U+E007F CANCEL TAG, e.g. the flag of England. Other tag
//     characters, or others in between, are not a flag, and a flag cannot
//     carry a message longer than the code of a place.
//   - Bidirectional embeddings, overrides and isolates, U+202A–U+202E and
//     U+2066–U+2069. They reorder what is displayed, so that the text a
//     reviewer reads is not the order the model reads it in ("Trojan
//     Source", CVE-2021-42574). Always hidden text; the marks U+200E and
//     U+200F, which reorder nothing around them, are not.
//   - Zero-width characters: U+200B ZERO WIDTH SPACE and U+2060 WORD
//     JOINER always; U+FEFF ZERO WIDTH NO-BREAK SPACE except as the first
//     character of a file, where it is a byte order mark; U+200D ZERO
//     WIDTH JOINER and U+200C ZERO WIDTH NON-JOINER except where writing
//     needs them. Strings of them encode bits a model can be told to read.
//
// Writing needs a joiner in these places, which are allowed:
//
//   - U+200D inside an emoji ZWJ sequence: after an Extended_Pictographic
//     code point, and any emoji modifiers (U+1F3FB–U+1F3FF) and
//     U+FE0F VARIATION SELECTOR-16 after it, and before another
//     Extended_Pictographic code point, where Unicode's grapheme rule GB11
//     joins them into one emoji (👨‍👩‍👧, 👩🏽‍💻, ❤️‍🔥).
//   - U+200D or U+200C after a virama (canonical combining class 9), where
//     Indic scripts use them to pick a conjunct's form (Sinhala ශ්‍රී).
//   - U+200C between two letters or marks of the same cursive script
//     (Arabic, Syriac, N'Ko, Mongolian, ...), where it keeps two letters
//     from joining, as Persian spelling requires (می‌خواهم).
//
// These are the contexts RFC 5892 (IDNA) allows the joiners in, with its
// joining-type test approximated by script. One joiner per place carries
// next to no information, so allowing them opens no channel.
//
//   - Variation selectors, U+FE00–U+FE0F and U+E0100–U+E01EF, where no
//     character takes them. A character takes one selector to pick its
//     glyph, as emoji pick their presentation (☺️) and CJK ideographs a
//     registered form; more than one in a row, one with nothing before it
//     but a space, a line break or a format character, and one of
//     U+E0100–U+E01EF after anything but an ideograph are hidden text.
//     Each selector can carry a byte ("emoji smuggling").
//
// Only text is scanned. A file read as text (IsTextName: a skill's own
// files, and the extensions of documents, data and scripts) is always
// scanned. Any other file is binary, and not checked, when it is not
// valid UTF-8 and has a NUL byte in its first 8,000 bytes — both. The NUL
// test is the one git uses to show a file as binary, so a file is checked
// whenever review tools show it as text; requiring invalid UTF-8 as well
// means a NUL byte cannot switch the check off for a UTF-8 file, and a
// stray invalid byte cannot either for a file with no NUL at its start.
// Images and archives are binary by both tests, and their bytes match
// hidden code points by chance. Invalid bytes in a text file are skipped:
// they are not hidden text.
//
// Positions are 1-based lines and columns, as editors show them; the
// column counts characters (code points, an invalid byte counting as one),
// not bytes, so a position past non-ASCII text still points at the
// character.
package hiddentext

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/stax-dev/stax/pkg/errdefs"
)

const (
	zwsp       = 0x200B
	zwnj       = 0x200C
	zwj        = 0x200D
	wordJoiner = 0x2060
	bom        = 0xFEFF
	vs16       = 0xFE0F
	tagFirst   = 0xE0000
	cancelTag  = 0xE007F
	blackFlag  = 0x1F3F4

	// supplementarySelectorFirst is VARIATION SELECTOR-17, the first of
	// those past the Basic Multilingual Plane (to VS256, U+E01EF).
	supplementarySelectorFirst = 0xE0100
)

// binarySniffLen is how far into a file a NUL byte makes it binary, if it
// is not UTF-8 either: git's limit, so that the two agree on what is text.
const binarySniffLen = 8000

// maxFindings is how many runs of hidden text a Scanner keeps; it counts
// the rest. A file full of them needs no more to be refused.
const maxFindings = 20

// Finding is a run of hidden code points in a row.
type Finding struct {
	// Line and Column are where the first one is: 1-based, the column in
	// characters.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Rune is the first hidden code point; Count how many there are in a
	// row from it; Tags how many of them are tag characters, which can
	// spell a message.
	//
	// What the tags spell is never kept: reports and errors reach models
	// too (an MCP tool's error, validate run by an agent), and would hand
	// them the hidden text in plain letters.
	Rune  rune `json:"rune"`
	Count int  `json:"count"`
	Tags  int  `json:"tags,omitempty"`
}

// Describe says what the run is, without its position:
// `U+202E RIGHT-TO-LEFT OVERRIDE and 2 more hidden characters`.
func (f Finding) Describe() string {
	var b strings.Builder
	b.WriteString(describe(f.Rune))
	if f.Count > 1 {
		fmt.Fprintf(&b, " and %d more hidden character", f.Count-1)
		if f.Count > 2 {
			b.WriteString("s")
		}
	}
	return b.String()
}

func (f Finding) String() string {
	return fmt.Sprintf("%d:%d: %s", f.Line, f.Column, f.Describe())
}

// Check returns an *Error for the first hidden text in data, the content
// of the file path of the skill named skill ("" for none), or nil. The
// path decides whether the file is read as text (IsTextName).
func Check(path, skill string, data []byte) error {
	s := Scanner{Text: IsTextName(path)}
	s.Write(data)
	s.Close()
	if len(s.findings) == 0 {
		return nil
	}
	return &Error{Path: path, Skill: skill, Finding: s.findings[0], More: s.runs - 1}
}

// Scan returns the hidden text in data, as a Scanner fed all of it does.
func Scan(data []byte) []Finding {
	var s Scanner
	s.Write(data)
	s.Close()
	return s.Findings()
}

// ScanFile is Scan of the content of the file name, which decides
// whether it is read as text (IsTextName).
func ScanFile(name string, data []byte) []Finding {
	s := Scanner{Text: IsTextName(name)}
	s.Write(data)
	s.Close()
	return s.Findings()
}

// ScanName returns the hidden text in a file or folder name, or a path of
// them. A name is text, and has no start of a file: a byte order mark
// anywhere in it is hidden text.
func ScanName(name string) []Finding {
	s := Scanner{Text: true, name: true}
	s.Write([]byte(name))
	s.Close()
	return s.Findings()
}

// ScanString is Scan of a string.
func ScanString(text string) []Finding {
	return Scan([]byte(text))
}

// Scanner finds hidden text in a stream written to it in chunks of any
// size: a character, an emoji sequence or a flag may span chunks, and the
// findings are those of the whole input. Its memory does not grow with
// the input. The zero value is ready for the start of a file that may be
// binary.
type Scanner struct {
	// Text, set before the first Write, says the file is read as text
	// (see IsTextName): it is never taken for binary, whatever its bytes.
	Text bool
	// name: the input is a name, where a byte order mark is never one.
	name bool

	// carry holds the start of a character the last chunk ended in.
	carry  [utf8.UTFMax]byte
	ncarry int

	offset  int64 // bytes decoded so far
	ordinal int64 // characters decoded so far
	line    int   // lines ended so far
	column  int   // characters on the current line so far

	invalid  bool // an invalid byte was seen
	nulEarly bool // a NUL byte was seen in the first binarySniffLen bytes
	binary   bool
	closed   bool

	// prev is the last character; pictographic is set when the
	// characters since the last one that was not an emoji modifier or
	// VS16 end in an Extended_Pictographic one: a ZWJ may follow.
	prev         rune
	pictographic bool

	// joiner is a ZWJ or ZWNJ that the next character allows or not.
	joiner pendingJoiner
	// flag is a run of tag characters after a black flag, which a cancel
	// tag ends as a flag or anything else shows up as hidden text.
	flag pendingFlag
	// selector is a variation selector its character takes, unless
	// another one follows it.
	selector pendingSelector

	findings []Finding
	runs     int   // runs found, kept or not
	last     int64 // ordinal of the last hidden character reported
}

type position struct {
	line, column int
	ordinal      int64
}

type pendingJoiner struct {
	active bool
	at     position
	r      rune
	// emoji: only an Extended_Pictographic character may follow; else
	// only a letter or mark of script.
	emoji  bool
	script *unicode.RangeTable
}

type pendingSelector struct {
	active bool
	at     position
	r      rune
}

type pendingFlag struct {
	active bool
	at     position
	spec   [7]byte
	n      int
}

// Write scans p. It never fails: a Scanner is an io.Writer so that it can
// be fed by the copy that writes a file, beside the writing.
func (s *Scanner) Write(p []byte) (int, error) {
	n := len(p)
	if s.binary || s.closed {
		return n, nil
	}
	if s.ncarry > 0 {
		// Finish the character the last chunk ended in.
		var buf [2 * utf8.UTFMax]byte
		k := copy(buf[:], s.carry[:s.ncarry])
		m := copy(buf[k:], p)
		b := buf[:k+m]
		i := 0
		for i < s.ncarry {
			if !utf8.FullRune(b[i:]) {
				// p was too short to finish it: carry all of it on.
				s.ncarry = copy(s.carry[:], b[i:])
				return n, nil
			}
			r, size := utf8.DecodeRune(b[i:])
			s.char(r, size)
			i += size
		}
		p = p[i-s.ncarry:]
		s.ncarry = 0
	}
	for i := 0; i < len(p); {
		if c := p[i]; c < utf8.RuneSelf {
			if s.joiner.active || s.flag.active || s.selector.active {
				s.char(rune(c), 1)
				i++
				continue
			}
			k := i + 1 + asciiPrefix(p[i+1:])
			if s.ascii(p[i:k]) {
				return n, nil
			}
			i = k
			continue
		}
		if !utf8.FullRune(p[i:]) {
			s.ncarry = copy(s.carry[:], p[i:])
			break
		}
		r, size := utf8.DecodeRune(p[i:])
		s.char(r, size)
		i += size
	}
	return n, nil
}

// asciiPrefix is the length of the run of ASCII bytes p starts with. It
// tests eight bytes at a time: install scans every byte of every file it
// writes, and nearly all of them are ASCII.
func asciiPrefix(p []byte) int {
	k := 0
	for ; k+8 <= len(p); k += 8 {
		if binary.LittleEndian.Uint64(p[k:])&0x8080808080808080 != 0 {
			break
		}
	}
	for k < len(p) && p[k] < utf8.RuneSelf {
		k++
	}
	return k
}

// ascii scans a run of ASCII characters with nothing pending, as char
// would one at a time, in bulk: no ASCII character is hidden text, so only
// the position, the binary test and the last character need keeping. It
// reports whether the input turned out binary. Most of every skill is
// ASCII, and install scans every file of every layer as it is written.
func (s *Scanner) ascii(run []byte) (binary bool) {
	if left := binarySniffLen - s.offset; left > 0 && bytes.IndexByte(run[:min(int64(len(run)), left)], 0) >= 0 {
		s.nulEarly = true
	}
	if s.invalid && s.nulEarly && s.mayBeBinary() {
		s.binary = true
		s.findings, s.runs = nil, 0
		return true
	}
	s.offset += int64(len(run))
	s.ordinal += int64(len(run))
	if lines := bytes.Count(run, []byte{'\n'}); lines > 0 {
		s.line += lines
		s.column = len(run) - 1 - bytes.LastIndexByte(run, '\n')
	} else {
		s.column += len(run)
	}
	s.pictographic = false
	s.prev = rune(run[len(run)-1])
	return false
}

// Close ends the input: what the end decides (a joiner or a flag left
// open, a character cut short, whether the file is binary) is settled.
// The Scanner takes no more input until Reset.
func (s *Scanner) Close() error {
	if s.closed {
		return nil
	}
	for i := 0; i < s.ncarry && !s.binary; i++ {
		s.char(utf8.RuneError, 1) // a character cut short: invalid bytes
	}
	s.ncarry = 0
	s.settle()
	s.closed = true
	if s.mayBeBinary() && s.invalid && s.nulEarly {
		s.binary = true
	}
	if s.binary {
		s.findings, s.runs = nil, 0
	}
	return nil
}

// Reset makes s ready for another file, keeping its memory; set Text
// again for a text file.
func (s *Scanner) Reset() {
	findings := s.findings[:0]
	*s = Scanner{findings: findings}
}

// Findings are the runs of hidden text found so far, at most 20: see
// More. Before Close, they may still be dropped if the file turns out
// binary: see Certain.
func (s *Scanner) Findings() []Finding {
	return s.findings
}

// More is how many runs of hidden text were found past those Findings
// keeps.
func (s *Scanner) More() int {
	return s.runs - len(s.findings)
}

// Certain reports whether the input holds hidden text whatever follows:
// once the file cannot turn out binary, the first finding stands, and a
// reader of a file can stop without reading the rest.
func (s *Scanner) Certain() bool {
	if len(s.findings) == 0 || s.binary {
		return false
	}
	return s.closed || !s.mayBeBinary() || !s.nulEarly && s.offset >= binarySniffLen
}

// mayBeBinary reports whether the input can still be exempt as binary: a
// file read as text never is, so that a NUL byte and one invalid byte
// cannot switch its check off.
func (s *Scanner) mayBeBinary() bool { return !s.Text && !s.name }

// char scans one character, or one invalid byte (utf8.RuneError, size 1).
func (s *Scanner) char(r rune, size int) {
	if r == 0 && s.offset < binarySniffLen {
		s.nulEarly = true
	}
	s.offset += int64(size)
	if r == utf8.RuneError && size == 1 {
		s.invalid = true
	}
	if s.invalid && s.nulEarly && s.mayBeBinary() {
		// Binary: nothing found in it counts, and nothing more need be read.
		s.binary = true
		s.findings, s.runs = nil, 0
		return
	}
	at := position{line: s.line + 1, column: s.column + 1, ordinal: s.ordinal}
	s.ordinal++
	if r == '\n' {
		s.line++
		s.column = 0
	} else {
		s.column++
	}

	if s.joiner.active {
		j := s.joiner
		s.joiner.active = false
		if !j.allows(r) {
			s.report(j.at, j.r)
		}
	}
	if s.flag.active && !isTag(r) {
		s.endFlag()
	}
	if s.selector.active && !isVariationSelector(r) {
		s.selector.active = false // its character took it
	}
	switch {
	case isTag(r):
		s.tag(r, at)
	case isVariationSelector(r):
		s.variationSelector(r, at)
	case r == zwj:
		switch {
		case s.pictographic:
			s.joiner = pendingJoiner{active: true, at: at, r: r, emoji: true}
		case !isVirama(s.prev):
			s.report(at, r)
		}
	case r == zwnj:
		if isVirama(s.prev) {
			break
		}
		if script := cursiveScript(s.prev); script != nil {
			s.joiner = pendingJoiner{active: true, at: at, r: r, script: script}
			break
		}
		s.report(at, r)
	case r == bom:
		if at.ordinal != 0 || s.name {
			s.report(at, r)
		}
	case r == zwsp, r == wordJoiner, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		s.report(at, r)
	}

	switch {
	case r < utf8.RuneSelf:
		s.pictographic = false
	case isPictographic(r):
		s.pictographic = true
	case isEmojiModifier(r) || r == vs16:
		// An emoji's modifiers keep it open for a ZWJ.
	default:
		s.pictographic = false
	}
	s.prev = r
}

func (j pendingJoiner) allows(next rune) bool {
	if j.emoji {
		return isPictographic(next)
	}
	return isLetterOrMark(next) && unicode.Is(j.script, next)
}

// tag scans a tag character: part of a flag after a black flag, hidden
// text anywhere else.
func (s *Scanner) tag(r rune, at position) {
	spec := r >= tagFirst+'0' && r <= tagFirst+'9' || r >= tagFirst+'a' && r <= tagFirst+'z'
	switch {
	case s.flag.active && r == cancelTag:
		if validSubdivision(s.flag.spec[:s.flag.n]) {
			s.flag.active = false
			return
		}
		s.endFlag()
	case s.flag.active && spec && s.flag.n < len(s.flag.spec):
		s.flag.spec[s.flag.n] = byte(r - tagFirst)
		s.flag.n++
		return
	case !s.flag.active && s.prev == blackFlag && spec:
		s.flag = pendingFlag{active: true, at: at, n: 1}
		s.flag.spec[0] = byte(r - tagFirst)
		return
	case s.flag.active:
		s.endFlag()
	}
	s.report(at, r)
}

// variationSelector scans a variation selector: one that picks the glyph
// of the character before it is text, any other hidden text.
func (s *Scanner) variationSelector(r rune, at position) {
	switch {
	case isVariationSelector(s.prev):
		// A character takes one selector: a second one is a message, and
		// so is the first.
		if p := s.selector; p.active {
			s.selector.active = false
			s.report(p.at, p.r)
		}
		s.report(at, r)
	case takesSelector(s.prev, r):
		s.selector = pendingSelector{active: true, at: at, r: r}
	default:
		s.report(at, r)
	}
}

// takesSelector reports whether prev is a character that variation
// selector r can pick a glyph of. A supplementary selector (VS17–256)
// picks only the form of an ideograph, as the Ideographic Variation
// Database registers them; one of VS1–16 follows any visible character,
// since emoji, symbols and letters use them and a single selector carries
// next to no information. Nothing takes one after a space, a line break
// or a format character.
func takesSelector(prev, r rune) bool {
	if r >= supplementarySelectorFirst {
		return unicode.Is(unicode.Ideographic, prev) && unicode.Is(unicode.Han, prev)
	}
	return unicode.IsGraphic(prev) && !unicode.IsSpace(prev)
}

// endFlag reports the tag characters of a flag that did not end as one.
func (s *Scanner) endFlag() {
	f := s.flag
	s.flag.active = false
	for i := range f.n {
		at := f.at
		at.column += i
		at.ordinal += int64(i)
		s.report(at, tagFirst+rune(f.spec[i]))
	}
}

// settle reports what is still open at the end of the input.
func (s *Scanner) settle() {
	if s.joiner.active {
		s.joiner.active = false
		s.report(s.joiner.at, s.joiner.r)
	}
	if s.flag.active {
		s.endFlag()
	}
}

// report records one hidden character, joining it to the run of the one
// before when it follows it.
func (s *Scanner) report(at position, r rune) {
	if s.runs > 0 && at.ordinal == s.last+1 {
		s.last = at.ordinal
		if s.runs == len(s.findings) {
			f := &s.findings[len(s.findings)-1]
			f.Count++
			f.count(r)
		}
		return
	}
	s.runs++
	s.last = at.ordinal
	if len(s.findings) < maxFindings {
		f := Finding{Line: at.line, Column: at.column, Rune: r, Count: 1}
		f.count(r)
		s.findings = append(s.findings, f)
	}
}

func (f *Finding) count(r rune) {
	if isTag(r) {
		f.Tags++
	}
}

func isPictographic(r rune) bool {
	return r >= 0xA9 && unicode.Is(extendedPictographic, r)
}

func isTag(r rune) bool { return r >= tagFirst && r <= cancelTag }

func isVariationSelector(r rune) bool {
	return r >= 0xFE00 && r <= 0xFE0F || r >= supplementarySelectorFirst && r <= 0xE01EF
}

func isEmojiModifier(r rune) bool { return r >= 0x1F3FB && r <= 0x1F3FF }

func isLetterOrMark(r rune) bool { return unicode.IsLetter(r) || unicode.IsMark(r) }

// isVirama reports whether r is a virama, the sign that kills a
// consonant's vowel in Indic scripts: canonical combining class 9.
func isVirama(r rune) bool {
	if r < 0x900 {
		return false // no virama comes before Devanagari
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	return norm.NFC.Properties(buf[:n]).CCC() == 9
}

// cursiveScripts are the scripts whose letters join, where a ZWNJ keeps
// two of them apart.
var cursiveScripts = []*unicode.RangeTable{
	unicode.Arabic, unicode.Syriac, unicode.Nko, unicode.Mongolian, unicode.Mandaic,
	unicode.Adlam, unicode.Hanifi_Rohingya, unicode.Phags_Pa, unicode.Manichaean,
	unicode.Psalter_Pahlavi, unicode.Sogdian, unicode.Old_Uyghur, unicode.Chorasmian,
}

// cursiveScript is the cursive script of r when r is one of its letters
// or marks, else nil.
func cursiveScript(r rune) *unicode.RangeTable {
	if r < 0x600 || !isLetterOrMark(r) {
		return nil
	}
	for _, t := range cursiveScripts {
		if unicode.Is(t, r) {
			return t
		}
	}
	return nil
}

// validSubdivision reports whether spec, the characters a flag's tags
// mirror, is a Unicode subdivision code: a region of two letters or three
// digits, then one to four letters or digits ("gbeng"). Its characters are
// lower-case letters and digits already.
func validSubdivision(spec []byte) bool {
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	var region int
	switch {
	case len(spec) >= 2 && !isDigit(spec[0]) && !isDigit(spec[1]):
		region = 2
	case len(spec) >= 3 && isDigit(spec[0]) && isDigit(spec[1]) && isDigit(spec[2]):
		region = 3
	default:
		return false
	}
	suffix := len(spec) - region
	return suffix >= 1 && suffix <= 4
}

// Error is hidden text found in a file that is refused for it.
type Error struct {
	// Path is the file, as the reader names it; empty when the error is
	// wrapped in one that names it already. Skill, when set, is the skill
	// it belongs to.
	Path  string
	Skill string
	Finding
	// More counts the further runs of hidden text in the file, when known:
	// a reader that stops at the first does not learn of the others.
	More int
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		fmt.Fprintf(&b, "%s:%d:%d: ", e.Path, e.Line, e.Column)
	} else {
		fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Column)
	}
	if e.Skill != "" {
		fmt.Fprintf(&b, "skill %s holds ", e.Skill)
	}
	fmt.Fprintf(&b, "hidden text: %s", e.Describe())
	if e.More > 0 {
		fmt.Fprintf(&b, " (and %d more places in the file)", e.More)
	}
	b.WriteString("; reviewers cannot see it, but agents read it: remove it")
	return b.String()
}

// Class makes a refusal for hidden text a failed precondition: the
// content is intact, but stax will not hand it to an agent.
func (e *Error) Class() errdefs.Class { return errdefs.FailedPrecondition }

// Guard checks a file as it is written to it, for the readers of
// packages: Write fails with an *Error as soon as the file certainly holds
// hidden text, and Close with what only the end of the file decides.
type Guard struct {
	path, skill string
	s           Scanner
}

// NewGuard checks the file path, of the skill named skill ("" for none);
// path may be "" when the caller's errors name the file (see Error). The
// path decides whether the file is read as text (IsTextName).
func NewGuard(path, skill string) *Guard {
	return &Guard{path: path, skill: skill, s: Scanner{Text: IsTextName(path)}}
}

// LayerGuard checks a file of a skills layer, whose path the layer reader
// prefixes its errors with: the skill is its top-level directory, and the
// path decides whether the file is read as text (IsTextName).
func LayerGuard(layerPath string) io.WriteCloser {
	skill, _, _ := strings.Cut(layerPath, "/")
	g := NewGuard("", skill)
	g.s.Text = IsTextName(layerPath)
	return g
}

func (g *Guard) Write(p []byte) (int, error) {
	n, _ := g.s.Write(p)
	if g.s.Certain() {
		return n, g.err()
	}
	return n, nil
}

func (g *Guard) Close() error {
	g.s.Close()
	if len(g.s.findings) > 0 {
		return g.err()
	}
	return nil
}

func (g *Guard) err() error {
	more := g.s.runs - 1
	if !g.s.closed {
		more = 0 // not known before the end
	}
	return &Error{Path: g.path, Skill: g.skill, Finding: g.s.findings[0], More: more}
}
