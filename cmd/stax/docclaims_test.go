package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

// flat is text with its backquotes dropped and its runs of white space
// made one space, so that a claim wrapped across lines or set in code
// reads as one phrase.
func flat(text string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(text, "`", "")), " ")
}

// What stax new skill --help and docs/authoring.md say of validating a
// new skill is what stax validate says of it: it passes, with its
// placeholders as warnings, and --strict refuses them.
func TestNewSkillDocsSayWhatValidateFinds(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "skills")
	if r := runStax(t, "new", "skill", "review-pr", dir); r.Code != 0 {
		t.Fatalf("new skill: exit %d %s", r.Code, r.Stderr)
	}
	plain := runStax(t, "validate", dir)
	strict := runStax(t, "validate", "--strict", dir)
	warns := plain.Code == 0 && strings.Contains(plain.Stdout, "[placeholder]")
	docs := map[string]string{
		"stax new skill --help": flat(runStax(t, "new", "skill", "--help").Stdout),
		"docs/authoring.md":     flat(repoFile(t, "docs/authoring.md")),
	}
	for where, text := range docs {
		for _, c := range []struct {
			claim          string
			holds, written bool // written: the docs must say it
		}{
			{"passes stax validate --strict", strict.Code == 0, false},
			{"validates (stax validate --strict) as it is created", strict.Code == 0, false},
			{"passes stax validate with a", warns, true},
			{"stax validate --strict refuses", strict.Code == 1, true},
		} {
			said := strings.Contains(text, c.claim)
			if said && !c.holds || !said && c.written {
				t.Errorf("%s: says %q: %v, which stax validate (exit %d) and --strict (exit %d) make %v", where, c.claim, said, plain.Code, strict.Code, c.holds)
			}
		}
	}
}

// The README's stax outdated sample is the table stax outdated prints,
// header and row, for the versions the README tells of; docs/versions.md
// shows the same header.
func TestReadmeOutdatedSampleIsTheTable(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo := reg.Host + "/acme/tools"
	pushSkillVersion(t, repo+":1.2.0", "tools", "1.2.0")
	proj := t.TempDir()
	if r := runStax(t, "add", repo, "--version", "^1.2.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
	}
	pushSkillVersion(t, repo+":1.4.0", "tools", "1.4.0")
	pushSkillVersion(t, repo+":2.0.0", "tools", "2.0.0")
	r := runStax(t, "outdated", "--dir", proj)
	if r.Code != 0 {
		t.Fatalf("outdated: exit %d\n%s", r.Code, r.Stderr)
	}
	table := tableRows(strings.ReplaceAll(r.Stdout, reg.Host, "ghcr.io"))

	sample := tableRows(consoleSample(t, repoFile(t, "README.md"), "$ stax outdated"))
	if strings.Join(sample, "\n") != strings.Join(table, "\n") {
		t.Errorf("the README's stax outdated sample:\n%s\nstax outdated prints:\n%s", strings.Join(sample, "\n"), strings.Join(table, "\n"))
	}
	versions := tableRows(consoleSample(t, repoFile(t, "docs/versions.md"), "$ stax outdated"))
	if len(versions) == 0 || versions[0] != table[0] {
		t.Errorf("docs/versions.md's stax outdated header %q, stax outdated prints %q", versions, table[0])
	}
}

// consoleSample is what follows the line prompt in a console block of
// doc, up to the block's end.
func consoleSample(t *testing.T, doc, prompt string) string {
	t.Helper()
	_, after, ok := strings.Cut(doc, "```console\n"+prompt+"\n")
	if !ok {
		t.Fatalf("no console block starting %q", prompt)
	}
	sample, _, _ := strings.Cut(after, "```")
	return sample
}

// tableRows is each line of a table with its columns one space apart.
func tableRows(text string) []string {
	var rows []string
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows = append(rows, strings.Join(f, " "))
		}
	}
	return rows
}

// The README's git add line, what a project commits, names every file
// and folder a project-scope install writes at the project's root but
// .stax, whose backups stax keeps out of git.
func TestReadmeCommitsWhatInstallWrites(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo := reg.Host + "/acme/org-skills"
	pushSkillVersion(t, repo+":2.0.0", "review-pr", "2.0.0")
	proj := t.TempDir()
	if r := runStax(t, "add", repo+":2.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
	}
	var added []string
	for _, line := range strings.Split(repoFile(t, "README.md"), "\n") {
		if cmd, _, _ := strings.Cut(line, "#"); strings.HasPrefix(cmd, "git add ") {
			added = strings.Fields(cmd)[2:]
		}
	}
	if len(added) == 0 {
		t.Fatal("the README has no git add line")
	}
	entries, err := os.ReadDir(proj)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".stax" {
			continue
		}
		covered := slices.ContainsFunc(added, func(a string) bool { return a == name || strings.HasPrefix(a, name+"/") })
		if !covered {
			t.Errorf("install wrote %s, which the README's git add %s leaves out", name, strings.Join(added, " "))
		}
	}
	if _, err := os.Stat(filepath.Join(proj, ".claude", "skills", "review-pr", "SKILL.md")); err != nil {
		t.Errorf("install did not write into .claude/skills: %v", err)
	}
}

// The docs' samples of the line install, update and verify --installed
// print for a folder name it as stax does: by its absolute path, as the
// dry run's sample already did, not relative to the project.
func TestDocsFolderLinesAreAsPrinted(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	writeSkillFiles(t, filepath.Join(proj, "skills"), map[string]string{"a/SKILL.md": skillMD("a", "a")})
	folder := filepath.Join(proj, ".claude", "skills")
	for _, args := range [][]string{{"install", filepath.Join(proj, "skills")}, {"verify", "--installed"}} {
		r := runStax(t, append(args, "--dir", proj)...)
		if r.Code != 0 || !strings.HasPrefix(r.Stdout, "claude-code: "+folder+": ") {
			t.Fatalf("%v: exit %d, want a line for claude-code: %s\n%s%s", args, r.Code, folder, r.Stdout, r.Stderr)
		}
	}
	line := regexp.MustCompile(`(?m)^[a-z-]+(?:,[a-z-]+)*: (\S+): (?:\d+ installed|verified|would install)`)
	docs, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	for _, doc := range append(docs, "README.md") {
		doc = strings.TrimPrefix(filepath.ToSlash(doc), "../../")
		for _, m := range line.FindAllStringSubmatch(repoFile(t, doc), -1) {
			if !filepath.IsAbs(m[1]) {
				t.Errorf("%s: %q names the folder %s, which stax prints as an absolute path", doc, m[0], m[1])
			}
		}
	}
}

// What docs/output-and-errors.md says of the JSON of a failed check is
// what the commands print: verify --installed reports on stdout alone,
// and verify REF its result on stdout and the error object on stderr,
// which the docs must not say it leaves out.
func TestDocsSayWhichChecksPrintAnErrorObject(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/unsigned:1.0.0"
	pushSkillVersion(t, ref, "unsigned", "1.0.0")
	_, pub := newKeyPair(t, "docs")
	r := runStax(t, "verify", ref, "--key", pub, "--output", "json")
	var res struct {
		Verified bool `json:"verified"`
	}
	decodeJSON(t, r.Stdout, &res)
	if got := jsonErrorOf(t, r); r.Code != 6 || res.Verified || got.Exit != 6 {
		t.Fatalf("verify of an unsigned package: exit %d, result %+v, error %+v", r.Code, res, got)
	}
	text := flat(repoFile(t, "docs/output-and-errors.md"))
	if strings.Contains(text, "validate, verify, diff --exit-code") {
		t.Error("docs/output-and-errors.md says verify prints no error object; verify REF prints one after its result")
	}
	if !strings.Contains(text, "verify REF prints its result on stdout and the error object on stderr") {
		t.Error("docs/output-and-errors.md does not say what verify REF prints")
	}
}

// The sample of stax list in docs/layering-and-install.md is what it
// prints: the folders it read, then the table, a skill a row in order of
// name.
func TestDocsListSampleIsWhatListPrints(t *testing.T) {
	project := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	writeSkillFiles(t, filepath.Join(project, ".claude", "skills"), map[string]string{"mine/SKILL.md": skillMD("mine", "m"), "review-pr/SKILL.md": skillMD("review-pr", "r")})
	r := runStax(t, "list", "--dir", project)
	if r.Code != 0 {
		t.Fatalf("list: exit %d %s", r.Code, r.Stderr)
	}
	printed := strings.Split(r.Stdout, "\n")
	doc := repoFile(t, "docs/layering-and-install.md")
	start := strings.Index(doc, "```\nRuntime claude-code")
	if start < 0 {
		t.Fatal("docs/layering-and-install.md has no sample of stax list starting with its folders")
	}
	sample := strings.Split(doc[start+4:start+4+strings.Index(doc[start+4:], "```")], "\n")
	if len(sample) < 7 || len(printed) < 7 {
		t.Fatalf("sample %q, printed %q", sample, printed)
	}
	for _, i := range []int{0, 3, 4, 5} { // the title, the plugin line, the blank line, the header
		if strings.Join(strings.Fields(sample[i]), " ") != strings.Join(strings.Fields(printed[i]), " ") {
			t.Errorf("line %d of the sample is %q; stax list prints %q", i+1, sample[i], printed[i])
		}
	}
	if !strings.HasPrefix(sample[6], "mine ") || !strings.HasPrefix(printed[6], "mine ") {
		t.Errorf("the first row of the sample is %q, stax list prints %q first", sample[6], printed[6])
	}
}

// docs/output-and-errors.md's sample of a source of stax.yaml that fails
// to resolve is what stax prints in the project: the file named as --dir
// gives it (stax.yaml, with no --dir), where the sample showed an
// absolute path stax prints only for an absolute --dir.
func TestResolveErrorSampleIsWhatStaxPrints(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo := reg.Host + "/acme/x"
	pushSkillVersion(t, repo+":1.0.0", "x", "1.0.0")
	proj := t.TempDir()
	yaml := "# the team's sources\n\n\ninstall:\n  runtimes: [claude-code]\n  sources:\n    - {ref: " + repo + ", version: \"^2.0.0\"}\n"
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), yaml)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Rel(wd, proj)
	if err != nil {
		t.Fatal(err)
	}
	r := runStax(t, "install", "--dir", dir)
	got, ok := strings.CutPrefix(r.Stderr, "Error: "+filepath.Join(dir, "stax.yaml")+":")
	if r.Code != 4 || !ok {
		t.Fatalf("install --dir %s: exit %d, want 4 and the error naming %s\n%s", dir, r.Code, filepath.Join(dir, "stax.yaml"), r.Stderr)
	}
	m := regexp.MustCompile("(?m)^(\\S*stax\\.yaml:7: resolve ghcr.io/acme/x: .*)\\(…\\)$").FindStringSubmatch(repoFile(t, "docs/output-and-errors.md"))
	if m == nil {
		t.Fatal("docs/output-and-errors.md has no sample of a source of stax.yaml that fails to resolve")
	}
	if want := strings.ReplaceAll(m[1], "ghcr.io/acme/x", repo); !strings.HasPrefix("stax.yaml:"+got, want) {
		t.Errorf("docs/output-and-errors.md shows\n%s\nwhere stax prints, in the project,\nstax.yaml:%s", want, got)
	}
}
