package proposal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stax-dev/stax/pkg/bump"
)

const fixtures = "../../testdata/proposals"

// skillsCopy copies the fixture skills directory to a temporary one.
func skillsCopy(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "skills")
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(fixtures, "skills"))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// snapshot lists a tree as path → mode and content.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[rel+"/"] = info.Mode().String()
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil && d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		out[rel] = fmt.Sprintf("%v %s", info.Mode(), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func applyFixture(t *testing.T, name, dir string, opts Options) (*Result, error) {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Parse(f, 1<<20)
	if err != nil {
		return nil, err
	}
	opts.SkillsDir = dir
	if opts.Today.IsZero() {
		opts.Today = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	}
	return Apply(p, opts)
}

var today = "2026-11-23"

func TestApplyAccepted(t *testing.T) {
	tests := []struct {
		fixture string
		slug    string
		part    bump.Part
		from    string
		to      string
		// files are the paths written, with their status.
		files []string
		// contains are texts the written files must hold.
		contains map[string][]string
	}{{
		fixture: "revise.json", slug: "triage-bug", part: bump.Minor, from: "1.2.0", to: "1.3.0",
		files: []string{"triage-bug/MEMORY.md modified", "triage-bug/SKILL.md modified", "triage-bug/references/flaky.md added"},
		contains: map[string][]string{
			"triage-bug/SKILL.md":  {"version: 1.3.0", "read references/flaky.md"},
			"triage-bug/MEMORY.md": {"version: 1.3.0", "lastUpdated: " + today},
		},
	}, {
		fixture: "narrow.json", slug: "triage-bug", part: bump.Minor, from: "1.2.0", to: "1.3.0",
		files:    []string{"triage-bug/MEMORY.md modified", "triage-bug/SKILL.md modified"},
		contains: map[string][]string{"triage-bug/SKILL.md": {"Do not use it for feature requests."}},
	}, {
		fixture: "replace.json", slug: "triage-bug", part: bump.Major, from: "1.2.0", to: "2.0.0",
		files:    []string{"triage-bug/MEMORY.md modified", "triage-bug/SKILL.md modified"},
		contains: map[string][]string{"triage-bug/MEMORY.md": {"version: 2.0.0"}},
	}, {
		// A change to MEMORY.md alone is a patch, and the bump syncs it.
		fixture: "memory-only.json", slug: "triage-bug", part: bump.Patch, from: "1.2.0", to: "1.2.1",
		files: []string{"triage-bug/MEMORY.md modified", "triage-bug/SKILL.md modified"},
		contains: map[string][]string{
			"triage-bug/SKILL.md":  {"version: 1.2.1"},
			"triage-bug/MEMORY.md": {"version: 1.2.1", "Bisecting before reading the diff", "lastUpdated: " + today},
		},
	}, {
		fixture: "legacy-single-key.json", slug: "triage-bug", part: bump.Minor, from: "1.2.0", to: "1.3.0",
		files:    []string{"triage-bug/MEMORY.md modified", "triage-bug/SKILL.md modified"},
		contains: map[string][]string{"triage-bug/SKILL.md": {"3. Close duplicates."}},
	}, {
		fixture: "legacy-bare-key.json", slug: "triage-bug", part: bump.Minor, from: "1.2.0", to: "1.3.0",
		files:    []string{"triage-bug/MEMORY.md modified", "triage-bug/SKILL.md modified"},
		contains: map[string][]string{"triage-bug/SKILL.md": {"3. Close duplicates."}},
	}, {
		fixture: "create.json", slug: "parse-logs", to: "0.1.0",
		files:    []string{"parse-logs/SKILL.md added", "parse-logs/scripts/first-failure.sh added"},
		contains: map[string][]string{"parse-logs/scripts/first-failure.sh": {"grep -n -m1 FAIL"}},
	}, {
		// Only replace may change a name: here it brings it in line.
		fixture: "replace-renames.json", slug: "legacy-name", part: bump.Major, from: "0.3.0", to: "1.0.0",
		files:    []string{"legacy-name/SKILL.md modified"},
		contains: map[string][]string{"legacy-name/SKILL.md": {"name: legacy-name", "version: 1.0.0"}},
	}}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			dir := skillsCopy(t)
			before := snapshot(t, dir)

			dry, err := applyFixture(t, tt.fixture, dir, Options{DryRun: true})
			if err != nil {
				t.Fatalf("dry run: %v", err)
			}
			if got := snapshot(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
				t.Fatal("--dry-run wrote")
			}

			res, err := applyFixture(t, tt.fixture, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res.Rules {
				if !r.Passed {
					t.Errorf("rule %s failed: %v", r.Rule, r.Problems)
				}
			}
			if len(res.Rules) != 8 {
				t.Errorf("%d rules checked, want all 8: %+v", len(res.Rules), res.Rules)
			}
			if len(res.Skills) != 1 {
				t.Fatalf("skills %+v", res.Skills)
			}
			s := res.Skills[0]
			if s.Slug != tt.slug || s.Part != tt.part || s.From != tt.from || s.To != tt.to {
				t.Errorf("skill %+v, want %s %s %s → %s", s, tt.slug, tt.part, tt.from, tt.to)
			}
			var files []string
			for _, f := range s.Files {
				files = append(files, f.Path+" "+f.Status)
				if f.Added == 0 && f.Removed == 0 {
					t.Errorf("%s: no lines counted", f.Path)
				}
			}
			slices.Sort(files)
			if !slices.Equal(files, tt.files) {
				t.Errorf("files %v, want %v", files, tt.files)
			}
			if fmt.Sprint(dry.Skills) != fmt.Sprint(res.Skills) {
				t.Errorf("dry run reported %+v, the write %+v", dry.Skills, res.Skills)
			}
			for file, texts := range tt.contains {
				data, err := os.ReadFile(filepath.Join(dir, file))
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range texts {
					if !strings.Contains(string(data), s) {
						t.Errorf("%s lacks %q:\n%s", file, s, data)
					}
				}
			}
			if info, err := os.Stat(filepath.Join(dir, "parse-logs", "scripts", "first-failure.sh")); err == nil && info.Mode().Perm() != 0o755 {
				t.Errorf("a proposed script is not executable: %v", info.Mode())
			}
			// Only the files reported changed.
			after := snapshot(t, dir)
			for p, v := range after {
				if strings.HasSuffix(p, "/") {
					continue
				}
				if before[p] != v && !slices.Contains(files, filepath.ToSlash(p)+" modified") && !slices.Contains(files, filepath.ToSlash(p)+" added") {
					t.Errorf("%s changed without being reported", p)
				}
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("left behind: %s", e.Name())
				}
			}
		})
	}
}

func TestApplyNoOp(t *testing.T) {
	dir := skillsCopy(t)
	before := snapshot(t, dir)
	res, err := applyFixture(t, "noop.json", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NoOp || len(res.Skills) != 0 || len(res.Rules) != 3 {
		t.Errorf("result %+v", res)
	}
	if fmt.Sprint(snapshot(t, dir)) != fmt.Sprint(before) {
		t.Error("a no-op wrote")
	}
}

func TestApplyRejected(t *testing.T) {
	tests := []struct {
		fixture string
		rule    string
		// problems must each appear in the error.
		problems []string
	}{
		{"reject-format.json", RuleFormat, []string{"summary is missing", `operation_type "rewrite"`}},
		{"reject-unknown-field.json", RuleFormat, []string{`unknown field "delete_files"`}},
		{"reject-legacy-no-name.json", RuleFormat, []string{"skill_md: the single-key form names its skill by the name in its frontmatter"}},
		{"reject-hostile-paths.json", RuleSafePaths, []string{
			`"triage-bug/../evil/SKILL.md": path traversal`,
			`"/etc/cron.d/x": absolute path`,
			`"triage-bug/references/../../../x": path traversal`,
			"backslash in path",
			`"Triage_Bug/SKILL.md": the skill folder is not a skill name`,
			`"notes.md" is not inside a skill folder`,
			`"triage-bug/./a.md": path is not clean`,
			"control character in path",
		}},
		// Pack leaves .git and .stax out of a package, but in the skill's
		// folder a planted .git/config runs its fsmonitor at the next git
		// status there, and a .gitignore or .gitattributes hides the change
		// from a review of the repository around it: no hidden element, in
		// any letter case or under the name Windows also gives .git.
		{"reject-hidden-paths.json", RuleSafePaths, []string{
			`"triage-bug/.git/config": ".git" starts with "."`,
			`"triage-bug/.git/HEAD": ".git" starts with "."`,
			`"triage-bug/references/.Git/config": ".Git" starts with "."`,
			`"triage-bug/references/.git": ".git" starts with "."`,
			`"triage-bug/GIT~1/config": "GIT~1" is the short name Windows gives .git`,
			`"triage-bug/git~1. /HEAD": "git~1. " is the short name Windows gives .git`,
			`"triage-bug/.gitignore": ".gitignore" starts with "."`,
			`"triage-bug/.gitattributes": ".gitattributes" starts with "."`,
			`"triage-bug/scripts/.stax/state": ".stax" starts with "."`,
			`"triage-bug/.stax-install.json": ".stax-install.json" starts with "."`,
			`"triage-bug/assets/.env": ".env" starts with "."`,
			"a proposal writes no hidden files or folders",
		}},
		// Proposals are written by agents: what an agent hides from its
		// reviewer in a file it proposes never reaches the skill.
		{"reject-hidden-text.json", RuleValidation, []string{
			// How many tag characters, never what they spell: agents read this.
			"triage-bug/MEMORY.md:9:38: error: U+200B ZERO WIDTH SPACE and 13 more hidden characters (13 of them tag characters",
			"triage-bug/MEMORY.md:10:13: error: U+202E RIGHT-TO-LEFT OVERRIDE",
			"[hidden-text]",
		}},
		{"reject-create-exists.json", RuleOperation, []string{"triage-bug exists: create makes a new skill"}},
		{"reject-revise-missing.json", RuleOperation, []string{"no-such-skill does not exist"}},
		{"reject-name-is-slug.json", RuleNameIsSlug, []string{`name is "bug-triage"; it must equal the skill's folder, "triage-bug"`}},
		{"reject-name-unchanged.json", RuleNameUnchanged, []string{`name changes from "old-name" to "legacy-name", which only replace may do`}},
		{"reject-description-length.json", RuleDescriptionLength, []string{"description is 1069 characters; at most 1024"}},
		{"reject-uncited.json", RuleTier3Cited, []string{
			"triage-bug/assets/template.md is not cited from SKILL.md",
			"triage-bug/references/flaky.md is not cited from SKILL.md",
		}},
		{"reject-validation.json", RuleValidation, []string{"frontmatter has no description"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			dir := skillsCopy(t)
			before := snapshot(t, dir)
			res, err := applyFixture(t, tt.fixture, dir, Options{})
			var rejected *RejectedError
			if !errors.As(err, &rejected) || !errors.Is(err, ErrRejected) {
				t.Fatalf("error %v, want a rejection", err)
			}
			if !slices.ContainsFunc(rejected.Rules, func(r RuleResult) bool { return r.Rule == tt.rule }) {
				t.Errorf("rejected by %+v, want rule %s", rejected.Rules, tt.rule)
			}
			if !strings.Contains(err.Error(), "rule "+tt.rule+": ") {
				t.Errorf("the message does not name the rule:\n%v", err)
			}
			for _, p := range tt.problems {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("error lacks %q:\n%v", p, err)
				}
			}
			if strings.Contains(err.Error(), "curl evil") {
				t.Errorf("the rejection spells out the hidden text:\n%v", err)
			}
			if res != nil {
				i := slices.IndexFunc(res.Rules, func(r RuleResult) bool { return r.Rule == tt.rule })
				if i < 0 || res.Rules[i].Passed {
					t.Errorf("result rules %+v", res.Rules)
				}
			}
			if fmt.Sprint(snapshot(t, dir)) != fmt.Sprint(before) {
				t.Error("a rejected proposal wrote")
			}
		})
	}
}

// A symlink in the skill's folder could lead anywhere: nothing is written
// through it.
func TestApplyRefusesSymlinks(t *testing.T) {
	dir := skillsCopy(t)
	outside := t.TempDir()
	refs := filepath.Join(dir, "triage-bug", "references")
	if err := os.RemoveAll(refs); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, refs); err != nil {
		t.Fatal(err)
	}
	_, err := applyFixture(t, "revise.json", dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "rule safe-paths: triage-bug/references is a symlink") {
		t.Fatalf("error %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("wrote through the symlink: %v", entries)
	}
}

// A failure while moving files into place puts back every file already
// moved: all or nothing.
func TestWriteIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "s"), 0o755)
	os.WriteFile(filepath.Join(dir, "s", "SKILL.md"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dir, "s", "x"), []byte("a file"), 0o644)
	before := snapshot(t, dir)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	err = write(root, []pending{
		{path: "s/SKILL.md", data: []byte("new"), mode: 0o644, existed: true},
		{path: "s/new/dir/file.md", data: []byte("added"), mode: 0o644},
		{path: "s/x/y.md", data: []byte("cannot be: s/x is a file"), mode: 0o644},
	})
	if err == nil {
		t.Fatal("the write succeeded")
	}
	if got := snapshot(t, dir); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("after a failed write:\n%v\nwant\n%v", got, before)
	}
}

// A proposal that plants a repository in the skill's folder is refused
// whole: its SKILL.md change is not written either.
func TestApplyRefusesPlantedRepository(t *testing.T) {
	t.Parallel()
	dir := skillsCopy(t)
	before := snapshot(t, dir)
	skillMD, err := os.ReadFile(filepath.Join(dir, "triage-bug", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	p := &Proposal{Summary: "plant a repository", Operation: Revise, Files: map[string]string{
		"triage-bug/SKILL.md":    string(skillMD) + "\n4. Look again.\n",
		"triage-bug/.git/config": "[core]\n\tfsmonitor = \"touch ../../pwned; false\"\n",
		"triage-bug/.git/HEAD":   "ref: refs/heads/main\n",
	}}
	_, err = Apply(p, Options{SkillsDir: dir, Today: time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)})
	if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), `rule safe-paths: path "triage-bug/.git/config": ".git" starts with "."`) {
		t.Fatalf("error %v, want a safe-paths rejection naming .git/config", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "triage-bug", ".git")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the skill's folder has a .git: %v", err)
	}
	if fmt.Sprint(snapshot(t, dir)) != fmt.Sprint(before) {
		t.Error("a rejected proposal wrote")
	}
}
