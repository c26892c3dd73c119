package validate

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/stax-dev/stax/internal/bytesize"
	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/skill"
)

// maxSkillMDSize bounds how much of the other text files of a skill (the
// stateful siblings, the Markdown files SKILL.md cites) is read into
// memory: a file this large cannot fit a skills layer of the default size
// anyway. SKILL.md itself has the smaller skill.MaxFileSize, the limit
// every command shares.
const maxSkillMDSize = layers.DefaultMaxSize

// skillDir checks one top-level directory.
func (v *validator) skillDir(d *skillDir) {
	if d.skillMD == nil {
		switch {
		case d.skillMDProblem:
			// Reported as a problem of the tree already.
		case len(d.entries) == 0 && !d.hasProblems:
			v.errorf(d.name, 0, CodeSkillDirEmpty,
				"skill directory is empty; add a %s, or remove the directory", skill.FileName)
		default:
			v.missingSkillMD(d)
		}
		return
	}
	doc, text := v.parse(d.skillMD)
	s := Skill{Dir: d.name}
	if doc != nil {
		f := doc.Frontmatter
		// A summary: block scalars (description: >) end in a newline
		// that is YAML syntax, not text.
		s.Name, s.Description, s.Version = f.Name, strings.TrimSpace(f.Description), f.Version
		v.frontmatter(d, doc)
		v.lints(d, doc, text)
	}
	v.stateful(d, doc)
	var lines fieldLines
	if doc != nil {
		lines = fieldLines{name: doc.Frontmatter.Line("name"), version: doc.Frontmatter.Line(doc.Frontmatter.VersionField)}
	}
	v.report.Skills = append(v.report.Skills, s)
	v.report.lines = append(v.report.lines, lines)
}

// parse reads and parses a SKILL.md, reporting why when it cannot; it
// returns the file's text too.
func (v *validator) parse(e *layers.Entry) (*skill.Document, string) {
	if e.Size > skill.MaxFileSize {
		v.errorf(e.Path, 0, CodeSkillMDTooLarge,
			"%s is %s, over the limit of %s; keep it small and move material to reference files",
			skill.FileName, bytesize.Format(e.Size), bytesize.Format(skill.MaxFileSize))
		return nil, ""
	}
	data, err := readFile(e.Source, e.Size, skill.MaxFileSize)
	if err != nil {
		v.unreadable[e.Path] = true
		v.errorf(e.Path, 0, CodeReadError, "cannot read %s: %v", skill.FileName, err)
		return nil, ""
	}
	doc, err := skill.Parse(data)
	if err != nil {
		var pe *skill.ParseError
		if !errors.As(err, &pe) {
			v.errorf(e.Path, 0, CodeFrontmatterSyntax, "%v", err)
			return nil, ""
		}
		code := CodeFrontmatterSyntax
		switch {
		case errors.Is(err, skill.ErrNoFrontmatter):
			code = CodeFrontmatterMissing
		case errors.Is(err, skill.ErrUnterminated):
			code = CodeFrontmatterUnterminated
		case errors.Is(err, skill.ErrNotMapping):
			code = CodeFrontmatterNotMapping
		case errors.Is(err, skill.ErrTooLarge) && pe.Line == 0:
			// The file grew past the limit after the scan.
			code = CodeSkillMDTooLarge
		case errors.Is(err, skill.ErrTooLarge):
			code = CodeFrontmatterTooLarge
		}
		v.errorf(e.Path, pe.Line, code, "%s", pe.Detail)
		return nil, ""
	}
	return doc, string(data)
}

// readFile reads a file the scan found size bytes long, in one
// allocation when it has not grown since.
func readFile(name string, size, limit int64) ([]byte, error) {
	return readFileInto(nil, name, size, limit)
}

// readFileInto is readFile reading into buf, which it grows as needed, so
// that a buffer can serve file after file.
func readFileInto(buf []byte, name string, size, limit int64) ([]byte, error) {
	f, err := regularfile.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may have grown since the scan; never read past the limit.
	data := slices.Grow(buf[:0], int(min(size, limit)+1))
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if int64(len(data)) > limit {
			break
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %s", bytesize.Format(limit))
	}
	return data, nil
}

// frontmatter checks the fields of a parsed SKILL.md.
func (v *validator) frontmatter(d *skillDir, doc *skill.Document) {
	rel := d.skillMD.Path
	f := doc.Frontmatter
	badType := map[string]bool{}
	for _, e := range f.Errors {
		code := CodeFieldType
		if e.Kind == skill.Duplicate {
			code = CodeFieldDuplicate
		} else {
			badType[e.Field] = true
		}
		v.errorf(rel, e.Line, code, "%s", e.Message)
	}

	switch {
	case badType["name"]:
	case !f.Has("name"):
		v.errorf(rel, 1, CodeNameMissing,
			"frontmatter has no name; add name: %s", suggestName(d.name))
	case f.Name == "":
		v.errorf(rel, f.Line("name"), CodeNameMissing, "name is empty; set it: name: %s", suggestName(d.name))
	default:
		if err := skill.ValidName(f.Name); err != nil {
			v.errorf(rel, f.Line("name"), CodeNameInvalid, "%v", err)
		} else if f.Name != d.name {
			v.warnf(rel, f.Line("name"), CodeNameMismatch,
				"name %q differs from its directory %q; runtimes key skills by directory, so rename one to match",
				f.Name, d.name)
		}
	}

	switch {
	case badType["description"]:
	case !f.Has("description"):
		v.errorf(rel, 1, CodeDescriptionMissing,
			"frontmatter has no description; add one that says what the skill does and when to use it")
	case strings.TrimSpace(f.Description) == "":
		v.errorf(rel, f.Line("description"), CodeDescriptionMissing,
			"description is empty; say what the skill does and when to use it")
	default:
		if n := utf8.RuneCountInString(f.Description); n > skill.MaxDescriptionLength {
			v.errorf(rel, f.Line("description"), CodeDescriptionTooLong,
				"description is %d characters long; the limit is %d: move details to the body",
				n, skill.MaxDescriptionLength)
		}
	}

	if n := utf8.RuneCountInString(f.Compatibility); n > skill.MaxCompatibilityLength {
		v.errorf(rel, f.Line("compatibility"), CodeCompatibilityTooLong,
			"compatibility is %d characters long; the limit is %d: list only environment requirements",
			n, skill.MaxCompatibilityLength)
	}

	if f.ToolsForm == skill.ToolsString {
		v.warnf(rel, f.Line("allowed-tools"), CodeAllowedToolsString,
			"allowed-tools is a string; the stax specification requires a YAML list: allowed-tools: %s",
			flowList(f.AllowedTools))
	}
	if f.ArgumentHintList {
		v.warnf(rel, f.Line("argument-hint"), CodeArgumentHintList,
			"argument-hint is unquoted, so YAML reads it as a list; quote it: argument-hint: %q",
			f.ArgumentHint)
	}
	for _, u := range f.Unknown {
		v.warnf(rel, u.Line, CodeUnknownField,
			"unknown frontmatter field %q is kept, but runtimes may ignore it; check its spelling, or move it under metadata", u.Name)
	}
	if n := doc.BodyLineCount(); n > MaxBodyLines {
		v.warnf(rel, doc.BodyLine+MaxBodyLines, CodeBodyTooLong,
			"body is %d lines long; keep it under %d and move details to reference files loaded on demand",
			n, MaxBodyLines)
	}
}

// suggestName is the value to propose for a missing name: the directory
// name, when it is a valid name.
func suggestName(dir string) string {
	if skill.ValidName(dir) == nil {
		return dir
	}
	return "<name>"
}

// flowList renders tools as a YAML flow list, quoting where YAML needs it.
func flowList(items []string) string {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, it := range items {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: it})
	}
	out, err := yaml.Marshal(n)
	if err != nil {
		return "[" + strings.Join(items, ", ") + "]"
	}
	return strings.TrimSpace(string(out))
}

// duplicateNames reports names declared by more than one skill, on each of
// them, naming the others: either may be the one to rename.
func (v *validator) duplicateNames() {
	byName := map[string][]int{}
	var order []string
	for i, s := range v.report.Skills {
		if s.Name == "" {
			continue
		}
		if _, ok := byName[s.Name]; !ok {
			order = append(order, s.Name)
		}
		byName[s.Name] = append(byName[s.Name], i)
	}
	for _, name := range order {
		idx := byName[name]
		if len(idx) < 2 {
			continue
		}
		for _, i := range idx {
			var others []string
			for _, j := range idx {
				if j != i {
					others = append(others, v.path(v.report.Skills[j].Dir+"/"+skill.FileName))
				}
			}
			rel := v.report.Skills[i].Dir + "/" + skill.FileName
			v.errorf(rel, v.report.lines[i].name, CodeNameDuplicate,
				"name %q is also declared by %s; skill names must be unique",
				name, strings.Join(others, ", "))
		}
	}
}
