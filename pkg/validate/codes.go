package validate

// Diagnostic codes. They are stable identifiers: scripts match on them, so
// a code is never renamed or reused for another rule.
const (
	// Errors: the skills directory cannot be packaged as is.

	// CodeStrayFile: a regular file at the top level of the skills
	// directory, where only skill directories belong.
	CodeStrayFile = "stray-file"
	// CodeSkillDirEmpty: a top-level directory with nothing in it.
	CodeSkillDirEmpty = "skill-dir-empty"
	// CodeSkillMDMissing: a top-level directory without SKILL.md.
	CodeSkillMDMissing = "skill-md-missing"
	// CodeSkillMDTooLarge: a SKILL.md too large to be read.
	CodeSkillMDTooLarge = "skill-md-too-large"
	// CodeStatefulFileTooLarge: a MEMORY.md, EXAMPLES.md or CALIBRATION.md
	// over stateful.MaxFileSize, the most render, show and the MCP server
	// read of one: they would refuse the skill.
	CodeStatefulFileTooLarge = "stateful-file-too-large"
	// CodeReadError: a file listed by the scan could not be read.
	CodeReadError = "read-error"
	// CodeFrontmatterMissing: SKILL.md does not start with a "---" line.
	CodeFrontmatterMissing = "frontmatter-missing"
	// CodeFrontmatterUnterminated: the closing "---" line is missing.
	CodeFrontmatterUnterminated = "frontmatter-unterminated"
	// CodeFrontmatterSyntax: the frontmatter is not valid YAML.
	CodeFrontmatterSyntax = "frontmatter-syntax"
	// CodeFrontmatterNotMapping: the frontmatter is YAML, but not a
	// mapping of fields.
	CodeFrontmatterNotMapping = "frontmatter-not-mapping"
	// CodeFrontmatterTooLarge: the frontmatter is over skill's limits
	// (MaxFrontmatterSize bytes, MaxFrontmatterNodes YAML nodes), which
	// every command shares: no command would load the skill.
	CodeFrontmatterTooLarge = "frontmatter-too-large"
	// CodeFieldType: a frontmatter field has the wrong type.
	CodeFieldType = "field-type"
	// CodeFieldDuplicate: a frontmatter field is defined twice.
	CodeFieldDuplicate = "field-duplicate"
	// CodeNameMissing: name is missing or empty.
	CodeNameMissing = "name-missing"
	// CodeNameInvalid: name breaks the naming rule or is over 64 characters.
	CodeNameInvalid = "name-invalid"
	// CodeNameDuplicate: two skills declare the same name.
	CodeNameDuplicate = "name-duplicate"
	// CodeDescriptionMissing: description is missing or empty.
	CodeDescriptionMissing = "description-missing"
	// CodeDescriptionTooLong: description is over 1024 characters.
	CodeDescriptionTooLong = "description-too-long"
	// CodeCompatibilityTooLong: compatibility is over 500 characters.
	CodeCompatibilityTooLong = "compatibility-too-long"
	// CodeHiddenText: a text file of a skill holds characters reviewers
	// cannot see and agents read (see package hiddentext).
	CodeHiddenText = "hidden-text"

	// Errors of the stateful siblings (docs/stateful-skills.md).

	// CodeMemoryFrontmatterMissing: MEMORY.md does not start with a
	// frontmatter block.
	CodeMemoryFrontmatterMissing = "memory-frontmatter-missing"
	// CodeMemoryFrontmatterInvalid: the MEMORY.md frontmatter is
	// unterminated, not YAML, not a mapping, repeats a key, or holds a
	// version that is not a single value.
	CodeMemoryFrontmatterInvalid = "memory-frontmatter-invalid"
	// CodeMemoryFieldMissing: version, contributors or lastUpdated is
	// missing from the MEMORY.md frontmatter, or empty.
	CodeMemoryFieldMissing = "memory-field-missing"
	// CodeMemoryLastUpdated: lastUpdated is not an ISO-8601 date.
	CodeMemoryLastUpdated = "memory-last-updated"
	// CodeMemoryContributors: contributors is not a non-negative integer.
	CodeMemoryContributors = "memory-contributors"
	// CodeMemoryVersionMismatch: the MEMORY.md version differs from the
	// SKILL.md version.
	CodeMemoryVersionMismatch = "memory-version-mismatch"
	// CodeExampleIncomplete: an EXAMPLES.md block lacks ### Input or
	// ### Output.
	CodeExampleIncomplete = "example-incomplete"
	// CodeVersionNotBumped: compared with a published package (validate
	// --against, push), a skill's MEMORY.md, EXAMPLES.md or CALIBRATION.md
	// changed but its version is not greater.
	CodeVersionNotBumped = "version-not-bumped"

	// Errors for paths the scan cannot package use the layers.ProblemKind
	// as their code: symlink, hardlink, device, fifo, socket, irregular,
	// symlink-dangling, symlink-escape, symlink-cycle.

	// Warnings: packaged as is, but likely to surprise; errors under Strict.

	// CodeNoSkills: the skills directory holds no skill directory.
	CodeNoSkills = "no-skills"
	// CodeNameMismatch: name differs from the skill's directory name.
	CodeNameMismatch = "name-mismatch"
	// CodeAllowedToolsString: allowed-tools is a string, not a YAML list.
	CodeAllowedToolsString = "allowed-tools-string"
	// CodeArgumentHintList: argument-hint was written unquoted in brackets,
	// which YAML reads as a list.
	CodeArgumentHintList = "argument-hint-list"
	// CodeUnknownField: a frontmatter field no specification defines.
	CodeUnknownField = "unknown-field"
	// CodeBodyTooLong: the SKILL.md body is over 500 lines.
	CodeBodyTooLong = "body-too-long"
	// CodeLargeFile: a file over layers.LargeFileSize.
	CodeLargeFile = "large-file"
	// CodeNonUTF8: a Markdown or YAML file that is not valid UTF-8.
	CodeNonUTF8 = "non-utf8"
	// CodeSiblingCase: a file named like a stateful sibling in another
	// letter case (memory.md), which runtimes ignore.
	CodeSiblingCase = "sibling-case"
	// CodePlaceholder: a line stax new skill left for the author to fill
	// in, still as it was scaffolded (see isPlaceholder); push refuses it
	// unless --allow-placeholders.
	CodePlaceholder = "placeholder"

	// Skill-writing lints (Agent Skills progressive disclosure), warnings too.

	// CodeFileNotCited: a file under scripts/, references/ or assets/ that
	// SKILL.md never cites by its relative path.
	CodeFileNotCited = "file-not-cited"
	// CodeDescriptionNoTrigger: the description does not say when to use
	// the skill.
	CodeDescriptionNoTrigger = "description-no-trigger"
	// CodeBodyTooManyTokens: the SKILL.md body is estimated over
	// MaxBodyTokens.
	CodeBodyTooManyTokens = "body-too-many-tokens"
	// CodeReferenceChain: a file SKILL.md cites cites another file of the
	// skill that SKILL.md does not: a chain deeper than one level.
	CodeReferenceChain = "reference-chain"
)

// MaxBodyLines is the length past which a SKILL.md body draws a warning:
// the body is loaded whole when the skill activates, and the Agent Skills
// guidance is to keep it under 500 lines and move details to references.
const MaxBodyLines = 500

// MaxBodyTokens is the estimated size (tokens.Estimate: bytes/4, rounded
// up) past which a SKILL.md body draws a warning: the Agent Skills
// progressive-disclosure budget for a body is under 5,000 tokens.
const MaxBodyTokens = 5000

// contentRules are the rules of what a skill says, as opposed to the
// safety rules (paths, links, sizes, counts, hidden text, a SKILL.md that
// cannot be read or names no skill), which keep every skill loadable and
// every file where it belongs. Someone else's skill that breaks a content
// rule is still usable: a lenient build (Options.Lenient) warns of it, and
// the author's own build (stax pack, push) refuses it as an error or
// keeps it a warning, as the code says above. Every warning code is a
// content rule too.
var contentRules = map[string]bool{
	CodeDescriptionTooLong:    true,
	CodeCompatibilityTooLong:  true,
	CodeNameMismatch:          true,
	CodeUnknownField:          true,
	CodeMemoryVersionMismatch: true,
	CodeExampleIncomplete:     true,
	CodeVersionNotBumped:      true,
	// The warnings without a summary of their own (the others are the
	// keys of summaries).
	CodeCaseCollision: true,
	CodeNoSkills:      true,
}

// ContentRule reports whether code is a content rule, which a lenient
// build warns of rather than refuses; every other error code is a safety
// rule, an error everywhere.
func ContentRule(code string) bool {
	_, warns := summaries[code]
	return contentRules[code] || warns
}

// lints are advice to a skill's author on how a skill discloses what it
// holds, not rules of what it may be: a build of someone else's skills,
// whose user cannot act on them, leaves them out.
var lints = map[string]bool{
	CodeFileNotCited:         true,
	CodeDescriptionNoTrigger: true,
	CodeBodyTooManyTokens:    true,
	CodeReferenceChain:       true,
}

// Lint reports whether code is advice to a skill's author (see lints).
func Lint(code string) bool { return lints[code] }
