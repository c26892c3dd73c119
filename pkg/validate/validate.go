// Package validate checks a skills directory against the rules of the stax
// skills layer and the Agent Skills specification, and reports every
// problem at once, each with the file (and line) to fix.
//
// Validation scans the tree once, with layers.Scan, and hands the scan to
// its caller in the Report so that the packer writes exactly the tree that
// was validated.
package validate

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/stax-dev/stax/layers"
)

// Diagnostic is one problem found in the skills directory.
type Diagnostic struct {
	// File is the path as the user would open it: filepath.Join(opts.Root, rel).
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// Code is a stable kebab-case identifier; see the Code constants.
	Code string `json:"code"`
	// Message says what is wrong and how to fix it.
	Message string `json:"message"`
}

func (d Diagnostic) String() string { return d.Format("") }

// Format renders d in the file:line: form editors link to, with severity
// ("error", "warning") when given.
func (d Diagnostic) Format(severity string) string {
	where := d.File
	if d.Line > 0 {
		where = fmt.Sprintf("%s:%d", d.File, d.Line)
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

	// Tree is the scan, for the packer to write without walking again.
	Tree *layers.Tree `json:"-"`
	// lines[i] are the lines of Skills[i]'s SKILL.md that later checks
	// point at: a parsed SKILL.md is dropped once checked, so that a
	// report costs little per skill.
	lines []fieldLines

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
	// Strict turns warnings into errors.
	Strict bool
	// Symlinks is passed to layers.Scan.
	Symlinks layers.SymlinkMode
}

// Dir validates the skills directory opts.Root. The error is for a
// directory that cannot be read at all; everything else is a Diagnostic.
func Dir(opts Options) (*Report, error) {
	tree, err := layers.Scan(layers.ScanOptions{
		Root:        opts.Root,
		PackageRoot: opts.PackageRoot,
		Symlinks:    opts.Symlinks,
	})
	if err != nil {
		return nil, fmt.Errorf("validating skills: %w", err)
	}
	return check(opts, tree), nil
}

// check validates a scanned tree.
func check(opts Options, tree *layers.Tree) *Report {
	v := &validator{
		opts:       opts,
		unreadable: map[string]bool{},
		buf:        make([]byte, 32<<10),
		report: &Report{
			Skills:   []Skill{},
			Errors:   []Diagnostic{},
			Warnings: []Diagnostic{},
			Tree:     tree,
			opts:     opts,
		},
	}
	v.problems(tree.Problems)
	for _, d := range v.layout(tree) {
		v.skillDir(d)
	}
	v.duplicateNames()
	v.caseCollisions(tree.Entries)
	v.files(tree.Entries)
	v.finish()
	return v.report
}

type validator struct {
	opts   Options
	report *Report
	// unreadable holds the paths already reported as unreadable, so that
	// a second read of the same file does not report it twice.
	unreadable map[string]bool
	// buf is the one buffer files are read through.
	buf []byte
}

// fieldLines are where, in a SKILL.md, its name and version are; 0 when
// it could not be parsed.
type fieldLines struct {
	name, version int
}

// path turns a slash-separated path relative to the root into the path
// the user would open.
func (v *validator) path(rel string) string {
	return filepath.Join(v.opts.Root, filepath.FromSlash(rel))
}

func (v *validator) errorf(rel string, line int, code, format string, args ...any) {
	v.report.Errors = append(v.report.Errors, Diagnostic{
		File: v.path(rel), Line: line, Code: code, Message: fmt.Sprintf(format, args...),
	})
}

func (v *validator) warnf(rel string, line int, code, format string, args ...any) {
	v.report.Warnings = append(v.report.Warnings, Diagnostic{
		File: v.path(rel), Line: line, Code: code, Message: fmt.Sprintf(format, args...),
	})
}

// finish applies Strict and sorts, so that reports of the same tree are
// identical byte for byte.
func (v *validator) finish() {
	r := v.report
	if v.opts.Strict {
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
			cmp.Compare(a.Code, b.Code),
			cmp.Compare(a.Message, b.Message),
		)
	})
}
