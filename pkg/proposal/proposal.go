// Package proposal checks and applies skill-update proposals: the JSON an
// agent writes to revise, narrow, replace or create a skill from what a run
// taught it.
//
//	{"summary": "…", "operation_type": "revise",
//	 "upsert_files": {"<slug>/SKILL.md": "…", "<slug>/references/x.md": "…"}}
//
// The legacy single-key form carries only the SKILL.md text, as
// {"summary", "operation_type", "skill_md": "…"} or with upsert_files
// holding the one key "SKILL.md"; its skill is the one its name names.
//
// A proposal is checked against named rules (Rule*) and stax validation
// before anything is written; then every file is written or none is, inside
// the skill's own folder, and the skill's version is bumped.
package proposal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/stax-dev/stax/pkg/skill"
)

// Operation is what a proposal does to its skill.
type Operation string

const (
	// Revise is a normal edit: same name, same intent.
	Revise Operation = "revise"
	// Narrow tightens when the skill triggers.
	Narrow Operation = "narrow"
	// Replace rewrites the skill; only it may change the name.
	Replace Operation = "replace"
	// Create introduces a new skill.
	Create Operation = "create"
)

var operations = []Operation{Revise, Narrow, Replace, Create}

// Names of the rules a proposal is checked against, as results and
// messages name them.
const (
	// RuleFormat: the JSON, in UTF-8, has a summary, a known
	// operation_type, and files in upsert_files (or the legacy skill_md),
	// each named once and of at most MaxLines lines, and nothing else.
	RuleFormat = "format"
	// RuleSafePaths: every file is <slug>/<path>, the slug a valid skill
	// name and the path a clean relative one, nothing a symlink.
	RuleSafePaths = "safe-paths"
	// RuleOperation: create makes a skill that does not exist; the others
	// change one that does.
	RuleOperation = "operation"
	// RuleNameIsSlug: the name in SKILL.md equals the skill's folder.
	RuleNameIsSlug = "name-is-slug"
	// RuleNameUnchanged: only replace may change a skill's name.
	RuleNameUnchanged = "name-unchanged"
	// RuleDescriptionLength: the description is at most 1024 characters.
	RuleDescriptionLength = "description-length"
	// RuleTier3Cited: every file proposed under scripts/, references/ or
	// assets/ is cited from SKILL.md by its path.
	RuleTier3Cited = "tier3-cited"
	// RuleValidation: the skill as it would be written passes stax
	// validation.
	RuleValidation = "validation"
)

// MaxDescription is the longest description a proposal may carry, in
// characters.
const MaxDescription = 1024

// MaxLines is the most lines a proposed file may have. A skill's files are
// text for an agent to read and a person to review; the line diff that
// reports a change also slows with the lines on both sides.
const MaxLines = 100_000

// tier3Dirs hold a skill's resources loaded on demand.
var tier3Dirs = []string{"scripts", "references", "assets"}

// Proposal is a parsed skill-update proposal.
type Proposal struct {
	Summary   string    `json:"summary"`
	Operation Operation `json:"operation_type"`
	// Files are the files to write, by path from the skills directory
	// (<slug>/<path>).
	Files map[string]string `json:"upsert_files,omitempty"`
	// SkillMD is the legacy single-key form.
	SkillMD *string `json:"skill_md,omitempty"`
}

// Parse reads a proposal of at most limit bytes. The error of a proposal
// that breaks RuleFormat is a *RejectedError.
func Parse(r io.Reader, limit int64) (*Proposal, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, reject(RuleFormat, fmt.Sprintf("the proposal is larger than %d bytes", limit))
	}
	// encoding/json/v2's decoder refuses what encoding/json would quietly
	// rewrite: text that is not UTF-8 (replaced with U+FFFD) and a member
	// given twice (the last one wins, where a reader sees the first).
	var p Proposal
	if err := json.Unmarshal(data, &p, json.RejectUnknownMembers(true)); err != nil {
		return nil, reject(RuleFormat, "not a proposal: "+decodeProblem(data, err)+
			" (a proposal is one JSON object in UTF-8; see stax apply --help)")
	}
	if err := p.normalize(); err != nil {
		return nil, err
	}
	return &p, nil
}

// normalize checks the format and turns the legacy form into files.
func (p *Proposal) normalize() error {
	var problems []string
	if strings.TrimSpace(p.Summary) == "" {
		problems = append(problems, "summary is missing or empty")
	}
	if !slices.Contains(operations, p.Operation) {
		problems = append(problems, fmt.Sprintf("operation_type %q: use revise, narrow, replace or create", p.Operation))
	}
	switch {
	case p.SkillMD != nil && p.Files != nil:
		problems = append(problems, "both upsert_files and the legacy skill_md: give one")
	case p.SkillMD != nil:
		if err := p.legacy("skill_md", *p.SkillMD); err != "" {
			problems = append(problems, err)
		}
	case len(p.Files) == 1 && p.Files[skill.FileName] != "":
		if err := p.legacy("upsert_files: "+skill.FileName, p.Files[skill.FileName]); err != "" {
			problems = append(problems, err)
		}
	case len(p.Files) == 0:
		problems = append(problems, "upsert_files is missing or empty")
	}
	// Counting a file's changed lines maps each distinct line to a rune;
	// the limit keeps both sides of that diff well inside Unicode.
	for _, key := range slices.Sorted(maps.Keys(p.Files)) {
		if n := lineCount(p.Files[key]); n > MaxLines {
			problems = append(problems, fmt.Sprintf("upsert_files %q has %d lines; a proposed file has at most %d: split it", key, n, MaxLines))
		}
	}
	if len(problems) > 0 {
		return &RejectedError{Rules: []RuleResult{{Rule: RuleFormat, Problems: problems}}}
	}
	return nil
}

// decodeProblem says what is wrong in the proposal's JSON, and where: the
// line and column (in bytes), and the member the decoder was in.
func decodeProblem(data []byte, err error) string {
	offset, where, cause := int64(-1), jsontext.Pointer(""), err
	var syntax *jsontext.SyntacticError
	var semantic *json.SemanticError
	switch {
	case errors.As(err, &syntax):
		offset, where, cause = syntax.ByteOffset, syntax.JSONPointer, syntax.Err
		if errors.Is(cause, jsontext.ErrDuplicateName) {
			cause = errors.New("given twice: keep one")
		}
	case errors.As(err, &semantic) && semantic.Err == json.ErrUnknownName:
		offset, where = semantic.ByteOffset, semantic.JSONPointer.Parent()
		cause = fmt.Errorf("unknown field %q", semantic.JSONPointer.LastToken())
	case errors.As(err, &semantic):
		offset = semantic.ByteOffset
	}
	var b strings.Builder
	if offset >= 0 {
		before := data[:min(offset, int64(len(data)))]
		line, column := 1+bytes.Count(before, []byte("\n")), len(before)-bytes.LastIndexByte(before, '\n')
		fmt.Fprintf(&b, "line %d, column %d", line, column)
	}
	for i, token := range slices.Collect(where.Tokens()) {
		switch {
		case i == 0 && b.Len() > 0:
			b.WriteString(", in " + token)
		case i == 0:
			b.WriteString("in " + token)
		default:
			fmt.Fprintf(&b, " %q", token)
		}
	}
	if b.Len() == 0 {
		return cause.Error()
	}
	return b.String() + ": " + cause.Error()
}

// lineCount is the number of lines of text, the last one with or without
// its newline.
func lineCount(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// legacy turns the single-key form into files: the SKILL.md text alone,
// for the skill its name names. It returns the problem, if any.
func (p *Proposal) legacy(field, text string) string {
	doc, err := skill.Parse([]byte(text))
	if err != nil || doc.Frontmatter.Name == "" {
		return field + ": the single-key form names its skill by the name in its frontmatter, and it has none"
	}
	p.Files = map[string]string{doc.Frontmatter.Name + "/" + skill.FileName: text}
	p.SkillMD = nil
	return ""
}

// RuleResult is the outcome of one rule.
type RuleResult struct {
	Rule   string `json:"rule"`
	Passed bool   `json:"passed"`
	// Problems say what broke the rule, and where.
	Problems []string `json:"problems,omitempty"`
}

// RejectedError is a proposal that breaks rules; Rules are those it broke.
type RejectedError struct {
	Rules []RuleResult
}

func reject(rule, problem string) *RejectedError {
	return &RejectedError{Rules: []RuleResult{{Rule: rule, Problems: []string{problem}}}}
}

func (e *RejectedError) Error() string {
	var b strings.Builder
	b.WriteString("proposal rejected")
	for _, r := range e.Rules {
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "\n  rule %s: %s", r.Rule, p)
		}
	}
	return b.String()
}

// ErrRejected matches every *RejectedError.
var ErrRejected = errors.New("proposal rejected")

func (e *RejectedError) Is(target error) bool { return target == ErrRejected }
