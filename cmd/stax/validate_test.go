package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/validate"
)

func TestValidateExamples(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{examples, filepath.Join(examples, "skills")} {
		r := runStax(t, "validate", "--strict", dir)
		if r.Code != 0 || !strings.Contains(r.Stdout, "4 skills valid, 0 warnings") {
			t.Errorf("validate %s: exit %d\n%s%s", dir, r.Code, r.Stdout, r.Stderr)
		}
	}
}

func TestValidatePublicShapes(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"valid", "shapes/agentskills-minimal", "shapes/claude-code", "shapes/metadata-version"} {
		r := runStax(t, "validate", filepath.Join("../../testdata/skills", dir))
		if r.Code != 0 {
			t.Errorf("%s: exit %d\n%s", dir, r.Code, r.Stdout)
		}
	}
}

// TestValidateInvalidFixtures runs every fixture of testdata/skills/invalid
// through the command: error fixtures exit 1 naming their code, warning
// fixtures exit 0 and exit 1 under --strict.
func TestValidateInvalidFixtures(t *testing.T) {
	t.Parallel()
	const root = "../../testdata/skills/invalid"
	tests := map[string]struct {
		code    string
		warning bool
	}{
		"allowed-tools-string":     {"allowed-tools-string", true},
		"argument-hint-list":       {"argument-hint-list", true},
		"body-too-long":            {"body-too-long", true},
		"compatibility-too-long":   {"compatibility-too-long", false},
		"description-empty":        {"description-missing", false},
		"description-missing":      {"description-missing", false},
		"description-too-long":     {"description-too-long", false},
		"field-duplicate":          {"field-duplicate", false},
		"frontmatter-missing":      {"frontmatter-missing", false},
		"frontmatter-not-mapping":  {"frontmatter-not-mapping", false},
		"frontmatter-syntax":       {"frontmatter-syntax", false},
		"frontmatter-unterminated": {"frontmatter-unterminated", false},
		"hidden-text":              {"hidden-text", false},
		"missing-skill-md":         {"skill-md-missing", false},
		"name-double-hyphen":       {"name-invalid", false},
		"name-duplicate":           {"name-duplicate", false},
		"name-empty":               {"name-missing", false},
		"name-invalid":             {"name-invalid", false},
		"name-mismatch":            {"name-mismatch", true},
		"name-missing":             {"name-missing", false},
		"name-not-string":          {"field-type", false},
		"name-too-long":            {"name-invalid", false},
		"non-utf8":                 {"non-utf8", true},
		"skill-md-directory":       {"skill-md-missing", false},
		"skill-md-lowercase":       {"skill-md-missing", false},
		"stray-file":               {"stray-file", false},
		"unknown-field":            {"unknown-field", true},
		"wrong-types":              {"field-type", false},
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := tests[e.Name()]; !ok && e.IsDir() {
			t.Errorf("fixture %s has no expectation here", e.Name())
		}
	}
	for fixture, tt := range tests {
		t.Run(fixture, func(t *testing.T) {
			dir := filepath.Join(root, fixture)
			r := runStax(t, "validate", dir, "--output", "json")
			var report validate.Report
			decodeJSON(t, r.Stdout, &report)
			found := report.Errors
			wantExit := 1
			if tt.warning {
				found, wantExit = report.Warnings, 0
			}
			if r.Code != wantExit {
				t.Errorf("exit %d, want %d", r.Code, wantExit)
			}
			if !hasCode(found, tt.code) {
				t.Errorf("no %s diagnostic in %+v / %+v", tt.code, report.Errors, report.Warnings)
			}
			for _, d := range found {
				if !strings.HasPrefix(d.File, dir) || d.Message == "" {
					t.Errorf("diagnostic does not name its file under %s: %+v", dir, d)
				}
			}
			if tt.warning {
				strict := runStax(t, "validate", "--strict", dir, "--output", "json")
				var sr validate.Report
				decodeJSON(t, strict.Stdout, &sr)
				if strict.Code != 1 || sr.Valid || !hasCode(sr.Errors, tt.code) {
					t.Errorf("--strict: exit %d, errors %+v", strict.Code, sr.Errors)
				}
			}
			text := runStax(t, "validate", dir)
			if !strings.Contains(text.Stdout, "["+tt.code+"]") {
				t.Errorf("text output lacks [%s]:\n%s", tt.code, text.Stdout)
			}
		})
	}
}

func hasCode(ds []validate.Diagnostic, code string) bool {
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}

func TestValidateLineNumbers(t *testing.T) {
	t.Parallel()
	r := runStax(t, "validate", "../../testdata/skills/invalid/frontmatter-syntax")
	if r.Code != 1 || !strings.Contains(r.Stdout, "SKILL.md:") {
		t.Fatalf("exit %d\n%s", r.Code, r.Stdout)
	}
	for _, line := range strings.Split(r.Stdout, "\n") {
		if strings.Contains(line, "[frontmatter-syntax]") {
			parts := strings.SplitN(line, ":", 3)
			if len(parts) < 3 || parts[1] == "" || parts[1] == "0" {
				t.Errorf("no line number in %q", line)
			}
		}
	}
}

// A directory holding SKILL.md is one skill, checked as its skills
// directory would check it: its folder's name is its name, and the
// package's .staxignore applies.
func TestValidateOneSkill(t *testing.T) {
	t.Parallel()
	r := runStax(t, "validate", "--strict", filepath.Join(examples, "skills", "review-pr"))
	if r.Code != 0 || !strings.Contains(r.Stdout, "1 skill valid, 0 warnings") {
		t.Errorf("validate one example skill: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	pkg := t.TempDir()
	filetest.WriteFile(t, filepath.Join(pkg, "stax.yaml"), "name: team\nversion: 1.0.0\nskills: src\n")
	filetest.WriteFile(t, filepath.Join(pkg, ".staxignore"), "*.log\n")
	skills := filepath.Join(pkg, "src")
	filetest.WriteFile(t, filepath.Join(skills, "review", "SKILL.md"), "---\nname: other\ndescription: Misnamed. Use when testing validate.\n---\n\nBody.\n")
	filetest.WriteFile(t, filepath.Join(skills, "review", "debug.log"), "run \u202e this: hidden text, an error were the file packaged\n")
	// A broken sibling is not read: only the skill asked for is checked.
	filetest.WriteFile(t, filepath.Join(skills, "broken", "SKILL.md"), "no frontmatter\n")

	r = runStax(t, "validate", filepath.Join(skills, "review"))
	want := filepath.Join(skills, "review", "SKILL.md") + `:2: warning: name "other" differs`
	if r.Code != 0 || !strings.Contains(r.Stdout, want) || !strings.Contains(r.Stdout, "1 skill valid, 1 warning") {
		t.Errorf("validate a misnamed skill: exit %d, want %q and one warning\n%s%s", r.Code, want, r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout, "debug.log") || strings.Contains(r.Stdout, "broken") {
		t.Errorf("validate one skill reported an ignored file or another skill:\n%s", r.Stdout)
	}
}

// The skills directory a package's stax.yaml names is checked as the
// package checks it, its .staxignore applying: stax new skill says to
// run stax validate on it. Checked as a bare skills directory, a file the
// package leaves out was a stray-file error, whose fix (a .staxignore in
// the skills directory) made the package fail in its turn.
func TestValidateThePackagesSkillsDirectory(t *testing.T) {
	t.Parallel()
	pkg := t.TempDir()
	filetest.WriteFile(t, filepath.Join(pkg, "stax.yaml"), "name: team\nversion: 1.0.0\n")
	filetest.WriteFile(t, filepath.Join(pkg, ".staxignore"), "/skills/README.md\n")
	filetest.WriteFile(t, filepath.Join(pkg, "skills", "README.md"), "The team's skills.\n")
	filetest.WriteFile(t, filepath.Join(pkg, "skills", "review", "SKILL.md"), skillMD("review", "Reviews."))
	for _, dir := range []string{pkg, filepath.Join(pkg, "skills")} {
		r := runStax(t, "validate", "--strict", dir)
		if r.Code != 0 || !strings.Contains(r.Stdout, "1 skill valid, 0 warnings") {
			t.Errorf("validate %s: exit %d, want 0 as the package packs\n%s%s", dir, r.Code, r.Stdout, r.Stderr)
		}
	}
}

// A package's skills directory with no stax.yaml to name it reads as one
// skill without SKILL.md: the message says that it holds skills, and how
// to make it the skills directory; followed, the pack succeeds.
func TestValidateSaysADirectoryHoldsSkills(t *testing.T) {
	t.Parallel()
	useHome(t)
	root := t.TempDir()
	filetest.WriteFile(t, filepath.Join(root, "skills", "review", "SKILL.md"), skillMD("review", "Reviews."))
	r := runStax(t, "pack", root)
	hint := "stax init " + root + " --package --skills skills"
	if r.Code != 1 || !strings.Contains(r.Stderr, "holds skills (skills/review)") || !strings.Contains(r.Stderr, hint) {
		t.Fatalf("pack of a package root without stax.yaml: exit %d, want 1 saying it holds skills and %q\n%s", r.Code, hint, r.Stderr)
	}
	if h := runStax(t, strings.Fields(hint)[1:]...); h.Code != 0 {
		t.Fatalf("the hint %q: exit %d %s", hint, h.Code, h.Stderr)
	}
	if r := runStax(t, "pack", root); r.Code != 0 {
		t.Errorf("pack after the hint: exit %d %s", r.Code, r.Stderr)
	}
}

// validate checks a package's skills directory as pack does: one that
// stax.yaml names and that does not exist is exit 2 with the same
// message, naming stax.yaml and the fix; a package of dependencies alone
// has no skills to check, and validates; one with neither is empty, the
// no-skills warning.
func TestValidateAPackageWithoutItsSkillsDirectory(t *testing.T) {
	t.Parallel()
	useHome(t)
	missing := t.TempDir()
	filetest.WriteFile(t, filepath.Join(missing, "stax.yaml"), "name: team\nversion: 1.0.0\nskills: nope\n")
	pack, validate := runStax(t, "pack", missing), runStax(t, "validate", missing)
	want := "skills: nope names a directory that does not exist"
	if pack.Code != 2 || validate.Code != 2 || !strings.Contains(validate.Stderr, want) || validate.Stderr != pack.Stderr {
		t.Errorf("a missing skills directory: pack exit %d %s; validate exit %d %s; want exit 2 and %q from both", pack.Code, pack.Stderr, validate.Code, validate.Stderr, want)
	}
	deps := t.TempDir()
	filetest.WriteFile(t, filepath.Join(deps, "stax.yaml"), "name: team\nversion: 1.0.0\npackages: [ghcr.io/acme/org-skills:1.0.0]\n")
	if r := runStax(t, "validate", "--strict", deps); r.Code != 0 || !strings.Contains(r.Stdout, "0 skills valid") {
		t.Errorf("a package of dependencies alone: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	empty := t.TempDir()
	filetest.WriteFile(t, filepath.Join(empty, "stax.yaml"), "name: team\nversion: 1.0.0\n")
	if r := runStax(t, "validate", empty); r.Code != 0 || !strings.Contains(r.Stdout, "[no-skills]") {
		t.Errorf("an empty package: exit %d, want 0 with the no-skills warning\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// A directory holding SKILL.md given where a package goes (stax install
// DIR) is one skill, not a skills directory: the message says so and how
// to take that skill from the directory that holds it, where it said to
// leave SKILL.md out with .staxignore; followed, the install succeeds.
func TestInstallOfOneSkillSaysHowToTakeIt(t *testing.T) {
	t.Parallel()
	useHome(t)
	skills := filepath.Join(t.TempDir(), "skills")
	writeSkillFiles(t, skills, map[string]string{"review/SKILL.md": skillMD("review", "r"), "other/SKILL.md": skillMD("other", "o")})
	proj := t.TempDir()
	r := runStax(t, "install", filepath.Join(skills, "review"), "--dir", proj, "--runtime", "claude-code")
	hint := "stax install " + skills + " --skill review"
	if r.Code != 1 || !strings.Contains(r.Stderr, hint) || strings.Contains(r.Stderr, ".staxignore") {
		t.Fatalf("install of one skill's directory: exit %d, want 1 with %q\n%s", r.Code, hint, r.Stderr)
	}
	if h := runStax(t, append(strings.Fields(hint)[1:], "--dir", proj, "--runtime", "claude-code")...); h.Code != 0 {
		t.Fatalf("the hint: exit %d %s", h.Code, h.Stderr)
	}
	if entries, _ := os.ReadDir(filepath.Join(proj, ".claude", "skills")); len(entries) != 2 { // review and the record
		t.Errorf("installed %v, want review alone", entries)
	}
}

// A skill's SKILL.md given to validate, as a linter is given a file, is
// that skill checked, where it was "not a directory".
func TestValidateASkillMD(t *testing.T) {
	t.Parallel()
	r := runStax(t, "validate", filepath.Join(examples, "skills", "review-pr", "SKILL.md"))
	if r.Code != 0 || !strings.Contains(r.Stdout, "1 skill valid") {
		t.Errorf("validate of a SKILL.md: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// A skill's own directory given to pack, where a package goes, is told
// to give the directory that holds it, which packs: the message said only
// to take it with stax install, which packs nothing and saves the skill
// in the install.sources of the directory pack was run in.
func TestPackOfOneSkillSaysWhichDirectoryToGive(t *testing.T) {
	t.Parallel()
	useHome(t)
	skills := filepath.Join(t.TempDir(), "skills")
	writeSkillFiles(t, skills, map[string]string{"review/SKILL.md": skillMD("review", "r")})
	r := runStax(t, "pack", filepath.Join(skills, "review"))
	hint := "give the directory that holds it, " + skills + ", instead"
	if r.Code != 1 || !strings.Contains(r.Stderr, hint) {
		t.Fatalf("pack of one skill's directory: exit %d, want 1 with %q\n%s", r.Code, hint, r.Stderr)
	}
	if h := runStax(t, "pack", skills); h.Code != 0 {
		t.Errorf("pack of the directory the message names: exit %d %s", h.Code, h.Stderr)
	}
}

// A skill of a package's skills directory given to pack, where a package
// goes, is told to give the package, whose stax.yaml names it: the message
// named the skills directory, which, packed, made a package of its own
// named after it at 0.0.0 without the package's stax.yaml.
func TestPackOfOneSkillOfAPackageSaysToGiveThePackage(t *testing.T) {
	t.Parallel()
	useHome(t)
	pkg := t.TempDir()
	writeSkillFiles(t, filepath.Join(pkg, "skills"), map[string]string{"review/SKILL.md": skillMD("review", "r")})
	filetest.WriteFile(t, filepath.Join(pkg, "stax.yaml"), "name: team\nversion: 1.2.0\n")
	r := runStax(t, "pack", filepath.Join(pkg, "skills", "review"))
	hint := "give its package, " + pkg + ", instead (stax install " + pkg + " --skill review"
	if r.Code != 1 || !strings.Contains(r.Stderr, hint) {
		t.Fatalf("pack of one skill of a package: exit %d, want 1 with %q\n%s", r.Code, hint, r.Stderr)
	}
	if h := runStax(t, "pack", pkg); h.Code != 0 || !strings.Contains(h.Stderr, "Packed team 1.2.0") {
		t.Errorf("pack of the package the message names: exit %d, want team 1.2.0 packed\n%s%s", h.Code, h.Stdout, h.Stderr)
	}
}
