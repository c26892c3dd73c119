package validate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/skill"
)

// The fixtures of the stateful siblings and of the skill-writing lints,
// relative to testdata/skills like the other cases.
const (
	statefulFixtures = "../stateful/"
	lintFixtures     = "../lints/"
)

func statefulCases() []validateCase {
	return []validateCase{
		{name: "stateful valid", fixture: statefulFixtures + "valid"},
		{name: "stateful valid under strict", fixture: statefulFixtures + "valid", opts: Options{Strict: true}},
		{name: "memory frontmatter missing", fixture: statefulFixtures + "memory-frontmatter-missing",
			want:     []finding{e(CodeMemoryFrontmatterMissing, "tool/MEMORY.md", 1)},
			messages: map[string]string{CodeMemoryFrontmatterMissing: "lastUpdated: YYYY-MM-DD"}},
		{name: "memory frontmatter invalid", fixture: statefulFixtures + "memory-frontmatter-invalid",
			want: []finding{e(CodeMemoryFrontmatterInvalid, "tool/MEMORY.md", 3)}},
		{name: "memory field missing", fixture: statefulFixtures + "memory-field-missing",
			want: []finding{
				e(CodeMemoryFieldMissing, "tool/MEMORY.md", 1), // contributors: absent
				e(CodeMemoryFieldMissing, "tool/MEMORY.md", 3), // lastUpdated: empty
			}},
		{name: "memory lastUpdated", fixture: statefulFixtures + "memory-last-updated",
			want:     []finding{e(CodeMemoryLastUpdated, "tool/MEMORY.md", 4)},
			messages: map[string]string{CodeMemoryLastUpdated: `"19/05/2026" is not an ISO-8601 date`}},
		{name: "memory contributors", fixture: statefulFixtures + "memory-contributors",
			want:     []finding{e(CodeMemoryContributors, "tool/MEMORY.md", 3)},
			messages: map[string]string{CodeMemoryContributors: "non-negative integer"}},
		{name: "memory version mismatch", fixture: statefulFixtures + "memory-version-mismatch",
			want:     []finding{e(CodeMemoryVersionMismatch, "tool/MEMORY.md", 4)},
			messages: map[string]string{CodeMemoryVersionMismatch: "records version 1.1.9, but SKILL.md is at 1.2.0 (version); set it to version: 1.2.0"}},
		{name: "memory version without a SKILL.md version", build: buildMemoryWithoutSkillVersion,
			want:     []finding{e(CodeMemoryVersionMismatch, "tool/MEMORY.md", 2)},
			messages: map[string]string{CodeMemoryVersionMismatch: "SKILL.md has no version"}},
		{name: "example incomplete", fixture: statefulFixtures + "example-incomplete",
			want: []finding{
				e(CodeExampleIncomplete, "tool/EXAMPLES.md", 11),
				e(CodeExampleIncomplete, "tool/EXAMPLES.md", 19),
			},
			messages: map[string]string{CodeExampleIncomplete: `example "Example: `}},
		{name: "sibling case", fixture: statefulFixtures + "sibling-case",
			want: []finding{
				w(CodeSiblingCase, "tool/Examples.md", 0),
				w(CodeSiblingCase, "tool/memory.md", 0),
			},
			messages: map[string]string{CodeSiblingCase: "rename it to "}},
		{name: "sibling case beside the real file", build: buildSiblingCaseBeside,
			want:     []finding{w(CodeSiblingCase, "tool/memory.md", 0)},
			messages: map[string]string{CodeSiblingCase: "merge it into MEMORY.md"}},
		{name: "siblings below the top are not read", fixture: statefulFixtures + "nested-siblings"},
		{name: "siblings checked when SKILL.md is unreadable", build: buildUnparseableSkillWithMemory,
			want: []finding{
				e(CodeFrontmatterSyntax, "tool/SKILL.md", 3),
				e(CodeMemoryContributors, "tool/MEMORY.md", 3),
			}},

		// Skill-writing lints.
		{name: "every citation form", fixture: lintFixtures + "cited"},
		{name: "file not cited", fixture: lintFixtures + "not-cited",
			want: []finding{
				w(CodeFileNotCited, "tool/assets/logo.txt", 0),
				w(CodeFileNotCited, "tool/references/notes.md", 0),
				w(CodeFileNotCited, "tool/scripts/unused.sh", 0),
			},
			messages: map[string]string{CodeFileNotCited: "SKILL.md never cites "}},
		{name: "description without trigger", fixture: lintFixtures + "no-trigger",
			want:     []finding{w(CodeDescriptionNoTrigger, "tool/SKILL.md", 3)},
			messages: map[string]string{CodeDescriptionNoTrigger: "Use when"}},
		{name: "trigger forms", fixture: lintFixtures + "triggers"},
		{name: "reference chain", fixture: lintFixtures + "reference-chain",
			want: []finding{
				w(CodeReferenceChain, "tool/references/overview.md", 3),
				w(CodeReferenceChain, "tool/references/overview.md", 5),
			},
			messages: map[string]string{CodeReferenceChain: "references/overview.md cites references/"}},
		{name: "body over the token budget", build: buildBodyTokens(MaxBodyTokens*4 + 1),
			want:     []finding{w(CodeBodyTooManyTokens, "tool/SKILL.md", 5)},
			messages: map[string]string{CodeBodyTooManyTokens: "about 5001 tokens"}},
		{name: "body at the token budget", build: buildBodyTokens(MaxBodyTokens * 4)},
		{name: "lints under strict", fixture: lintFixtures + "no-trigger", opts: Options{Strict: true},
			want: []finding{e(CodeDescriptionNoTrigger, "tool/SKILL.md", 3)}},
	}
}

func TestStatefulAndLints(t *testing.T) {
	runCases(t, statefulCases())
}

// TestEveryNewCodeIsTested keeps the new tables honest, as
// TestEveryCodeIsTested does for the others.
func TestEveryNewCodeIsTested(t *testing.T) {
	tested := map[string]bool{}
	for _, tc := range statefulCases() {
		for _, f := range tc.want {
			tested[f.Code] = true
		}
	}
	tested[CodeVersionNotBumped] = true // TestCheckAgainst
	for _, c := range []string{
		CodeMemoryFrontmatterMissing, CodeMemoryFrontmatterInvalid, CodeMemoryFieldMissing,
		CodeMemoryLastUpdated, CodeMemoryContributors, CodeMemoryVersionMismatch, CodeExampleIncomplete,
		CodeVersionNotBumped, CodeSiblingCase,
		CodeFileNotCited, CodeDescriptionNoTrigger, CodeBodyTooManyTokens, CodeReferenceChain,
	} {
		if !tested[c] {
			t.Errorf("code %s has no test case", c)
		}
	}
}

// TestExistingFixturesHaveNoLintFindings pins that the fixtures of the
// other rules stay single-purpose: none of them draws a stateful or lint
// diagnostic, apart from the real-world Claude Code shapes.
func TestExistingFixturesHaveNoLintFindings(t *testing.T) {
	newCodes := map[string]bool{
		CodeFileNotCited: true, CodeDescriptionNoTrigger: true, CodeBodyTooManyTokens: true, CodeReferenceChain: true,
		CodeSiblingCase: true, CodeMemoryFrontmatterMissing: true, CodeExampleIncomplete: true,
	}
	for _, tc := range validateCases() {
		if tc.build != nil || tc.fixture == "shapes/claude-code" {
			continue
		}
		r, err := Dir(Options{Root: filepath.Join(fixtures, tc.fixture)})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range append(r.Errors, r.Warnings...) {
			if newCodes[d.Code] {
				t.Errorf("%s: %v", tc.fixture, d)
			}
		}
	}
}

func buildMemoryWithoutSkillVersion(t *testing.T) (string, string) {
	root := t.TempDir()
	goodSkill(t, root, "tool")
	filetest.WriteFile(t, filepath.Join(root, "tool", "MEMORY.md"), "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: 2026-01-01\n---\n")
	return root, ""
}

func buildSiblingCaseBeside(t *testing.T) (string, string) {
	root := t.TempDir()
	goodSkill(t, root, "tool")
	filetest.WriteFile(t, filepath.Join(root, "tool", "memory.md"), "notes\n")
	if _, err := os.Stat(filepath.Join(root, "tool", "MEMORY.md")); err == nil {
		t.Skip("case-insensitive file system: memory.md and MEMORY.md are one file")
	}
	filetest.WriteFile(t, filepath.Join(root, "tool", "MEMORY.md"), "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: 2026-01-01\n---\n")
	filetest.WriteFile(t, filepath.Join(root, "tool", skill.FileName),
		"---\nname: tool\ndescription: A skill that works. Use when testing stax.\nversion: 1.0.0\n---\nBody\n")
	return root, ""
}

func buildUnparseableSkillWithMemory(t *testing.T) (string, string) {
	root := t.TempDir()
	filetest.WriteFile(t, filepath.Join(root, "tool", skill.FileName), "---\nname: tool\ndescription: a: b\n---\n")
	filetest.WriteFile(t, filepath.Join(root, "tool", "MEMORY.md"), "---\nversion: 1.0.0\ncontributors: many\nlastUpdated: 2026-01-01\n---\n")
	return root, ""
}

// buildBodyTokens writes a skill whose body is n bytes over fewer than
// MaxBodyLines lines, so that only the token lint can fire.
func buildBodyTokens(n int) func(t *testing.T) (string, string) {
	return func(t *testing.T) (string, string) {
		root := t.TempDir()
		line := strings.Repeat("x", 99) + "\n"
		body := strings.Repeat(line, n/len(line))
		body += strings.Repeat("y", n-len(body))
		filetest.WriteFile(t, filepath.Join(root, "tool", skill.FileName),
			"---\nname: tool\ndescription: Long. Use when testing stax.\n---\n"+body)
		return root, ""
	}
}
