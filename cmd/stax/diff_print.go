package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/stax-dev/stax/pkg/diff"
	"github.com/stax-dev/stax/pkg/termtext"
)

// printDiff writes one line per difference, sorted: package fields first,
// then skills by directory, each changed skill followed by its files by
// path and its frontmatter fields by name. Nothing is written when A and B
// are the same in every respect; a summary goes to stderr.
func printDiff(streams *IOStreams, r *diff.PackageResult) error {
	var out strings.Builder
	for _, c := range r.Metadata {
		writeField(&out, "", "package", c)
	}
	// Added, removed and changed directories are disjoint, so sorting
	// their entries by directory gives one order.
	var skills []sortedLine
	for _, s := range r.Added {
		skills = append(skills, sortedLine{s, "+ skill " + termtext.Escape(s) + "\n"})
	}
	for _, s := range r.Removed {
		skills = append(skills, sortedLine{s, "- skill " + termtext.Escape(s) + "\n"})
	}
	for _, c := range r.Changed {
		skills = append(skills, sortedLine{c.Skill, skillChangeText(c)})
	}
	writeSorted(&out, "", skills)
	if _, err := io.WriteString(streams.Out, out.String()); err != nil {
		return err
	}
	for _, n := range r.Notices {
		printNote(streams.ErrOut, "notice", n)
	}
	if r.Identical {
		fmt.Fprintf(streams.ErrOut, "%s and %s hold the same skills\n", termtext.Escape(r.A.Reference), termtext.Escape(r.B.Reference))
	} else {
		fmt.Fprintf(streams.ErrOut, "%s and %s differ: %s added, %d removed, %d changed\n",
			termtext.Escape(r.A.Reference), termtext.Escape(r.B.Reference), plural(int64(len(r.Added)), "skill"), len(r.Removed), len(r.Changed))
	}
	return nil
}

// sortedLine is output text and the key it is sorted by.
type sortedLine struct{ key, text string }

func writeSorted(w io.Writer, indent string, lines []sortedLine) {
	slices.SortFunc(lines, func(x, y sortedLine) int { return strings.Compare(x.key, y.key) })
	for _, l := range lines {
		fmt.Fprintf(w, "%s%s", indent, l.text)
	}
}

func skillChangeText(c diff.SkillChange) string {
	var b strings.Builder
	fmt.Fprintf(&b, "~ skill %s\n", termtext.Escape(c.Skill))
	var files []sortedLine
	for _, p := range c.Files.Added {
		files = append(files, sortedLine{p, "+ file " + termtext.Escape(p) + "\n"})
	}
	for _, p := range c.Files.Removed {
		files = append(files, sortedLine{p, "- file " + termtext.Escape(p) + "\n"})
	}
	for _, f := range c.Files.Changed {
		var how string
		switch {
		case f.ModeChanged() && f.ContentChanged():
			how = fmt.Sprintf(" (content, and mode %s → %s)", f.OldMode, f.NewMode)
		case f.ModeChanged():
			how = fmt.Sprintf(" (mode %s → %s)", f.OldMode, f.NewMode)
		}
		files = append(files, sortedLine{f.Path, "~ file " + termtext.Escape(f.Path) + how + "\n"})
	}
	writeSorted(&b, "    ", files)
	for _, fc := range c.Frontmatter {
		writeField(&b, "    ", "frontmatter", fc)
	}
	return b.String()
}

// writeField writes a field change with its values as JSON, so that a
// string is quoted, a list is one line, and a multi-line value stays on it.
// The field's name is the publisher's too: escaped.
func writeField(w io.Writer, indent, what string, c diff.FieldChange) {
	field := termtext.Escape(c.Field)
	switch c.Change {
	case diff.Added:
		fmt.Fprintf(w, "%s+ %s %s: %s\n", indent, what, field, jsonValue(c.New))
	case diff.Removed:
		fmt.Fprintf(w, "%s- %s %s: %s\n", indent, what, field, jsonValue(c.Old))
	default:
		fmt.Fprintf(w, "%s~ %s %s: %s → %s\n", indent, what, field, jsonValue(c.Old), jsonValue(c.New))
	}
}

func jsonValue(v any) string {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Fields hold only what JSON can encode; this is a safety net.
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(string(termtext.JSON([]byte(buf.String()))), "\n")
}
