package stateful

import (
	"fmt"
	"strings"
)

// MemorySide is one version of a MEMORY.md given to MergeMemory: its
// bytes, and the name messages give it.
type MemorySide struct {
	Name string
	Data []byte
}

// MemoryMerge is the result of MergeMemory.
type MemoryMerge struct {
	// Text is the upstream file with the local entries it lacks added:
	// each at the end of the section of the same title, and sections only
	// the local file has at the end, with their headings.
	Text []byte
	// Kept are the local entries added, as the local file has them.
	Kept []Entry
	// Fields are the names of the local frontmatter fields kept, as the
	// local file has them: in place of upstream's field of the same name,
	// or at the end of the upstream frontmatter when it has none.
	Fields []string
	// LastUpdated is the newest of the upstream lastUpdated and the dates
	// of the entries: the date of the merged file's newest entry.
	LastUpdated string
	// Version is the upstream frontmatter's version.
	Version string
}

// MergeError is a MEMORY.md that cannot be merged: broken, or holding an
// entry that says something else on the other side.
type MergeError struct {
	File    string
	Line    int
	Message string
	// Upstream is set when File is the new version's file, which is not
	// on disk, rather than the local one.
	Upstream bool
}

func (e *MergeError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Message) }

// MergeMemory merges the entries of a local MEMORY.md, one a user added
// to since it was installed, into the upstream one a new version of its
// skill brings. Entries are merged as two versions: the copy that was
// installed is not kept anywhere, so an entry is known by what it is. An
// entry whose text upstream has too (in any section) is upstream's; a
// local entry upstream lacks is the user's and is kept; a local entry
// whose section, signer and date upstream has with other text is a
// conflict, since which side changed it cannot be told and neither may be
// lost. Frontmatter fields are merged three ways, against base, what the
// install recorded of the frontmatter it wrote (see mergeFields): a field
// one side changed takes that side's value, one both changed to other
// values is a conflict. The upstream file is otherwise kept byte for byte
// (the caller sets version and lastUpdated, see LastUpdated); a local
// preamble that differs from upstream's is a conflict too.
//
// A side whose frontmatter does not parse, or whose H2 headings are empty
// or repeat a title (so that sections cannot be matched), is a MergeError
// naming its file and line.
func MergeMemory(local, upstream MemorySide, base FieldBase) (*MemoryMerge, error) {
	lm, err := parseForMerge(local)
	if err != nil {
		return nil, err
	}
	um, err := parseForMerge(upstream)
	if err != nil {
		err.Upstream = true
		return nil, err
	}
	if lm.Preamble != "" && normalizeEntry(lm.Preamble) != normalizeEntry(um.Preamble) {
		return nil, &MergeError{File: local.Name, Line: lm.PreambleLine, Message: fmt.Sprintf(
			"the text before the first section differs from %s's: stax cannot tell which to keep; make it the same as the new one (move your text into a dated entry under a section), then install again", upstream.Name)}
	}
	fields, ferr := mergeFields(local, upstream, lm, um, base)
	if ferr != nil {
		return nil, ferr
	}

	idx := indexUpstream(um)
	out := &MemoryMerge{LastUpdated: idx.newest}
	if um.Frontmatter != nil {
		out.Version = um.Frontmatter.Version
	}
	after, added, err := mergeEntries(local, upstream, lm, um, idx, out)
	if err != nil {
		return nil, err
	}
	before, drop := placeFields(fields, um, out)
	out.Text = assemble(upstream.Data, before, drop, after, added)
	if err := checkKept(local, out.Text, lm, um, fields); err != nil {
		return nil, err
	}
	return out, nil
}

// upstreamIndex is what a merge looks up in the upstream file.
type upstreamIndex struct {
	// text holds the normalized text of every entry.
	text map[string]bool
	// byKey holds the dated entries by section, signer and date.
	byKey map[entryKey][]Entry
	// section is the index of each section by its normalized title.
	section map[string]int
	// newest is the newest of lastUpdated and the entries' dates.
	newest string
}

func indexUpstream(um *Memory) upstreamIndex {
	idx := upstreamIndex{text: map[string]bool{}, byKey: map[entryKey][]Entry{}, section: map[string]int{}}
	if um.Frontmatter != nil {
		idx.newest = um.Frontmatter.LastUpdated
	}
	for i, s := range um.Sections {
		idx.section[normalizeTitle(s.Title)] = i
		for _, e := range s.Entries {
			idx.newest = max(idx.newest, e.Date)
			idx.text[normalizeEntry(e.Text)] = true
			if e.Date != "" {
				k := keyOf(e)
				idx.byKey[k] = append(idx.byKey[k], e)
			}
		}
	}
	return idx
}

// mergeEntries finds the local entries upstream lacks and records them
// in out. It returns them as assemble places them: after holds, by
// upstream line, the local entries to add after it; added are the local
// sections upstream does not have.
func mergeEntries(local, upstream MemorySide, lm, um *Memory, idx upstreamIndex, out *MemoryMerge) (map[int][]string, []localSection, *MergeError) {
	localText := map[string]bool{}
	for _, e := range lm.Entries() {
		localText[normalizeEntry(e.Text)] = true
	}
	after := map[int][]string{}
	var added []localSection
	for _, s := range lm.Sections {
		var kept []string
		for _, e := range s.Entries {
			if idx.text[normalizeEntry(e.Text)] {
				continue
			}
			if e.Date != "" {
				for _, u := range idx.byKey[keyOf(e)] {
					if localText[normalizeEntry(u.Text)] {
						continue // another entry of the same day, on both sides
					}
					return nil, nil, &MergeError{File: local.Name, Line: e.Line, Message: fmt.Sprintf(
						"the entry of %s%s under %q differs from the one on line %d of %s: stax cannot tell which side changed it; make yours the same as the new one (add what you changed as a new dated entry), or install with --force to take the new file (yours is moved to a backup)",
						e.Date, signedBy(e), s.Title, u.Line, upstream.Name)}
				}
			}
			out.Kept = append(out.Kept, e)
			kept = append(kept, e.Text)
			if e.Date > out.LastUpdated {
				out.LastUpdated = e.Date
			}
		}
		if len(kept) == 0 {
			continue
		}
		i, ok := idx.section[normalizeTitle(s.Title)]
		if !ok {
			added = append(added, localSection{heading: s.Heading, entries: kept})
			continue
		}
		us := um.Sections[i]
		end := us.Line
		if n := len(us.Entries); n > 0 {
			last := us.Entries[n-1]
			end = last.Line + strings.Count(strings.TrimRight(last.Text, "\r\n"), "\n")
		}
		after[end] = append(after[end], kept...)
	}
	return after, added, nil
}

// placeFields places the kept fields as assemble writes them, and
// records their names in out: a kept field replaces upstream's lines of
// it (before holds it, drop those lines), or goes at the end of the
// frontmatter, before its closing ---.
func placeFields(fields []keptField, um *Memory, out *MemoryMerge) (before map[int][]string, drop map[int]bool) {
	before, drop = map[int][]string{}, map[int]bool{}
	for _, f := range fields {
		at := um.bodyLine - 1
		if f.from != 0 {
			at = f.from
			for l := f.from; l < f.to; l++ {
				drop[l] = true
			}
		}
		before[at] = append(before[at], f.text)
		out.Fields = append(out.Fields, f.name)
	}
	return before, drop
}

// parseForMerge parses one side and refuses what a merge cannot match:
// a frontmatter that does not parse, and H2 headings that are empty or
// repeat a title.
func parseForMerge(side MemorySide) (*Memory, *MergeError) {
	m := ParseMemory(side.Data)
	for _, p := range m.Problems {
		if p.Kind == FrontmatterMissing || p.Kind == FrontmatterInvalid {
			return nil, &MergeError{File: side.Name, Line: p.Line, Message: p.Message + "; fix it, then install again"}
		}
	}
	seen := map[string]int{}
	for _, s := range m.Sections {
		title := normalizeTitle(s.Title)
		if title == "" {
			return nil, &MergeError{File: side.Name, Line: s.Line, Message: "a section heading without a title: entries cannot be matched to their section; give it a title, then install again"}
		}
		if first, ok := seen[title]; ok {
			return nil, &MergeError{File: side.Name, Line: s.Line, Message: fmt.Sprintf(
				"the section %q is already on line %d: entries cannot be matched to their section; move its entries under the first one, then install again", s.Title, first)}
		}
		seen[title] = s.Line
	}
	return m, nil
}

// entryKey identifies an entry across two versions of a file: its
// section, signer and date.
type entryKey struct{ section, signer, date string }

func keyOf(e Entry) entryKey {
	return entryKey{section: normalizeTitle(e.Section), signer: e.Signer, date: e.Date}
}

func signedBy(e Entry) string {
	if e.Signer == "" {
		return ""
	}
	return " by " + e.Signer
}

// normalizeEntry is an entry's text compared across versions: line
// endings and trailing white space do not count.
func normalizeEntry(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// localSection is a section only the local file has, and its entries.
type localSection struct {
	heading string
	entries []string
}

// assemble writes data without the lines of drop, with before each line
// of before's keys its text, after each line of after's keys a blank line
// and each entry, and at the end the added sections.
func assemble(data []byte, before map[int][]string, drop map[int]bool, after map[int][]string, added []localSection) []byte {
	var b strings.Builder
	b.Grow(len(data))
	text := string(data)
	line := 1
	for text != "" {
		raw := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			raw = text[:i+1]
		}
		text = text[len(raw):]
		for _, f := range before[line] {
			b.WriteString(f + "\n")
		}
		if !drop[line] {
			b.WriteString(raw)
		}
		for _, e := range after[line] {
			endLine(&b)
			b.WriteString("\n" + e)
			endLine(&b)
		}
		line++
	}
	for _, s := range added {
		endLine(&b)
		b.WriteString("\n" + s.heading + "\n")
		for _, e := range s.entries {
			b.WriteString("\n" + e)
			endLine(&b)
		}
	}
	return []byte(b.String())
}

// endLine ends the text of b with a line break if it has none.
func endLine(b *strings.Builder) {
	if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteString("\n")
	}
}
