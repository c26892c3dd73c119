// Package stateful reads the three optional sibling files of a stateful
// skill (the Stateful Skills RFC, docs/stateful-skills.md): MEMORY.md,
// what was learned from real runs; EXAMPLES.md, curated input/output pairs;
// and CALIBRATION.md, domain-specific adjustments.
//
// The siblings live at the top of a skill directory, next to SKILL.md,
// and their names are case-sensitive: a runtime never looks for them in
// subdirectories, and never reads "memory.md". This package parses the
// bytes it is given; finding the files is the caller's job, so that the
// same parser serves a directory on disk and a skills layer read from a
// package.
//
// Parsing never fails: what does not follow the RFC is a Problem, with the
// line it is on, and everything that can still be read is kept.
package stateful

import "strings"

// The sibling files.
const (
	MemoryFile      = "MEMORY.md"
	ExamplesFile    = "EXAMPLES.md"
	CalibrationFile = "CALIBRATION.md"
)

// Files are the siblings in the RFC's load order (docs/stateful-skills.md),
// which puts them after the SKILL.md body: calibration overlays the
// instructions, examples disambiguate intent, memory adds what past runs
// taught.
var Files = []string{CalibrationFile, ExamplesFile, MemoryFile}

// IsSibling reports whether name is exactly one of the sibling file names.
func IsSibling(name string) bool {
	for _, f := range Files {
		if name == f {
			return true
		}
	}
	return false
}

// CaseVariant returns the sibling name that name spells with different
// letter case ("memory.md" → "MEMORY.md"), or false when name is not such
// a near miss. Runtimes ignore these files, which is worth telling the
// author.
func CaseVariant(name string) (string, bool) {
	for _, f := range Files {
		if name != f && strings.EqualFold(name, f) {
			return f, true
		}
	}
	return "", false
}

// ProblemKind classifies a Problem.
type ProblemKind string

const (
	// FrontmatterMissing: MEMORY.md does not start with a --- block.
	FrontmatterMissing ProblemKind = "frontmatter-missing"
	// FrontmatterInvalid: the block is unterminated, not YAML, not a
	// mapping, holds a key twice, or a version that is not a single value.
	FrontmatterInvalid ProblemKind = "frontmatter-invalid"
	// FieldMissing: version, contributors or lastUpdated is absent or empty.
	FieldMissing ProblemKind = "field-missing"
	// LastUpdatedInvalid: lastUpdated is not an ISO-8601 date.
	LastUpdatedInvalid ProblemKind = "last-updated"
	// ContributorsInvalid: contributors is not a non-negative integer.
	ContributorsInvalid ProblemKind = "contributors"
	// ExampleIncomplete: an EXAMPLES.md block lacks ### Input or ### Output.
	ExampleIncomplete ProblemKind = "example-incomplete"
)

// Problem is a departure from the RFC in one sibling file.
type Problem struct {
	Kind ProblemKind
	// Line is the 1-based line of the file.
	Line int
	// Message says what is wrong and how to fix it.
	Message string
}

// Section is an H2 section of a sibling file.
type Section struct {
	Title string `json:"title"`
	Line  int    `json:"line"`
	// Canonical: one of the sections the RFC names for this file.
	Canonical bool `json:"canonical"`
}

// Set is the parsed siblings of one skill; a nil field is an absent file.
type Set struct {
	Calibration *Calibration
	Examples    *Examples
	Memory      *Memory
}

// ParseSet parses the siblings in files, keyed by exact file name; other
// keys are ignored.
func ParseSet(files map[string][]byte) Set {
	var s Set
	if data, ok := files[CalibrationFile]; ok {
		s.Calibration = ParseCalibration(data)
	}
	if data, ok := files[ExamplesFile]; ok {
		s.Examples = ParseExamples(data)
	}
	if data, ok := files[MemoryFile]; ok {
		s.Memory = ParseMemory(data)
	}
	return s
}

// Names lists the siblings present, in load order.
func (s Set) Names() []string {
	names := []string{}
	if s.Calibration != nil {
		names = append(names, CalibrationFile)
	}
	if s.Examples != nil {
		names = append(names, ExamplesFile)
	}
	if s.Memory != nil {
		names = append(names, MemoryFile)
	}
	return names
}

// Summary is what a listing shows of a skill's siblings. The RFC (§4)
// suggests the example count as a quality signal.
type Summary struct {
	Siblings      []string `json:"siblings"`
	MemoryEntries int      `json:"memoryEntries"`
	Examples      int      `json:"examples"`
}

// Summary counts the memory entries and examples of s.
func (s Set) Summary() Summary {
	sum := Summary{Siblings: s.Names()}
	if s.Memory != nil {
		sum.MemoryEntries = len(s.Memory.Entries())
	}
	if s.Examples != nil {
		sum.Examples = len(s.Examples.Blocks)
	}
	return sum
}
