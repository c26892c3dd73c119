package validate

import "github.com/stax-dev/stax/pkg/warning"

// summaries say each kind of warning without naming a skill, for the one
// line that groups the skills drawing it.
var summaries = map[string]string{
	CodeNameMismatch:         "the name differs from the skill's directory",
	CodeAllowedToolsString:   "allowed-tools is a string, not a list",
	CodeArgumentHintList:     "argument-hint is read as a list: quote it",
	CodeUnknownField:         "frontmatter fields no specification defines",
	CodeBodyTooLong:          "the SKILL.md body is over 500 lines",
	CodeLargeFile:            "large files",
	CodeNonUTF8:              "files that are not valid UTF-8",
	CodeSiblingCase:          "files named like a stateful file in another letter case",
	CodePlaceholder:          "lines stax new skill wrote, still as scaffolded",
	CodeFileNotCited:         "files under scripts/, references/ or assets/ that SKILL.md never cites",
	CodeDescriptionNoTrigger: "the description does not say when to use the skill",
	CodeBodyTooManyTokens:    "the SKILL.md body is over 5,000 tokens",
	CodeReferenceChain:       "files cited only by other cited files, more than one level deep",
}

// Warning is d as a warning of a command: its kind is its code, and the
// skills with the same code are one line.
func (d Diagnostic) Warning() warning.Warning {
	summary := summaries[d.Code]
	if summary == "" {
		summary = d.Code
	}
	return warning.Warning{Kind: d.Code, Skill: d.Skill, Summary: summary + " [" + d.Code + "]", Message: d.Format("")}
}

// Warnings are ds as warnings of a command.
func Warnings(ds []Diagnostic) []warning.Warning {
	out := make([]warning.Warning, len(ds))
	for i, d := range ds {
		out[i] = d.Warning()
	}
	return out
}
