package validate

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/skill"
)

const fixtures = "../../testdata/skills"

// finding is a Diagnostic reduced to what a test pins: severity, code,
// file relative to the root (slash-separated) and line.
type finding struct {
	Severity string // "error" or "warning"
	Code     string
	File     string
	Line     int
}

func (f finding) String() string {
	return fmt.Sprintf("%s %s %s:%d", f.Severity, f.Code, f.File, f.Line)
}

func e(code, file string, line int) finding { return finding{"error", code, file, line} }
func w(code, file string, line int) finding { return finding{"warning", code, file, line} }

type validateCase struct {
	name string
	// fixture is a directory under testdata/skills; build, when set,
	// creates the tree in a temporary directory instead and returns the
	// skills root and the package root.
	fixture string
	build   func(t *testing.T) (root, pkgRoot string)
	opts    Options
	want    []finding
	// messages maps a code to a substring its message must contain.
	messages map[string]string
}

func validateCases() []validateCase {
	long := strings.Repeat("a", 65)
	return []validateCase{
		// Shapes that must pass.
		{name: "valid", fixture: "valid"},
		{name: "agentskills minimal", fixture: "shapes/agentskills-minimal"},
		{name: "metadata version", fixture: "shapes/metadata-version"},
		{name: "claude code", fixture: "shapes/claude-code", want: []finding{
			w(CodeAllowedToolsString, "commit/SKILL.md", 6),
			w(CodeAllowedToolsString, "explain-code/SKILL.md", 5),
			w(CodeAllowedToolsString, "fix-bug/SKILL.md", 5),
			w(CodeArgumentHintList, "fix-bug/SKILL.md", 4),
			// Real Claude Code descriptions often leave out when to use
			// them; explain-code says it in when_to_use.
			w(CodeDescriptionNoTrigger, "commit/SKILL.md", 3),
			w(CodeDescriptionNoTrigger, "fix-bug/SKILL.md", 3),
		}, messages: map[string]string{
			// Comma-separated Claude Code tools are split outside parentheses.
			CodeAllowedToolsString: "allowed-tools: [",
		}},

		// Layout.
		{name: "missing SKILL.md", fixture: "invalid/missing-skill-md",
			want:     []finding{e(CodeSkillMDMissing, "notes", 0)},
			messages: map[string]string{CodeSkillMDMissing: "add a SKILL.md"}},
		{name: "lowercase skill.md", fixture: "invalid/skill-md-lowercase",
			want:     []finding{e(CodeSkillMDMissing, "tool", 0)},
			messages: map[string]string{CodeSkillMDMissing: "rename it to SKILL.md"}},
		{name: "SKILL.md is a directory", fixture: "invalid/skill-md-directory",
			want:     []finding{e(CodeSkillMDMissing, "tool", 0)},
			messages: map[string]string{CodeSkillMDMissing: "SKILL.md is a directory"}},
		{name: "stray file", fixture: "invalid/stray-file",
			want:     []finding{e(CodeStrayFile, "README.md", 0)},
			messages: map[string]string{CodeStrayFile: `add "/README.md" to`}},
		{name: "empty directory", build: buildEmptyDir,
			want: []finding{e(CodeSkillDirEmpty, "empty", 0)}},
		{name: "no skills", build: func(t *testing.T) (string, string) { return t.TempDir(), "" },
			want: []finding{w(CodeNoSkills, "", 0)}},

		// Frontmatter structure.
		{name: "frontmatter missing", fixture: "invalid/frontmatter-missing",
			want: []finding{e(CodeFrontmatterMissing, "tool/SKILL.md", 1)}},
		{name: "frontmatter unterminated", fixture: "invalid/frontmatter-unterminated",
			want: []finding{e(CodeFrontmatterUnterminated, "tool/SKILL.md", 1)}},
		{name: "frontmatter syntax", fixture: "invalid/frontmatter-syntax",
			want:     []finding{e(CodeFrontmatterSyntax, "tool/SKILL.md", 3)},
			messages: map[string]string{CodeFrontmatterSyntax: "mapping values are not allowed"}},
		{name: "frontmatter not a mapping", fixture: "invalid/frontmatter-not-mapping",
			want: []finding{e(CodeFrontmatterNotMapping, "tool/SKILL.md", 2)}},
		{name: "frontmatter too large", build: buildLargeFrontmatter,
			want:     []finding{e(CodeFrontmatterTooLarge, "tool/SKILL.md", 4+skill.MaxFrontmatterSize/64)},
			messages: map[string]string{CodeFrontmatterTooLarge: "passes the limit of 64.0 KiB"}},
		{name: "frontmatter with too many nodes", build: buildManyNodes,
			want:     []finding{e(CodeFrontmatterTooLarge, "tool/SKILL.md", 4)},
			messages: map[string]string{CodeFrontmatterTooLarge: "more than 1024 YAML"}},

		// Required fields.
		{name: "name missing", fixture: "invalid/name-missing",
			want:     []finding{e(CodeNameMissing, "tool/SKILL.md", 1)},
			messages: map[string]string{CodeNameMissing: "add name: tool"}},
		{name: "name empty", fixture: "invalid/name-empty",
			want: []finding{e(CodeNameMissing, "tool/SKILL.md", 2)}},
		{name: "description missing", fixture: "invalid/description-missing",
			want: []finding{e(CodeDescriptionMissing, "tool/SKILL.md", 1)}},
		{name: "description empty", fixture: "invalid/description-empty",
			want: []finding{e(CodeDescriptionMissing, "tool/SKILL.md", 3)}},

		// Name and length rules.
		{name: "name invalid", fixture: "invalid/name-invalid",
			want:     []finding{e(CodeNameInvalid, "Bad_Name/SKILL.md", 2)},
			messages: map[string]string{CodeNameInvalid: "uppercase"}},
		{name: "name with double hyphen", fixture: "invalid/name-double-hyphen",
			want:     []finding{e(CodeNameInvalid, "pdf--proc/SKILL.md", 2)},
			messages: map[string]string{CodeNameInvalid: "consecutive hyphens"}},
		{name: "name too long", fixture: "invalid/name-too-long",
			want:     []finding{e(CodeNameInvalid, long+"/SKILL.md", 2)},
			messages: map[string]string{CodeNameInvalid: "65 characters long"}},
		{name: "description too long", fixture: "invalid/description-too-long",
			want:     []finding{e(CodeDescriptionTooLong, "tool/SKILL.md", 3)},
			messages: map[string]string{CodeDescriptionTooLong: "1025 characters long; the limit is 1024"}},
		{name: "description length in characters", build: buildRuneDescription},
		{name: "compatibility too long", fixture: "invalid/compatibility-too-long",
			want:     []finding{e(CodeCompatibilityTooLong, "tool/SKILL.md", 4)},
			messages: map[string]string{CodeCompatibilityTooLong: "501 characters long; the limit is 500"}},

		// Types.
		{name: "wrong types", fixture: "invalid/wrong-types", want: []finding{
			e(CodeFieldType, "tool/SKILL.md", 5),  // model: a list
			e(CodeFieldType, "tool/SKILL.md", 7),  // user-invocable: "yes"
			e(CodeFieldType, "tool/SKILL.md", 8),  // priority: high
			e(CodeFieldType, "tool/SKILL.md", 9),  // tags: a string
			e(CodeFieldType, "tool/SKILL.md", 11), // metadata.owners: a list
			e(CodeFieldType, "tool/SKILL.md", 12), // version: a mapping
		}},
		{name: "name not a string", fixture: "invalid/name-not-string",
			want:     []finding{e(CodeFieldType, "tool/SKILL.md", 2)},
			messages: map[string]string{CodeFieldType: `quote the value: name: "123"`}},
		{name: "duplicate field", fixture: "invalid/field-duplicate",
			want:     []finding{e(CodeFieldDuplicate, "tool/SKILL.md", 4)},
			messages: map[string]string{CodeFieldDuplicate: "already defined on line 3"}},

		// Uniqueness.
		{name: "duplicate names", fixture: "invalid/name-duplicate", want: []finding{
			e(CodeNameDuplicate, "alpha/SKILL.md", 2),
			e(CodeNameDuplicate, "beta/SKILL.md", 2),
			w(CodeNameMismatch, "alpha/SKILL.md", 2),
			w(CodeNameMismatch, "beta/SKILL.md", 2),
		}, messages: map[string]string{CodeNameDuplicate: `name "shared" is also declared by`}},

		// Warnings.
		{name: "name mismatch", fixture: "invalid/name-mismatch",
			want: []finding{w(CodeNameMismatch, "tool/SKILL.md", 2)}},
		{name: "allowed-tools string", fixture: "invalid/allowed-tools-string",
			want:     []finding{w(CodeAllowedToolsString, "tool/SKILL.md", 4)},
			messages: map[string]string{CodeAllowedToolsString: "allowed-tools: [Read, "}},
		{name: "argument-hint list", fixture: "invalid/argument-hint-list",
			want:     []finding{w(CodeArgumentHintList, "tool/SKILL.md", 4)},
			messages: map[string]string{CodeArgumentHintList: `argument-hint: "[file]"`}},
		{name: "unknown fields", fixture: "invalid/unknown-field", want: []finding{
			w(CodeUnknownField, "tool/SKILL.md", 4),
			w(CodeUnknownField, "tool/SKILL.md", 5),
		}},
		{name: "body too long", fixture: "invalid/body-too-long",
			want:     []finding{w(CodeBodyTooLong, "tool/SKILL.md", 505)},
			messages: map[string]string{CodeBodyTooLong: "501 lines long"}},
		{name: "non-UTF-8 markdown", fixture: "invalid/non-utf8",
			want: []finding{w(CodeNonUTF8, "tool/references/notes.md", 3)}},
		{name: "hidden text", fixture: "invalid/hidden-text", want: []finding{
			e(CodeHiddenText, "tool/SKILL.md", 7),
			e(CodeHiddenText, "tool/references/notes.md", 3),
		}, messages: map[string]string{CodeHiddenText: "U+"}},
		{name: "large file", build: buildLargeFile,
			want: []finding{w(CodeLargeFile, "tool/big.bin", 0)}},

		// Strict.
		{name: "strict promotes warnings", fixture: "shapes/claude-code", opts: Options{Strict: true}, want: []finding{
			e(CodeAllowedToolsString, "commit/SKILL.md", 6),
			e(CodeAllowedToolsString, "explain-code/SKILL.md", 5),
			e(CodeAllowedToolsString, "fix-bug/SKILL.md", 5),
			e(CodeArgumentHintList, "fix-bug/SKILL.md", 4),
			e(CodeDescriptionNoTrigger, "commit/SKILL.md", 3),
			e(CodeDescriptionNoTrigger, "fix-bug/SKILL.md", 3),
		}},

		// Paths the scan cannot package.
		{name: "symlink", build: buildSymlink,
			want:     []finding{e(string(layers.ProblemSymlink), "tool/link.md", 0)},
			messages: map[string]string{string(layers.ProblemSymlink): "--symlink-mode flatten"}},
		{name: "symlinked SKILL.md is not also missing", build: buildSymlinkedSkillMD,
			want: []finding{e(string(layers.ProblemSymlink), "tool/SKILL.md", 0)}},
		{name: "symlink flattened", build: buildSymlinkedSkillMD, opts: Options{Symlinks: layers.SymlinkFlatten}},
		{name: "symlink dangling", build: buildDanglingSymlink, opts: Options{Symlinks: layers.SymlinkFlatten},
			want: []finding{e(string(layers.ProblemDanglingSymlink), "tool/ref.md", 0)}},
		{name: "symlink escape", build: buildEscapingSymlink, opts: Options{Symlinks: layers.SymlinkFlatten},
			want: []finding{e(string(layers.ProblemSymlinkEscape), "tool/ref.md", 0)}},
		{name: "symlink cycle", build: buildSymlinkCycle, opts: Options{Symlinks: layers.SymlinkFlatten},
			want: []finding{
				e(string(layers.ProblemSymlinkCycle), "tool/a", 0),
				e(string(layers.ProblemSymlinkCycle), "tool/b", 0),
			}},
		{name: "hard link", build: buildHardlink,
			want: []finding{
				e(string(layers.ProblemHardlink), "tool/copy.md", 0),
				e(string(layers.ProblemHardlink), "tool/notes.md", 0),
			},
			messages: map[string]string{string(layers.ProblemHardlink): "file has 2 hard links; hard links are not packaged"}},
	}
}

func TestDir(t *testing.T) {
	runCases(t, validateCases())
}

func runCases(t *testing.T, cases []validateCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			if tc.build != nil {
				opts.Root, opts.PackageRoot = tc.build(t)
			} else {
				opts.Root = filepath.Join(fixtures, filepath.FromSlash(tc.fixture))
			}
			r, err := Dir(opts)
			if err != nil {
				t.Fatalf("Dir: %v", err)
			}
			got := findings(t, opts.Root, r)
			want := slices.Clone(tc.want)
			sortFindings(want)
			if !slices.Equal(got, want) {
				t.Errorf("findings:\n%s\nwant:\n%s\nreport:\n%s", list(got), list(want), dump(r))
			}
			wantValid := !slices.ContainsFunc(want, func(f finding) bool { return f.Severity == "error" })
			if r.Valid != wantValid {
				t.Errorf("Valid = %v, want %v", r.Valid, wantValid)
			}
			for code, sub := range tc.messages {
				found := false
				for _, d := range append(slices.Clone(r.Errors), r.Warnings...) {
					if d.Code == code {
						found = true
						if !strings.Contains(d.Message, sub) {
							t.Errorf("%s message %q does not contain %q", code, d.Message, sub)
						}
					}
				}
				if !found {
					t.Errorf("no %s diagnostic to check the message of", code)
				}
			}
		})
	}
}

// findings reduces a report to findings, checking on the way what every
// diagnostic must satisfy.
func findings(t *testing.T, root string, r *Report) []finding {
	t.Helper()
	var out []finding
	add := func(sev string, ds []Diagnostic) {
		if !slices.IsSortedFunc(ds, func(a, b Diagnostic) int {
			return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Code, b.Code))
		}) {
			t.Errorf("%s diagnostics are not sorted by file, line, code: %v", sev, ds)
		}
		for _, d := range ds {
			if d.Message == "" {
				t.Errorf("%v has no message", d)
			}
			rel, err := filepath.Rel(root, d.File)
			if err != nil || !filepath.IsLocal(rel) && rel != "." {
				t.Errorf("diagnostic file %q is not under the root %q", d.File, root)
			}
			if d.File != filepath.Join(root, rel) {
				t.Errorf("diagnostic file %q is not filepath.Join(root, rel)", d.File)
			}
			if rel == "." {
				rel = ""
			}
			out = append(out, finding{sev, d.Code, filepath.ToSlash(rel), d.Line})
		}
	}
	add("error", r.Errors)
	add("warning", r.Warnings)
	sortFindings(out)
	return out
}

func sortFindings(fs []finding) {
	slices.SortFunc(fs, func(a, b finding) int { return strings.Compare(a.String(), b.String()) })
}

func list(fs []finding) string {
	if len(fs) == 0 {
		return "  (none)"
	}
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + f.String() + "\n")
	}
	return b.String()
}

func dump(r *Report) string {
	var b strings.Builder
	for _, d := range append(slices.Clone(r.Errors), r.Warnings...) {
		b.WriteString("  " + d.String() + "\n")
	}
	return b.String()
}

// TestEveryCodeIsTested keeps the table honest: a rule without a case
// fails here.
func TestEveryCodeIsTested(t *testing.T) {
	tested := map[string]bool{}
	for _, tc := range append(validateCases(), specialFileCases()...) {
		for _, f := range tc.want {
			tested[f.Code] = true
		}
	}
	// Covered by their own tests below.
	tested[CodeReadError] = true
	tested[CodeSkillMDTooLarge] = true
	tested[CodeStatefulFileTooLarge] = true
	codes := []string{
		CodeStrayFile, CodeSkillDirEmpty, CodeSkillMDMissing, CodeSkillMDTooLarge, CodeStatefulFileTooLarge, CodeReadError,
		CodeFrontmatterMissing, CodeFrontmatterUnterminated, CodeFrontmatterSyntax, CodeFrontmatterNotMapping,
		CodeFrontmatterTooLarge,
		CodeFieldType, CodeFieldDuplicate, CodeNameMissing, CodeNameInvalid, CodeNameDuplicate,
		CodeDescriptionMissing, CodeDescriptionTooLong, CodeCompatibilityTooLong,
		CodeNoSkills, CodeNameMismatch, CodeAllowedToolsString, CodeArgumentHintList, CodeUnknownField,
		CodeBodyTooLong, CodeLargeFile, CodeNonUTF8, CodeHiddenText,
		string(layers.ProblemSymlink), string(layers.ProblemHardlink), string(layers.ProblemDanglingSymlink),
		string(layers.ProblemSymlinkEscape), string(layers.ProblemSymlinkCycle),
	}
	if len(specialFileCases()) > 0 {
		codes = append(codes, string(layers.ProblemFIFO), string(layers.ProblemSocket), string(layers.ProblemDevice))
	}
	for _, c := range codes {
		if !tested[c] {
			t.Errorf("code %s has no test case", c)
		}
	}
}

func goodSkill(t *testing.T, root, name string) {
	t.Helper()
	filetest.WriteFile(t, filepath.Join(root, name, skill.FileName),
		"---\nname: "+name+"\ndescription: A skill that works. Use when testing stax.\n---\nBody\n")
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Skipf("cannot create symlinks here: %v", err)
	}
}

func buildEmptyDir(t *testing.T) (string, string) {
	root := t.TempDir()
	goodSkill(t, root, "tool")
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, ""
}

// buildLargeFrontmatter writes a SKILL.md whose frontmatter passes
// skill.MaxFrontmatterSize on line 4+MaxFrontmatterSize/64: lines of 64
// bytes after name and description, and few keys.
func buildLargeFrontmatter(t *testing.T) (string, string) {
	root := t.TempDir()
	head := "name: tool\ndescription: A skill. Use when testing.\nnotes: |\n"
	var b strings.Builder
	b.WriteString("---\n" + head)
	for b.Len() < 4+len(head)+skill.MaxFrontmatterSize+64 {
		b.WriteString("  " + strings.Repeat("x", 61) + "\n")
	}
	filetest.WriteFile(t, filepath.Join(root, "tool", skill.FileName), b.String()+"---\nBody\n")
	return root, ""
}

// buildManyNodes writes a SKILL.md whose frontmatter, small in bytes, has
// more than skill.MaxFrontmatterNodes YAML nodes on line 4.
func buildManyNodes(t *testing.T) (string, string) {
	root := t.TempDir()
	filetest.WriteFile(t, filepath.Join(root, "tool", skill.FileName),
		"---\nname: tool\ndescription: A skill. Use when testing.\ntags: ["+strings.Repeat("t,", skill.MaxFrontmatterNodes)+"t]\n---\nBody\n")
	return root, ""
}

func buildRuneDescription(t *testing.T) (string, string) {
	// 1024 characters but 2039 bytes: within the limit.
	root := t.TempDir()
	filetest.WriteFile(t, filepath.Join(root, "tool", skill.FileName),
		"---\nname: tool\ndescription: Use when "+strings.Repeat("é", 1024-len("Use when "))+"\n---\nBody\n")
	return root, ""
}

func buildLargeFile(t *testing.T) (string, string) {
	root := t.TempDir()
	goodSkill(t, root, "tool")
	f, err := os.Create(filepath.Join(root, "tool", "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Sparse: the size is what matters, not the disk it takes.
	if err := f.Truncate(layers.LargeFileSize + 1); err != nil {
		t.Fatal(err)
	}
	return root, ""
}

func buildSymlink(t *testing.T) (string, string) {
	root := t.TempDir()
	goodSkill(t, root, "tool")
	symlink(t, skill.FileName, filepath.Join(root, "tool", "link.md"))
	return root, ""
}

// buildSymlinkedSkillMD links a skill's SKILL.md to a file of the package
// outside the skills directory.
func buildSymlinkedSkillMD(t *testing.T) (string, string) {
	pkg := t.TempDir()
	root := filepath.Join(pkg, "skills")
	filetest.WriteFile(t, filepath.Join(pkg, "shared", "tool.md"),
		"---\nname: tool\ndescription: Shared between packages. Use when testing stax.\n---\nBody\n")
	if err := os.MkdirAll(filepath.Join(root, "tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join("..", "..", "shared", "tool.md"), filepath.Join(root, "tool", skill.FileName))
	return root, pkg
}

func buildDanglingSymlink(t *testing.T) (string, string) {
	root := t.TempDir()
	goodSkill(t, root, "tool")
	symlink(t, "missing.md", filepath.Join(root, "tool", "ref.md"))
	return root, ""
}

func buildEscapingSymlink(t *testing.T) (string, string) {
	outside := t.TempDir()
	filetest.WriteFile(t, filepath.Join(outside, "secret.md"), "# outside the package\n")
	root := t.TempDir()
	goodSkill(t, root, "tool")
	symlink(t, filepath.Join(outside, "secret.md"), filepath.Join(root, "tool", "ref.md"))
	return root, ""
}

func buildSymlinkCycle(t *testing.T) (string, string) {
	root := t.TempDir()
	goodSkill(t, root, "tool")
	symlink(t, "b", filepath.Join(root, "tool", "a"))
	symlink(t, "a", filepath.Join(root, "tool", "b"))
	return root, ""
}

func buildHardlink(t *testing.T) (string, string) {
	root := t.TempDir()
	goodSkill(t, root, "tool")
	filetest.WriteFile(t, filepath.Join(root, "tool", "notes.md"), "# Notes\n")
	if err := os.Link(filepath.Join(root, "tool", "notes.md"), filepath.Join(root, "tool", "copy.md")); err != nil {
		t.Skipf("cannot create hard links here: %v", err)
	}
	return root, ""
}
