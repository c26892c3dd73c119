// Package validate checks a skills directory against the rules of the stax
// skills layer and the Agent Skills specification, and reports every
// problem at once, each with the file (and line) to fix.
//
// Validation scans the tree one skill at a time, with layers.ScanParts,
// and keeps of each skill only what the report needs, so that its memory
// stays flat in the number of skills and files. The Report hands the scan's
// outline to its caller, so that the packer writes the tree that was
// validated or nothing: the layer writer refuses a skill that changed since.
package validate

import (
	"cmp"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

// Diagnostic is one problem found in the skills directory.
type Diagnostic struct {
	// File is the path as the user would open it: filepath.Join(opts.Root, rel).
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// Column is the 1-based column on Line, in characters; 0 when the
	// diagnostic is about the whole line.
	Column int `json:"column,omitempty"`
	// Code is a stable kebab-case identifier; see the Code constants.
	Code string `json:"code"`
	// Message says what is wrong and how to fix it.
	Message string `json:"message"`
	// Skill is the skill directory the file is in; empty for a file of
	// the skills directory itself. File names it too.
	Skill string `json:"-"`
}

func (d Diagnostic) String() string { return d.Format("") }

// Format renders d in the file:line: form editors link to, with severity
// ("error", "warning") when given.
func (d Diagnostic) Format(severity string) string {
	where := d.File
	if d.Line > 0 {
		where = fmt.Sprintf("%s:%d", d.File, d.Line)
	}
	if d.Line > 0 && d.Column > 0 {
		where += fmt.Sprintf(":%d", d.Column)
	}
	if severity != "" {
		where += ": " + severity
	}
	return fmt.Sprintf("%s: %s [%s]", where, d.Message, d.Code)
}

// Skill summarizes one skill of the directory.
type Skill struct {
	// Name is the name field of its frontmatter; empty when unreadable.
	Name string `json:"name"`
	// Dir is the top-level directory name, the key skills merge on.
	Dir string `json:"dir"`
	// Description is trimmed of surrounding white space.
	Description string `json:"description"`
	Version     string `json:"version,omitempty"`
}

// Report is the outcome of validating a skills directory.
type Report struct {
	Valid bool `json:"valid"`
	// Skills are the top-level directories holding a SKILL.md, in layer order.
	Skills   []Skill      `json:"skills"`
	Errors   []Diagnostic `json:"errors"`
	Warnings []Diagnostic `json:"warnings"`

	// Layer is the outline of the scan, for the packer to write the tree
	// that was validated (see layers.Outline.Write).
	Layer *layers.Outline `json:"-"`
	// lines[i] are the lines of Skills[i]'s SKILL.md that later checks
	// point at: a parsed SKILL.md is dropped once checked, so that a
	// report costs little per skill.
	lines []fieldLines
	// siblings are the stateful files of the skills (MEMORY.md, ...), by
	// path, for CheckAgainst.
	siblings map[string]layers.Entry

	// opts are the options the report was made with, for checks added to
	// it later (CheckAgainst).
	opts Options
}

// Options selects the directory to validate and how.
type Options struct {
	// Root is the skills directory.
	Root string
	// PackageRoot holds .staxignore and bounds flattened symlinks; empty
	// means Root.
	PackageRoot string
	// Package, set when Root is one skill of a package's skills
	// directory, is that package's root: the directory to give in its
	// place, which a message of a skill given as a package names.
	Package string
	// Strict turns warnings into errors.
	Strict bool
	// Symlinks is passed to layers.Scan.
	Symlinks layers.SymlinkMode
	// Only, when set, is the one skill directory of Root checked, by
	// name; the others are not read.
	Only string
	// Parts, when set, are the skills checked in place of Root's
	// children: each skill directory name is the directory on disk that
	// holds it (see layers.ScanOptions.Parts). Diagnostics name the files
	// where they are.
	Parts map[string]string
	// Lenient makes the content rules (ContentRule) warnings: for a
	// package of someone else's skills, which its user cannot fix and
	// can use. The safety rules stay errors. With Strict, the content
	// rules are all errors instead, but the advice to the skills' author
	// (Lint), which whoever installs them cannot act on, stays a warning.
	Lenient bool
}

// Dir validates the skills directory opts.Root. The error is for a
// directory that cannot be read at all; everything else is a Diagnostic.
func Dir(opts Options) (*Report, error) {
	v := newValidator(opts)
	outline, err := layers.ScanParts(layers.ScanOptions{
		Root:        opts.Root,
		PackageRoot: opts.PackageRoot,
		Symlinks:    opts.Symlinks,
		Only:        opts.Only,
		Parts:       opts.Parts,
	}, func(part *layers.Tree) error {
		v.part(part)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("validating skills: %w", err)
	}
	v.report.Layer = outline
	v.finish()
	return v.report, nil
}

func newValidator(opts Options) *validator {
	return &validator{
		opts: opts,
		buf:  make([]byte, 32<<10),
		tops: map[string]string{},
		report: &Report{
			Skills:   []Skill{},
			Errors:   []Diagnostic{},
			Warnings: []Diagnostic{},
			siblings: map[string]layers.Entry{},
			opts:     opts,
		},
	}
}

// part checks one top-level entry of the tree and what is under it: a
// skill, or a stray file. Nothing of its entries is kept but the
// stateful files, for CheckAgainst.
func (v *validator) part(t *layers.Tree) {
	v.unreadable = map[string]bool{}
	v.problems(t.Problems)
	dirs := v.layout(t)
	v.skillDirs += len(dirs)
	for _, d := range dirs {
		v.skillDir(d)
	}
	v.caseCollisions(t.Entries)
	v.files(t.Entries)
	v.hiddenText(t.Entries)
	v.placeholders(t.Entries)
	for _, e := range t.Entries {
		if dir, base := path.Split(e.Path); !e.Dir && strings.Count(dir, "/") == 1 && slices.Contains(stateful.Files, base) {
			v.report.siblings[e.Path] = e
		}
	}
}

type validator struct {
	opts   Options
	report *Report
	// unreadable holds the paths already reported as unreadable, so that
	// a second read of the same file does not report it twice.
	unreadable map[string]bool
	// buf is the one buffer files are read through; text the one that
	// holds a whole file (the cited Markdown files).
	buf, text []byte
	// skillDirs counts the skill directories met so far.
	skillDirs int
	// tops are the top-level paths met so far, by their lower case, for
	// the case collisions between parts.
	tops map[string]string
}

// fieldLines are where, in a SKILL.md, its name and version are; 0 when
// it could not be parsed.
type fieldLines struct {
	name, version int
}

// path turns a slash-separated path relative to the root into the path
// the user would open.
func (v *validator) path(rel string) string {
	return v.opts.diskPath(rel)
}

// diskPath is the path on disk of rel, a clean slash-separated path
// relative to the skills directory: under Root, or under the directory
// of its skill among Parts.
func (o Options) diskPath(rel string) string {
	top, rest, _ := strings.Cut(rel, "/")
	if dir, ok := o.Parts[top]; ok {
		return filepath.Join(dir, filepath.FromSlash(rest))
	}
	return filepath.Join(o.Root, filepath.FromSlash(rel))
}

func (v *validator) errorf(rel string, line int, code, format string, args ...any) {
	v.report.Errors = append(v.report.Errors, Diagnostic{
		File: v.path(rel), Line: line, Code: code, Message: fmt.Sprintf(format, args...), Skill: skillOf(rel),
	})
}

func (v *validator) warnf(rel string, line int, code, format string, args ...any) {
	v.report.Warnings = append(v.report.Warnings, Diagnostic{
		File: v.path(rel), Line: line, Code: code, Message: fmt.Sprintf(format, args...), Skill: skillOf(rel),
	})
}

// skillOf is the skill directory of rel, a path in the skills directory:
// its first element when it has more than one.
func skillOf(rel string) string {
	top, _, nested := strings.Cut(rel, "/")
	if !nested {
		return ""
	}
	return top
}

// finish makes the checks across skills, applies Strict and sorts, so that reports of the same tree are
// identical byte for byte.
func (v *validator) finish() {
	if v.skillDirs == 0 {
		v.warnf("", 0, CodeNoSkills,
			"no skills found; a skills directory holds one directory per skill, each with a %s", skill.FileName)
	}
	v.duplicateNames()
	r := v.report
	switch {
	case v.opts.Lenient && v.opts.Strict:
		r.Warnings = slices.DeleteFunc(r.Warnings, func(d Diagnostic) bool {
			if !Lint(d.Code) {
				r.Errors = append(r.Errors, d)
				return true
			}
			return false
		})
	case v.opts.Lenient:
		r.Errors = slices.DeleteFunc(r.Errors, func(d Diagnostic) bool {
			if ContentRule(d.Code) {
				r.Warnings = append(r.Warnings, d)
				return true
			}
			return false
		})
	case v.opts.Strict:
		r.Errors = append(r.Errors, r.Warnings...)
		r.Warnings = []Diagnostic{}
	}
	sortDiagnostics(r.Errors)
	sortDiagnostics(r.Warnings)
	r.Valid = len(r.Errors) == 0
}

func sortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column),
			cmp.Compare(a.Code, b.Code),
			cmp.Compare(a.Message, b.Message),
		)
	})
}
