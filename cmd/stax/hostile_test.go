package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

// hostileProject is a project with a package directory to install, a
// skill of the user's in its skills folder, and a sentinel directory
// beside the project that nothing stax does may reach.
type hostileProject struct {
	root, project, source, skills, sentinel string
}

func newHostileProject(t *testing.T) *hostileProject {
	t.Helper()
	root := t.TempDir()
	h := &hostileProject{
		root:     root,
		project:  filepath.Join(root, "project"),
		source:   filepath.Join(root, "source"),
		sentinel: filepath.Join(root, "victim"),
	}
	h.skills = filepath.Join(h.project, ".claude", "skills")
	filetest.WriteFile(t, filepath.Join(h.source, "stax.yaml"), "name: src\nversion: 1.0.0\n")
	writeSkillFiles(t, filepath.Join(h.source, "skills"), map[string]string{"good/SKILL.md": skillMD("good", "Good.")})
	filetest.WriteFile(t, filepath.Join(h.sentinel, "precious.txt"), "do not touch\n")
	filetest.WriteFile(t, filepath.Join(h.skills, "mine", "SKILL.md"), skillMD("mine", "The user's own."))
	filetest.WriteFile(t, filepath.Join(h.project, "stax.yaml"), "name: project\nversion: 0.1.0\n")
	return h
}

// untouched asserts the sentinel and the user's own skill are byte for
// byte as they were.
func (h *hostileProject) untouched(t *testing.T, sentinel, mine map[string]string) {
	t.Helper()
	if got := treeState(t, h.sentinel); fmt.Sprint(got) != fmt.Sprint(sentinel) {
		t.Errorf("the sentinel outside the folder changed:\n%v\nwant\n%v", got, sentinel)
	}
	if got := treeState(t, filepath.Join(h.skills, "mine")); fmt.Sprint(got) != fmt.Sprint(mine) {
		t.Errorf("the user's own skill changed:\n%v\nwant\n%v", got, mine)
	}
}

func record(keys ...string) string {
	var parts []string
	for _, k := range keys {
		key, _ := json.Marshal(k)
		parts = append(parts, fmt.Sprintf(`%s: {"package": "x", "digest": "sha256:%s", "files": {"SKILL.md": "644 sha256:%s"}}`,
			key, strings.Repeat("a", 64), strings.Repeat("b", 64)))
	}
	return `{"installedBy": "stax", "skills": {` + strings.Join(parts, ", ") + `}}`
}

// A crafted install record (a file projects commit, so a pull request can
// plant it) must not make install or uninstall remove anything: not a
// directory outside the folder, not the folder, not the user's own skill.
func TestHostileRecordsRemoveNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, record string
		code         int
	}{
		{"traversal", record("../../../victim"), 2},
		{"deep traversal", record("../../../../../../../../victim"), 2},
		{"empty key", record(""), 2},
		{"dot key", record("."), 2},
		{"dot-dot key", record(".."), 2},
		{"option-like key", record("-rf"), 2},
		{"hidden key", record(".git"), 2},
		{"reserved key", record(".stax-install.json"), 2},
		{"separator key", record("mine/../../../victim"), 2},
		{"nul key", record("a\x00b"), 2},
		{"the user's own skill", record("mine"), 5},
	}
	for _, tc := range cases {
		for _, cmd := range []string{"install", "uninstall"} {
			t.Run(tc.name+"/"+cmd, func(t *testing.T) {
				useHome(t)
				h := newHostileProject(t)
				if tc.name == "traversal" || tc.name == "deep traversal" {
					// Make the traversal land on the sentinel.
					filetest.WriteFile(t, filepath.Join(h.skills, RecordFileForTest), strings.ReplaceAll(tc.record, "../../../victim", relTo(t, h.skills, h.sentinel)))
				} else {
					filetest.WriteFile(t, filepath.Join(h.skills, RecordFileForTest), tc.record)
				}
				sentinel, mine := treeState(t, h.sentinel), treeState(t, filepath.Join(h.skills, "mine"))
				args := []string{cmd, "--dir", h.project}
				if cmd == "install" {
					args = []string{cmd, h.source, "--dir", h.project}
				}
				r := runStax(t, args...)
				if r.Code != tc.code {
					t.Errorf("exit %d, want %d: %s", r.Code, tc.code, r.Stderr)
				}
				if tc.code == 2 && !strings.Contains(r.Stderr, RecordFileForTest) {
					t.Errorf("the message does not name the record: %s", r.Stderr)
				}
				h.untouched(t, sentinel, mine)
			})
		}
	}
}

// relTo is target relative to dir, for a record key that reaches it.
func relTo(t *testing.T, dir, target string) string {
	rel, err := filepath.Rel(dir, target)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// A skills folder that is a symbolic link out of the project is refused:
// nothing is installed or removed where it points.
func TestSymlinkedSkillsFolderIsRefused(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"install", "uninstall"} {
		t.Run(cmd, func(t *testing.T) {
			useHome(t)
			h := newHostileProject(t)
			// The folder becomes a link to the sentinel, which holds a
			// record naming its own content.
			if err := os.RemoveAll(h.skills); err != nil {
				t.Fatal(err)
			}
			filetest.WriteFile(t, filepath.Join(h.sentinel, "good", "SKILL.md"), "victim's\n")
			filetest.WriteFile(t, filepath.Join(h.sentinel, RecordFileForTest), record("good"))
			if err := os.Symlink(h.sentinel, h.skills); err != nil {
				t.Fatal(err)
			}
			sentinel := treeState(t, h.sentinel)
			args := []string{cmd, "--dir", h.project, "--force"}
			if cmd == "install" {
				args = []string{cmd, h.source, "--dir", h.project, "--force"}
			}
			r := runStax(t, args...)
			if r.Code != 2 || !strings.Contains(r.Stderr, "symbolic link") {
				t.Errorf("exit %d, want 2: %s", r.Code, r.Stderr)
			}
			if got := treeState(t, h.sentinel); fmt.Sprint(got) != fmt.Sprint(sentinel) {
				t.Errorf("the folder the link points to changed:\n%v", got)
			}
		})
	}
}

// A stax.lock naming a skill with an unsafe name is refused, naming the file.
func TestHostileLockIsRefused(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"../../victim", "", ".git", "-rf"} {
		t.Run(name, func(t *testing.T) {
			useHome(t)
			h := newHostileProject(t)
			filetest.WriteFile(t, filepath.Join(h.project, "stax.yaml"), "name: project\nversion: 0.1.0\ninstall:\n  sources: ["+h.source+"]\n")
			filetest.WriteFile(t, filepath.Join(h.project, "stax.lock"), fmt.Sprintf("lockVersion: 1\nsources: [%s]\npackages:\n  - ref: %s\n    digest: sha256:%s\n    skills:\n      - path: %q\n        digest: sha256:%s\n",
				h.source, h.source, strings.Repeat("a", 64), name, strings.Repeat("b", 64)))
			sentinel, mine := treeState(t, h.sentinel), treeState(t, filepath.Join(h.skills, "mine"))
			r := runStax(t, "install", "--frozen", "--dir", h.project)
			if r.Code != 2 || !strings.Contains(r.Stderr, "stax.lock") {
				t.Errorf("exit %d, want 2 naming stax.lock: %s", r.Code, r.Stderr)
			}
			h.untouched(t, sentinel, mine)
		})
	}
}

// A package whose config names a skill as no directory may be named fails
// with exit 5 and writes nothing.
func TestHostilePackageNamesAreRefused(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	for i, name := range []string{".git", "-rf", ".stax-install.json", ".stax-staging-x", "..", "a/b", "evil\u202E"} {
		t.Run(name, func(t *testing.T) {
			h := newHostileProject(t)
			cfg := []byte(`{"adapter":{},"kind":"package","name":"evil","skills":[{"description":"x","digest":"` + goldenExamplesDigest +
				`","name":"x","path":"` + name + `"}],"specVersion":"1.0.0","version":"1"}`)
			ref := fmt.Sprintf("%s/evil%d/skills", reg.Host, i)
			pushRawPackage(t, ref, "1", cfg, pushed.Layers[0])
			before := treeState(t, h.skills)
			sentinel := treeState(t, h.sentinel)
			r := runStax(t, "install", ref+":1", "--dir", h.project, "--force")
			if r.Code != 5 || !strings.Contains(r.Stderr, "cannot be a skill directory name") {
				t.Errorf("exit %d, want 5: %s", r.Code, r.Stderr)
			}
			if got := treeState(t, h.skills); fmt.Sprint(got) != fmt.Sprint(before) {
				t.Errorf("the folder changed: %v", got)
			}
			if got := treeState(t, h.sentinel); fmt.Sprint(got) != fmt.Sprint(sentinel) {
				t.Errorf("the sentinel changed")
			}
		})
	}
}

// A stax.lock that cannot be written rolls the skills back: what install
// guarantees (docs/layering-and-install.md) is that the lock describes what
// is installed. A directory there is not a regular file, refused (exit 1)
// when the install reads the lock it replaces, as install --frozen
// refuses it.
func TestLockWriteFailureRollsBack(t *testing.T) {
	t.Parallel()
	useHome(t)
	h := newHostileProject(t)
	// A directory where stax.lock goes: no rename can replace it.
	filetest.WriteFile(t, filepath.Join(h.project, "stax.lock", "keep"), "x\n")
	before := treeState(t, h.skills)
	r := runStax(t, "install", h.source, "--dir", h.project)
	if r.Code != 1 || !strings.Contains(r.Stderr, "stax.lock is not a regular file (a directory)") {
		t.Errorf("exit %d, want 1: %s", r.Code, r.Stderr)
	}
	if got := treeState(t, h.skills); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("skills stayed installed without a lock:\n%v", got)
	}
}

// uninstall does not delete a skill the user changed: it fails naming the
// files; --keep leaves it as the user's own; --force moves it to a backup.
func TestUninstallKeepsTheUsersEdits(t *testing.T) {
	t.Parallel()
	useHome(t)
	h := newHostileProject(t)
	if r := runStax(t, "install", h.source, "--dir", h.project); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	memory := filepath.Join(h.skills, "good", "MEMORY.md")
	filetest.WriteFile(t, memory, "- learned something\n")
	before := treeState(t, h.skills)
	r := runStax(t, "uninstall", "--dir", h.project)
	if r.Code != 5 || !strings.Contains(r.Stderr, "good: added MEMORY.md") || !strings.Contains(r.Stderr, "--keep") {
		t.Fatalf("uninstall of a changed skill: exit %d %s", r.Code, r.Stderr)
	}
	if got := treeState(t, h.skills); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatal("a refused uninstall changed the folder")
	}
	if r := runStax(t, "uninstall", "--dir", h.project, "--keep", "good"); r.Code != 0 {
		t.Fatalf("--keep: %d %s", r.Code, r.Stderr)
	}
	if data, _ := os.ReadFile(memory); string(data) != "- learned something\n" {
		t.Error("--keep lost the user's edit")
	}
	if _, err := os.Stat(filepath.Join(h.skills, RecordFileForTest)); !os.IsNotExist(err) {
		t.Error("the kept skill is still recorded")
	}

	// Installed again over the kept copy, with --force: backed up.
	if r := runStax(t, "install", h.source, "--dir", h.project, "--force"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	filetest.WriteFile(t, memory, "- learned more\n")
	r = runStax(t, "uninstall", "--dir", h.project, "--force")
	if r.Code != 0 || !strings.Contains(r.Stderr, filepath.Join(h.project, ".stax", "backup")) {
		t.Fatalf("--force: exit %d %s", r.Code, r.Stderr)
	}
	backups, _ := filepath.Glob(filepath.Join(h.project, ".stax", "backup", "*", ".claude", "skills", "good", "MEMORY.md"))
	// One from install --force replacing the kept copy, one from
	// uninstall --force.
	var held []string
	for _, b := range backups {
		data, _ := os.ReadFile(b)
		held = append(held, string(data))
	}
	slices.Sort(held)
	if strings.Join(held, "") != "- learned more\n- learned something\n" {
		t.Errorf("backups hold %q", held)
	}
	if _, err := os.Stat(filepath.Join(h.skills, "good")); !os.IsNotExist(err) {
		t.Error("--force left the skill")
	}
}

// A project's skill directories obey the name rule too: pack refuses
// them (exit 1) rather than publish what installs would refuse.
func TestPackRefusesUnsafeSkillDirectories(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"-rf", ".hidden", ".stax-staging-x"} {
		t.Run(name, func(t *testing.T) {
			useHome(t)
			src := t.TempDir()
			filetest.WriteFile(t, filepath.Join(src, "stax.yaml"), "name: x\nversion: 1.0.0\n")
			writeSkillFiles(t, filepath.Join(src, "skills"), map[string]string{name + "/SKILL.md": skillMD("x", "X.")})
			r := runStax(t, "pack", src)
			if r.Code != 1 || !strings.Contains(r.Stderr, "skill directory name") {
				t.Errorf("exit %d: %s", r.Code, r.Stderr)
			}
		})
	}
}

// TestVerifyInstalledRefusesSymlinkedFolder: a skills folder that is a
// symbolic link out of the project, which install refuses, is not
// reported verified, even when what it points to matches its record.
func TestVerifyInstalledRefusesSymlinkedFolder(t *testing.T) {
	t.Parallel()
	useHome(t)
	h := newHostileProject(t)
	if r := runStax(t, "install", h.source, "--dir", h.project, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "verify", "--installed", "--dir", h.project, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("verify a clean install: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	// The installed folder, record and all, moves out of the project and
	// a link to it takes its place.
	outside := filepath.Join(h.root, "elsewhere")
	if err := os.Rename(h.skills, outside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, h.skills); err != nil {
		t.Fatal(err)
	}
	r := runStax(t, "verify", "--installed", "--dir", h.project, "--runtime", "claude-code")
	if r.Code != 6 || !strings.Contains(r.Stderr, "symbolic link") || !strings.Contains(r.Stderr, h.skills) {
		t.Errorf("verify through a link out of the project: exit %d, want 6 naming the link: %s %s", r.Code, r.Stdout, r.Stderr)
	}
}
