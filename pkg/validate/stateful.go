package validate

import (
	"path"

	"github.com/stax-dev/stax/internal/bytesize"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

// problemCodes maps the problems of the sibling parsers to codes.
var problemCodes = map[stateful.ProblemKind]string{
	stateful.FrontmatterMissing:  CodeMemoryFrontmatterMissing,
	stateful.FrontmatterInvalid:  CodeMemoryFrontmatterInvalid,
	stateful.FieldMissing:        CodeMemoryFieldMissing,
	stateful.LastUpdatedInvalid:  CodeMemoryLastUpdated,
	stateful.ContributorsInvalid: CodeMemoryContributors,
	stateful.ExampleIncomplete:   CodeExampleIncomplete,
}

// stateful checks the sibling files at the top of a skill directory (never
// deeper: the Stateful Skills RFC names them there, docs/stateful-skills.md).
// doc is the parsed SKILL.md, nil when it could not be parsed; the siblings
// are still checked.
func (v *validator) stateful(d *skillDir, doc *skill.Document) {
	present := map[string]bool{}
	for _, e := range d.entries {
		if !e.Dir && path.Dir(e.Path) == d.name {
			present[path.Base(e.Path)] = true
		}
	}
	for _, e := range d.entries {
		if e.Dir || path.Dir(e.Path) != d.name {
			continue
		}
		base := path.Base(e.Path)
		if canonical, ok := stateful.CaseVariant(base); ok {
			fix := "rename it to " + canonical
			if present[canonical] {
				fix = "merge it into " + canonical + " and remove it"
			}
			v.warnf(e.Path, 0, CodeSiblingCase,
				"%s will be ignored: runtimes read %s only under that exact, case-sensitive name; %s", base, canonical, fix)
			continue
		}
		if stateful.IsSibling(base) && e.Size > stateful.MaxFileSize {
			v.errorf(e.Path, 0, CodeStatefulFileTooLarge,
				"%s is %s, over the limit of %s that render and the MCP server read of it; move older entries to a file under references/",
				base, bytesize.Format(e.Size), bytesize.Format(stateful.MaxFileSize))
			continue
		}
		switch base {
		case stateful.MemoryFile:
			if data := v.readSibling(e); data != nil {
				m := stateful.ParseMemory(data)
				v.siblingProblems(e.Path, m.Problems)
				v.memoryVersion(e.Path, m, doc)
			}
		case stateful.ExamplesFile:
			if data := v.readSibling(e); data != nil {
				v.siblingProblems(e.Path, stateful.ParseExamples(data).Problems)
			}
		}
		// CALIBRATION.md is free-form: nothing in it can be wrong.
	}
}

// readSibling reads a sibling file, reporting why when it cannot.
func (v *validator) readSibling(e layers.Entry) []byte {
	data, err := readFile(e.Source, e.Size, stateful.MaxFileSize)
	if err != nil {
		v.unreadable[e.Path] = true
		v.errorf(e.Path, 0, CodeReadError, "cannot read %s: %v", path.Base(e.Path), err)
		return nil
	}
	return data
}

func (v *validator) siblingProblems(rel string, ps []stateful.Problem) {
	for _, p := range ps {
		v.errorf(rel, p.Line, problemCodes[p.Kind], "%s", p.Message)
	}
}

// memoryVersion checks that MEMORY.md records the version of SKILL.md
// (the RFC's MEMORY.md rule: it must match at last write,
// docs/stateful-skills.md).
func (v *validator) memoryVersion(rel string, m *stateful.Memory, doc *skill.Document) {
	if m.Frontmatter == nil || m.Frontmatter.Version == "" || doc == nil {
		return // reported as a frontmatter problem, or SKILL.md is unreadable
	}
	mem, own := m.Frontmatter.Version, doc.Frontmatter.Version
	switch {
	case own == "":
		v.errorf(rel, m.Frontmatter.VersionLine, CodeMemoryVersionMismatch,
			"%s records version %s, but %s has no version; add version: %s to the %s frontmatter",
			stateful.MemoryFile, mem, skill.FileName, mem, skill.FileName)
	case own != mem:
		v.errorf(rel, m.Frontmatter.VersionLine, CodeMemoryVersionMismatch,
			"%s records version %s, but %s is at %s (%s); set it to version: %s, as stax bump does",
			stateful.MemoryFile, mem, skill.FileName, own, doc.Frontmatter.VersionField, own)
	}
}
