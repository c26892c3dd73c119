package bump

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

// Change is one value a bump rewrote.
type Change struct {
	// File is the path of the file.
	File string `json:"file"`
	// Field is "version" or "metadata.version".
	Field string `json:"field"`
	// Line is the 1-based line of the value.
	Line int    `json:"line"`
	From string `json:"from"`
	To   string `json:"to"`
}

// Result is what a bump did.
type Result struct {
	Dir     string   `json:"dir"`
	Part    Part     `json:"part"`
	From    string   `json:"from"`
	To      string   `json:"to"`
	Changes []Change `json:"changes"`
}

// Options selects the skill and the part to raise.
type Options struct {
	// Dir is the skill directory: the one holding SKILL.md.
	Dir  string
	Part Part
	// DryRun computes the result without writing.
	DryRun bool
	// Today is the date MEMORY.md's lastUpdated is set to (in UTC); the
	// zero value means now.
	Today time.Time
}

// Skill raises the version of the skill in opts.Dir and sets MEMORY.md's
// version to the same value. Nothing is written unless both edits can be
// made: a MEMORY.md without a version is an error, not a skipped file.
func Skill(opts Options) (*Result, error) {
	if opts.Part == "" {
		opts.Part = Patch
	}
	skillPath := filepath.Join(opts.Dir, skill.FileName)
	skillData, err := regularfile.ReadFile(skillPath, skill.MaxFileSize)
	if err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("bump: %w", err))
	}
	doc, err := skill.Parse(skillData)
	if err != nil {
		return nil, errdefs.Invalid(fmt.Errorf("bump: %s: %w", skillPath, err))
	}
	f := doc.Frontmatter
	if f.VersionField == "" {
		return nil, errdefs.Invalid(fmt.Errorf(
			"bump: %s has no version; add one to its frontmatter, e.g. a line \"version: 0.1.0\" after description "+
				"(or metadata.version for Agent Skills tooling), then run stax bump again", skillPath))
	}
	from, err := ParseVersion(f.Version)
	if err != nil {
		return nil, errdefs.Invalid(fmt.Errorf(
			"bump: %s: %w; set it by hand to a version stax can raise", skillPath, err))
	}
	to, err := from.Next(opts.Part)
	if err != nil {
		return nil, errdefs.Invalid(fmt.Errorf("bump: %w", err))
	}
	res := &Result{Dir: opts.Dir, Part: opts.Part, From: f.Version, To: to.String()}

	path := []string{"version"}
	if f.VersionField == "metadata.version" {
		path = []string{"metadata", "version"}
	}
	newSkill, line, err := SetValue(skillData, f.Node(), path, res.To)
	if err != nil {
		return nil, errdefs.Invalid(fmt.Errorf("bump: %s: %w", skillPath, err))
	}
	res.Changes = append(res.Changes, Change{File: skillPath, Field: f.VersionField, Line: line, From: res.From, To: res.To})
	writes := []pendingWrite{{skillPath, newSkill}}

	memPath := filepath.Join(opts.Dir, stateful.MemoryFile)
	memData, err := regularfile.ReadFile(memPath, stateful.MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, errdefs.MarkLocal(fmt.Errorf("bump: %w", err))
	default:
		today := opts.Today
		if today.IsZero() {
			today = time.Now()
		}
		newMem, changes, err := memoryVersion(memPath, memData, res.To, today.UTC().Format(time.DateOnly))
		if err != nil {
			return nil, err
		}
		res.Changes = append(res.Changes, changes...)
		writes = append(writes, pendingWrite{memPath, newMem})
	}
	if opts.DryRun {
		return res, nil
	}
	if err := writeAll(writes); err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("bump: %w", err))
	}
	return res, nil
}

// memoryVersion sets the version of a MEMORY.md and its lastUpdated date:
// the file is written with the skill's new version, so it is as of today.
// A missing lastUpdated is added after the version line.
func memoryVersion(path string, data []byte, to, today string) ([]byte, []Change, error) {
	fail := func(format string, args ...any) ([]byte, []Change, error) {
		return nil, nil, errdefs.Invalid(fmt.Errorf("bump: %s: "+format, append([]any{path}, args...)...))
	}
	doc, err := skill.Parse(data)
	if err != nil {
		return fail("%v; MEMORY.md must start with a frontmatter block holding version: %s, then run stax bump again", err, to)
	}
	from := ""
	if n := skill.Lookup(doc.Frontmatter.Node(), "version"); n != nil {
		from = n.Value
	} else {
		return fail("the frontmatter has no version; add version: <the current SKILL.md version>, then run stax bump again")
	}
	out, line, err := SetValue(data, doc.Frontmatter.Node(), []string{"version"}, to)
	if err != nil {
		return fail("%v", err)
	}
	changes := []Change{{File: path, Field: "version", Line: line, From: from, To: to}}
	if n := skill.Lookup(doc.Frontmatter.Node(), "lastUpdated"); n != nil {
		// Only the version's length changed, on another line: the date's
		// position in out is where the parsed node says.
		withDate, dateLine, err := SetValue(out, doc.Frontmatter.Node(), []string{"lastUpdated"}, today)
		if err != nil {
			return fail("%v", err)
		}
		if n.Value != today {
			out = withDate
			changes = append(changes, Change{File: path, Field: "lastUpdated", Line: dateLine, From: n.Value, To: today})
		}
		return out, changes, nil
	}
	out, err = insertLineAfter(out, line, "lastUpdated: "+today)
	if err != nil {
		return fail("%v", err)
	}
	return out, append(changes, Change{File: path, Field: "lastUpdated", Line: line + 1, To: today}), nil
}

// insertLineAfter inserts text as a new line after 1-based line, with that
// line's ending.
func insertLineAfter(data []byte, line int, text string) ([]byte, error) {
	start, err := offset(data, line, 1)
	if err != nil {
		return nil, err
	}
	end := bytes.IndexByte(data[start:], '\n')
	if end < 0 {
		return nil, fmt.Errorf("line %d has no end", line)
	}
	end += start + 1
	eol := "\n"
	if end >= 2 && data[end-2] == '\r' {
		eol = "\r\n"
	}
	out := make([]byte, 0, len(data)+len(text)+len(eol))
	out = append(out, data[:end]...)
	out = append(out, text+eol...)
	return append(out, data[end:]...), nil
}

// frontmatterFirstLine is the file line the frontmatter YAML starts on,
// right after the opening "---".
const frontmatterFirstLine = 2

// SetValue replaces the scalar at path (keys from the frontmatter mapping
// m, which was parsed from data's frontmatter) with value, changing no
// other byte of data. The scalar keeps its quoting style. It returns the
// new bytes and the 1-based file line of the value.
//
// Only scalars written on one line, without escapes, can be replaced this
// way; anything else is an error that asks for a hand edit rather than a
// rewrite of the frontmatter.
func SetValue(data []byte, m *yaml.Node, path []string, value string) ([]byte, int, error) {
	n := skill.Lookup(m, path...)
	if n == nil {
		return nil, 0, fmt.Errorf("no %s field", dotted(path))
	}
	if n.Kind != yaml.ScalarNode {
		return nil, 0, fmt.Errorf("%s is not a single value; edit it by hand", dotted(path))
	}
	line := n.Line + frontmatterFirstLine - 1
	start, err := offset(data, line, n.Column)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", dotted(path), err)
	}
	var open, close string
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		open, close = `"`, `"`
	case n.Style&yaml.SingleQuotedStyle != 0:
		open, close = `'`, `'`
	case n.Style == 0:
	default:
		return nil, 0, fmt.Errorf("%s is a block or folded scalar; write it on one line (version: 1.0.0)", dotted(path))
	}
	written := open + n.Value + close
	end := start + len(written)
	if end > len(data) || string(data[start:end]) != written || (open == "" && !plainEnds(data, end)) {
		return nil, 0, fmt.Errorf("line %d: %s is not written as a simple value (%q); edit it by hand", line, dotted(path), n.Value)
	}
	out := make([]byte, 0, len(data)-len(n.Value)+len(value))
	out = append(out, data[:start]...)
	out = append(out, open+value+close...)
	out = append(out, data[end:]...)
	return out, line, nil
}

func dotted(path []string) string {
	s := path[0]
	for _, p := range path[1:] {
		s += "." + p
	}
	return s
}

// offset converts a 1-based line and a 1-based column counted in
// characters, as yaml reports them, to a byte offset of data.
func offset(data []byte, line, column int) (int, error) {
	pos := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(data[pos:], '\n')
		if i < 0 {
			return 0, fmt.Errorf("line %d is past the end of the file", line)
		}
		pos += i + 1
	}
	for c := 1; c < column; c++ {
		if pos >= len(data) || data[pos] == '\n' {
			return 0, fmt.Errorf("column %d is past the end of line %d", column, line)
		}
		_, size := utf8.DecodeRune(data[pos:])
		pos += size
	}
	return pos, nil
}

// plainEnds reports whether a plain scalar may end at data[end]: the end
// of the line, a comment, or the end of a flow collection entry.
func plainEnds(data []byte, end int) bool {
	if end == len(data) {
		return true
	}
	switch data[end] {
	case '\n', '\r', ' ', '\t', ',', ']', '}':
		return true
	}
	return false
}

type pendingWrite struct {
	path string
	data []byte
}

// writeAll replaces every file through a temporary file in its directory,
// so that a failure leaves each file either old or new, never truncated;
// the renames happen only once every temporary file is written.
func writeAll(writes []pendingWrite) error {
	var temps []string
	defer func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}()
	for _, w := range writes {
		info, err := os.Stat(w.path)
		if err != nil {
			return err
		}
		tmp, err := os.CreateTemp(filepath.Dir(w.path), ".stax-bump-*")
		if err != nil {
			return err
		}
		temps = append(temps, tmp.Name())
		_, err = tmp.Write(w.data)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(tmp.Name(), info.Mode().Perm())
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", w.path, err)
		}
	}
	for i, w := range writes {
		if err := os.Rename(temps[i], w.path); err != nil {
			return fmt.Errorf("replace %s: %w", w.path, err)
		}
	}
	temps = nil
	return nil
}

// SetMemoryVersion sets the version and lastUpdated of a MEMORY.md,
// changing no other byte (a missing lastUpdated is added after the
// version line); name is the file in messages. An install that merges a
// user's entries into a new MEMORY.md makes the file say so with it.
func SetMemoryVersion(name string, data []byte, version, lastUpdated string) ([]byte, error) {
	out, _, err := memoryVersion(name, data, version, lastUpdated)
	return out, err
}
