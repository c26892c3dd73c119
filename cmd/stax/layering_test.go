package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/workflow"
)

// writeTree writes files (slash paths; a "#!" file is made executable).
func writeSkillFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		path := filepath.Join(root, filepath.FromSlash(p))
		filetest.WriteFile(t, path, body)
		if strings.HasPrefix(body, "#!") {
			if err := os.Chmod(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func skillMD(name, body string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill. Use when testing layering.\n---\n" + body + "\n"
}

// treeState lists a tree as path → mode and content, directories included.
func treeState(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if info.IsDir() {
			out[rel+"/"] = "dir"
			return nil
		}
		data, _ := os.ReadFile(p)
		if info.Name() == install.RecordFile {
			data = withoutStat(t, data)
		}
		out[rel] = fmt.Sprintf("%o %s", info.Mode().Perm(), data)
		return nil
	})
	return out
}

// withoutStat is an install record without the files' sizes and times,
// which differ between two installs of the same content.
func withoutStat(t *testing.T, data []byte) []byte {
	t.Helper()
	var rec install.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return data
	}
	for name, s := range rec.Skills {
		s.Stat = nil
		rec.Skills[name] = s
	}
	out, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sortedKeys2(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// layering publishes an org package, a team package depending on it, and
// a project directory depending on the team package.
type layering struct {
	reg              *registrytest.Registry
	org, team        string
	orgDir, project  string
	orgSkills, teams map[string]string
}

func newLayering(t *testing.T) *layering {
	t.Helper()
	l := &layering{reg: registrytest.New(t)}
	l.org = l.reg.Host + "/org/skills:2.0.0"
	l.team = l.reg.Host + "/team/skills:1.4.0"
	root := t.TempDir()

	l.orgDir = filepath.Join(root, "org")
	filetest.WriteFile(t, filepath.Join(l.orgDir, "stax.yaml"), "name: org-skills\nversion: 2.0.0\n")
	l.orgSkills = map[string]string{
		"review-pr/SKILL.md":                skillMD("review-pr", "Org review. See references/checklist.md and run scripts/old.sh."),
		"review-pr/references/checklist.md": "org checklist\n",
		"review-pr/scripts/old.sh":          "#!/bin/sh\necho org\n",
		"deploy/SKILL.md":                   skillMD("deploy", "Org deploy with assets/a.txt."),
		"deploy/assets/a.txt":               "org asset\n",
		"lint/SKILL.md":                     skillMD("lint", "Org lint in ${STAX_SKILL_DIR} of ${STAX_WORKSPACE}, args \\$ARGUMENTS $ARGUMENTS."),
	}
	writeSkillFiles(t, filepath.Join(l.orgDir, "skills"), l.orgSkills)
	if r := runStax(t, "push", l.orgDir, l.org); r.Code != 0 {
		t.Fatalf("push org: %s", r.Stderr)
	}

	teamDir := filepath.Join(root, "team")
	filetest.WriteFile(t, filepath.Join(teamDir, "stax.yaml"), "name: team-skills\nversion: 1.4.0\npackages:\n  - "+l.org+"\n")
	l.teams = map[string]string{
		"review-pr/SKILL.md":          skillMD("review-pr", "Team review with templates/t.md."),
		"review-pr/templates/t.md":    "team template\n",
		"team-only/SKILL.md":          skillMD("team-only", "Team only."),
		"team-only/scripts/run.sh":    "#!/bin/sh\necho team\n",
		"team-only/references/ref.md": "ref\n",
	}
	writeSkillFiles(t, filepath.Join(teamDir, "skills"), l.teams)
	if r := runStax(t, "push", teamDir, l.team); r.Code != 0 {
		t.Fatalf("push team: %s", r.Stderr)
	}

	l.project = filepath.Join(root, "project")
	filetest.WriteFile(t, filepath.Join(l.project, "stax.yaml"), "name: project\nversion: 0.1.0\npackages:\n  - "+l.team+
		"\ninstall:\n  sources: [\".\"]\n  runtimes: [claude-code]\n")
	writeSkillFiles(t, filepath.Join(l.project, "skills"), map[string]string{
		"deploy/SKILL.md":          skillMD("deploy", "Project deploy with scripts/deploy.sh."),
		"deploy/scripts/deploy.sh": "#!/bin/sh\necho project\n",
	})
	return l
}

func (l *layering) install(t *testing.T, args ...string) (result, workflow.InstallResult) {
	t.Helper()
	r := runStax(t, append([]string{"install", "--dir", l.project, "--output", "json"}, args...)...)
	var out workflow.InstallResult
	if r.Code == 0 {
		decodeJSON(t, r.Stdout, &out)
	}
	return r, out
}

func TestInstallLayersOrgTeamProject(t *testing.T) {
	t.Parallel()
	useHome(t)
	l := newLayering(t)
	r, out := l.install(t)
	if r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	installed := filepath.Join(l.project, ".claude", "skills")

	// The merged tree, byte for byte: team's review-pr (none of org's files),
	// the project's deploy (none of org's), org's lint, team's team-only.
	want := map[string]string{}
	add := func(files map[string]string, skills ...string) {
		for p, body := range files {
			for _, s := range skills {
				if strings.HasPrefix(p, s+"/") {
					mode := "644"
					if strings.HasPrefix(body, "#!") {
						mode = "755"
					}
					want[filepath.FromSlash(p)] = mode + " " + body
				}
			}
		}
	}
	add(l.teams, "review-pr", "team-only")
	add(map[string]string{
		"deploy/SKILL.md":          skillMD("deploy", "Project deploy with scripts/deploy.sh."),
		"deploy/scripts/deploy.sh": "#!/bin/sh\necho project\n",
	}, "deploy")
	add(l.orgSkills, "lint")
	// Project scope writes the paths relative to the project, the same in
	// every clone.
	want["lint/SKILL.md"] = "644 " + skillMD("lint", "Org lint in .claude/skills/lint of ., args \\$ARGUMENTS $ARGUMENTS.")
	got := treeState(t, installed)
	for p := range got {
		if strings.HasSuffix(p, "/") || strings.HasPrefix(p, ".stax-install") {
			delete(got, p)
		}
	}
	for _, p := range sortedKeys2(want) {
		if got[p] != want[p] {
			t.Errorf("%s:\n got %q\nwant %q", p, got[p], want[p])
		}
	}
	for _, p := range sortedKeys2(got) {
		if _, ok := want[p]; !ok {
			t.Errorf("unexpected file %s (a losing skill's file survived?)", p)
		}
	}

	// Provenance and override warnings.
	from := map[string]string{}
	for _, s := range out.Skills {
		from[s.Path] = s.Package
	}
	if from["review-pr"] != l.team || from["deploy"] != "." || from["lint"] != l.org {
		t.Errorf("provenance: %v", from)
	}
	wantOverrides := []string{
		"skill review-pr: " + l.team + " (direct, 1st) over " + l.org + " (transitive via " + l.team + ")",
		"skill deploy: . (own content) over " + l.org + " (transitive via " + l.team + ")",
	}
	if strings.Join(out.Overrides, "\n") != strings.Join(wantOverrides, "\n") {
		t.Errorf("overrides:\n%s\nwant\n%s", strings.Join(out.Overrides, "\n"), strings.Join(wantOverrides, "\n"))
	}

	// The lock: every package, sorted, no timestamps.
	lockData, err := os.ReadFile(filepath.Join(l.project, "stax.lock"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"ref: .\n", "ref: " + l.org, "ref: " + l.team, "path: review-pr", "path: lint"} {
		if !strings.Contains(string(lockData), s) {
			t.Errorf("stax.lock lacks %q:\n%s", s, lockData)
		}
	}
	if strings.Contains(string(lockData), "2026-") || strings.Index(string(lockData), "ref: .") > strings.Index(string(lockData), "ref: "+l.org) {
		t.Errorf("stax.lock is not sorted or carries a timestamp:\n%s", lockData)
	}

	// Re-install is a no-op.
	before := treeState(t, installed)
	r, again := l.install(t)
	if r.Code != 0 || again.LockChanged || len(again.Targets[0].Unchanged) != 4 || len(again.Targets[0].Updated)+len(again.Targets[0].Installed) != 0 {
		t.Errorf("re-install: %d %+v %s", r.Code, again.Targets, r.Stderr)
	}
	after := treeState(t, installed)
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Error("re-install changed the installed tree")
	}
	lockAgain, _ := os.ReadFile(filepath.Join(l.project, "stax.lock"))
	if string(lockAgain) != string(lockData) {
		t.Error("re-install rewrote stax.lock differently")
	}

	// verify --installed: clean, then each kind of drift exits 6.
	if r := runStax(t, "verify", "--installed", "--dir", l.project); r.Code != 0 {
		t.Errorf("verify clean: %d %s", r.Code, r.Stdout)
	}
	filetest.WriteFile(t, filepath.Join(installed, "lint", "SKILL.md"), "tampered\n")
	filetest.WriteFile(t, filepath.Join(installed, "deploy", "extra.md"), "added\n")
	os.Remove(filepath.Join(installed, "team-only", "references", "ref.md"))
	r = runStax(t, "verify", "--installed", "--dir", l.project)
	for _, s := range []string{"skill lint: changed SKILL.md", "skill deploy: added extra.md", "skill team-only: removed references/ref.md"} {
		if !strings.Contains(r.Stdout, s) {
			t.Errorf("verify output lacks %q:\n%s", s, r.Stdout)
		}
	}
	if r.Code != 6 {
		t.Errorf("verify with drift: exit %d", r.Code)
	}
	// Installing again does not discard the changes: it names them and
	// the way out, and changes nothing.
	drifted := treeState(t, installed)
	if r, _ := l.install(t); r.Code != 5 || !strings.Contains(r.Stderr, "lint: changed SKILL.md") || !strings.Contains(r.Stderr, "--force") ||
		strings.Contains(r.Stderr, "uninstall --keep") {
		t.Fatalf("install over changed skills: exit %d %s", r.Code, r.Stderr)
	}
	if fmt.Sprint(treeState(t, installed)) != fmt.Sprint(drifted) {
		t.Error("a refused install changed the folder")
	}
	// --force repairs them, keeping the changed copies in a backup.
	r, forced := l.install(t, "--force")
	if r.Code != 0 || len(forced.Targets[0].Backups) != 3 {
		t.Fatalf("--force: %d %+v %s", r.Code, forced.Targets, r.Stderr)
	}
	if data, err := os.ReadFile(filepath.Join(forced.Targets[0].Backups[1], "SKILL.md")); err != nil || string(data) != "tampered\n" {
		t.Errorf("backup of lint: %q %v (backups %v)", data, err, forced.Targets[0].Backups)
	}
	if !strings.Contains(r.Stderr, filepath.Join(l.project, ".stax", "backup")) {
		t.Errorf("the message does not say where the backup is: %s", r.Stderr)
	}
	if r := runStax(t, "verify", "--installed", "--dir", l.project); r.Code != 0 {
		t.Errorf("verify after repair: %d %s", r.Code, r.Stdout)
	}
}

func TestInstallProtectsTheUsersSkills(t *testing.T) {
	t.Parallel()
	useHome(t)
	l := newLayering(t)
	installed := filepath.Join(l.project, ".claude", "skills")
	filetest.WriteFile(t, filepath.Join(installed, "my-own", "SKILL.md"), "mine\n")
	filetest.WriteFile(t, filepath.Join(installed, "lint", "SKILL.md"), "my lint\n")
	before := treeState(t, installed)

	r, _ := l.install(t)
	if r.Code != 5 || !strings.Contains(r.Stderr, "lint") || !strings.Contains(r.Stderr, "--force") {
		t.Fatalf("install over a user's skill: exit %d %s", r.Code, r.Stderr)
	}
	if fmt.Sprint(treeState(t, installed)) != fmt.Sprint(before) {
		t.Error("a refused install changed the folder")
	}

	r, out := l.install(t, "--force")
	if r.Code != 0 || len(out.Targets[0].Replaced) != 1 {
		t.Fatalf("--force: %d %+v %s", r.Code, out.Targets, r.Stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(installed, "my-own", "SKILL.md")); string(data) != "mine\n" {
		t.Error("the user's own skill was touched")
	}

	r = runStax(t, "uninstall", "--dir", l.project)
	if r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	entries, _ := os.ReadDir(installed)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "my-own" {
		t.Errorf("after uninstall: %v", names)
	}
}

func TestInstallPrunesRemovedSources(t *testing.T) {
	t.Parallel()
	useHome(t)
	l := newLayering(t)
	installed := filepath.Join(l.project, ".claude", "skills")
	// install.sources edited by hand: the sources listed are the whole
	// install.
	sources := func(refs ...string) {
		t.Helper()
		filetest.WriteFile(t, filepath.Join(l.project, "stax.yaml"), "install:\n  sources: ["+strings.Join(refs, ", ")+"]\n  runtimes: [claude-code]\n")
	}
	sources(l.org, l.team)
	if r, _ := l.install(t); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(installed, "team-only")); err != nil {
		t.Fatal("team-only not installed")
	}
	sources(l.org)
	r, out := l.install(t)
	if r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	if strings.Join(out.Targets[0].Removed, ",") != "team-only" {
		t.Errorf("removed %v", out.Targets[0].Removed)
	}
	if _, err := os.Stat(filepath.Join(installed, "team-only")); !os.IsNotExist(err) {
		t.Error("team-only still installed")
	}
	// review-pr is org's again, whole: its checklist is back, team's template gone.
	if _, err := os.Stat(filepath.Join(installed, "review-pr", "references", "checklist.md")); err != nil {
		t.Error("org's review-pr is not whole")
	}
	if _, err := os.Stat(filepath.Join(installed, "review-pr", "templates")); !os.IsNotExist(err) {
		t.Error("team's review-pr files survived")
	}
}

func TestFrozenInstall(t *testing.T) {
	t.Parallel()
	useHome(t)
	l := newLayering(t)
	installed := filepath.Join(l.project, ".claude", "skills")
	if r, _ := l.install(t); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	locked := treeState(t, installed)

	// Move the team tag to new content.
	moved := t.TempDir()
	filetest.WriteFile(t, filepath.Join(moved, "stax.yaml"), "name: team-skills\nversion: 1.4.0\n")
	writeSkillFiles(t, filepath.Join(moved, "skills"), map[string]string{"review-pr/SKILL.md": skillMD("review-pr", "Moved tag.")})
	if r := runStax(t, "push", moved, l.team); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	os.RemoveAll(installed)
	useHome(t) // a fresh CI machine: nothing cached

	r, _ := l.install(t, "--frozen")
	if r.Code != 0 {
		t.Fatalf("--frozen: %d %s", r.Code, r.Stderr)
	}
	if fmt.Sprint(treeState(t, installed)) != fmt.Sprint(locked) {
		t.Error("--frozen did not install the locked content")
	}
	// Without --frozen the moved tag wins, and the lock follows.
	if r, _ := l.install(t); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(installed, "review-pr", "SKILL.md")); !strings.Contains(string(data), "Moved tag.") {
		t.Error("a plain install did not follow the moved tag")
	}
	// stax.yaml naming a source the lock lacks.
	filetest.WriteFile(t, filepath.Join(l.project, "stax.yaml"), "name: project\nversion: 0.1.0\npackages:\n  - "+l.team+
		"\ninstall:\n  sources: [\".\", \""+l.org+"\"]\n")
	r, _ = l.install(t, "--frozen")
	if r.Code != 4 || !strings.Contains(r.Stderr, l.org) || !strings.Contains(r.Stderr, "lacks") {
		t.Errorf("--frozen with a new source: %d %s", r.Code, r.Stderr)
	}
	os.Remove(filepath.Join(l.project, "stax.lock"))
	if r, _ := l.install(t, "--frozen"); r.Code != 4 || !strings.Contains(r.Stderr, "stax.lock") {
		t.Errorf("--frozen without a lock: %d %s", r.Code, r.Stderr)
	}
}

func TestFailedInstallLeavesThePreviousOne(t *testing.T) {
	t.Parallel()
	useHome(t)
	l := newLayering(t)
	installed := filepath.Join(l.project, ".claude", "skills")
	if r, _ := l.install(t); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	before := treeState(t, installed)
	lockBefore, _ := os.ReadFile(filepath.Join(l.project, "stax.lock"))

	// New content on the registry, whose blobs then stop coming: the pull
	// fails halfway, after manifests and configs resolved.
	moved := t.TempDir()
	filetest.WriteFile(t, filepath.Join(moved, "stax.yaml"), "name: team-skills\nversion: 1.4.0\n")
	writeSkillFiles(t, filepath.Join(moved, "skills"), map[string]string{"review-pr/SKILL.md": skillMD("review-pr", "New.")})
	if r := runStax(t, "push", moved, l.team); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	useHome(t)
	l.reg.AddFaults(registrytest.Fail(http.MethodGet, "/blobs/sha256:", http.StatusNotFound).Times(-1))
	r, _ := l.install(t)
	if r.Code != 3 {
		t.Fatalf("install with a failing registry: %d %s", r.Code, r.Stderr)
	}
	if fmt.Sprint(treeState(t, installed)) != fmt.Sprint(before) {
		t.Error("a failed install changed the installed skills")
	}
	if lockAfter, _ := os.ReadFile(filepath.Join(l.project, "stax.lock")); string(lockAfter) != string(lockBefore) {
		t.Error("a failed install changed stax.lock")
	}
	entries, _ := os.ReadDir(installed)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".stax-staging-") {
			t.Errorf("staging left behind: %s", e.Name())
		}
	}
}

func TestResolutionErrors(t *testing.T) {
	t.Parallel()
	useHome(t)
	root := t.TempDir()
	pkg := func(name string, deps ...string) string {
		dir := filepath.Join(root, name)
		def := "name: " + name + "\nversion: 1.0.0\n"
		if len(deps) > 0 {
			def += "packages:\n"
			for _, d := range deps {
				def += "  - " + d + "\n"
			}
		}
		filetest.WriteFile(t, filepath.Join(dir, "stax.yaml"), def)
		writeSkillFiles(t, filepath.Join(dir, "skills"), map[string]string{name + "/SKILL.md": skillMD(name, "x")})
		return dir
	}
	pkg("a", "../b")
	pkg("b", "../c")
	pkg("c", "../a")
	r := runStax(t, "pack", filepath.Join(root, "a"))
	if r.Code != 4 || !strings.Contains(r.Stderr, "dependency cycle: "+filepath.Join(root, "a")+" → ../b → ../c → ../a\n") {
		t.Errorf("cycle: %d %s", r.Code, r.Stderr)
	}

	for i := 0; i <= 33; i++ {
		deps := []string{}
		if i < 33 {
			deps = append(deps, fmt.Sprintf("../d%d", i+1))
		}
		pkg(fmt.Sprintf("d%d", i), deps...)
	}
	r = runStax(t, "pack", filepath.Join(root, "d0"))
	if r.Code != 4 || !strings.Contains(r.Stderr, "deeper than 32") || !strings.Contains(r.Stderr, "../d1 → ../d2") {
		t.Errorf("depth: %d %.300s", r.Code, r.Stderr)
	}

	// A diamond whose two sides recorded different digests of one tag.
	reg := registrytest.New(t)
	base := reg.Host + "/org/base:1.0"
	for i, side := range []string{"left", "right"} {
		if r := runStax(t, "push", pkg(fmt.Sprintf("base%d", i)), base); r.Code != 0 {
			t.Fatal(r.Stderr)
		}
		if r := runStax(t, "push", pkg(side, base), reg.Host+"/team/"+side+":1"); r.Code != 0 {
			t.Fatal(r.Stderr)
		}
	}
	r = runStax(t, "pull", reg.Host+"/team/left:1", reg.Host+"/team/right:1", "-o", filepath.Join(root, "out"))
	if r.Code != 4 || strings.Count(r.Stderr, "sha256:") < 2 || !strings.Contains(r.Stderr, base+" resolves to two digests") ||
		!strings.Contains(r.Stderr, "team/left:1 → "+base) || !strings.Contains(r.Stderr, "team/right:1 → "+base) || !strings.Contains(r.Stderr, "pin") {
		t.Errorf("diamond conflict: %d %s", r.Code, r.Stderr)
	}
}

// Every runtime's folder, for project and user scope, as the landscape
// notes give them (not read back from the table under test).
func TestInstallIntoEveryRuntime(t *testing.T) {
	home := useHome(t)
	t.Setenv("HOME", home)
	src := t.TempDir()
	writeSkillFiles(t, src, map[string]string{"tool-skill/SKILL.md": "---\nname: tool-skill\ndescription: Use when testing.\nallowed-tools:\n  - Read\nmodel: some-model\n---\nbody\n"})
	tests := []struct {
		runtime, project, user string
		ignores                bool
	}{
		{"claude-code", ".claude/skills", ".claude/skills", false},
		{"codex", ".agents/skills", ".agents/skills", true},
		{"cursor", ".cursor/skills", ".cursor/skills", true},
		{"github-copilot", ".github/skills", ".copilot/skills", true},
		{"opencode", ".opencode/skills", ".config/opencode/skills", true},
		{"gemini", ".gemini/skills", ".gemini/skills", true},
		{"windsurf", ".windsurf/skills", ".codeium/windsurf/skills", true},
		{"goose", ".agents/skills", ".agents/skills", true},
		{"agents", ".agents/skills", ".agents/skills", true},
	}
	for _, tt := range tests {
		for _, scope := range []string{"project", "user"} {
			t.Run(tt.runtime+"/"+scope, func(t *testing.T) {
				proj := t.TempDir()
				r := runStax(t, "install", src, "--dir", proj, "--runtime", tt.runtime, "--scope", scope, "--output", "json")
				if r.Code != 0 {
					t.Fatalf("install: %d %s", r.Code, r.Stderr)
				}
				base, rel := proj, tt.project
				if scope == "user" {
					base, rel = home, tt.user
				}
				dir := filepath.Join(base, filepath.FromSlash(rel))
				if _, err := os.Stat(filepath.Join(dir, "tool-skill", "SKILL.md")); err != nil {
					t.Errorf("not installed in %s: %v", dir, err)
				}
				var out workflow.InstallResult
				decodeJSON(t, r.Stdout, &out)
				var messages []string
				for _, w := range out.Warnings {
					messages = append(messages, w.Message)
				}
				all := strings.Join(messages, "\n")
				warned := strings.Contains(all, "skill tool-skill:") && strings.Contains(all, "allowed-tools") && strings.Contains(all, "model")
				if warned != tt.ignores {
					t.Errorf("warnings %v, want a warning about allowed-tools and model: %v", out.Warnings, tt.ignores)
				}
				if r := runStax(t, "uninstall", "--dir", proj, "--runtime", tt.runtime, "--scope", scope); r.Code != 0 {
					t.Fatal(r.Stderr)
				}
				if _, err := os.Stat(filepath.Join(dir, "tool-skill")); !os.IsNotExist(err) {
					t.Errorf("uninstall left %s", dir)
				}
			})
		}
	}
}

func TestPullMergesInOrder(t *testing.T) {
	t.Parallel()
	useHome(t)
	l := newLayering(t)
	out := filepath.Join(t.TempDir(), "merged")
	r := runStax(t, "pull", l.team, l.org, "-o", out, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("pull: %d %s", r.Code, r.Stderr)
	}
	var res workflow.PullResult
	decodeJSON(t, r.Stdout, &res)
	// org named last wins review-pr over team, though team depends on it.
	data, _ := os.ReadFile(filepath.Join(out, "review-pr", "SKILL.md"))
	if !strings.Contains(string(data), "Org review") {
		t.Errorf("review-pr is not org's: %s", data)
	}
	if _, err := os.Stat(filepath.Join(out, "review-pr", "templates")); !os.IsNotExist(err) {
		t.Error("team's files survived beside org's review-pr")
	}
	raw, _ := json.Marshal(res.Overrides)
	if !strings.Contains(string(raw), "skill review-pr: "+l.org+" (direct, 2nd) over "+l.team+" (direct, 1st)") {
		t.Errorf("overrides %s", raw)
	}
}

// An install into several runtimes is all or nothing: a user's skill in
// the second folder stops it before the first is touched.
func TestInstallIntoSeveralRuntimesIsAllOrNothing(t *testing.T) {
	t.Parallel()
	useHome(t)
	l := newLayering(t)
	if r, _ := l.install(t, "--runtime", "claude-code,cursor"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	claude := filepath.Join(l.project, ".claude", "skills")
	before := treeState(t, claude)
	lockBefore, _ := os.ReadFile(filepath.Join(l.project, "stax.lock"))

	writeSkillFiles(t, filepath.Join(l.project, "skills"), map[string]string{"newskill/SKILL.md": skillMD("newskill", "new")})
	filetest.WriteFile(t, filepath.Join(l.project, ".cursor", "skills", "newskill", "SKILL.md"), "the user's own\n")
	r, _ := l.install(t, "--runtime", "claude-code,cursor")
	if r.Code != 5 || !strings.Contains(r.Stderr, "newskill") {
		t.Fatalf("exit %d %s", r.Code, r.Stderr)
	}
	if fmt.Sprint(treeState(t, claude)) != fmt.Sprint(before) {
		t.Error("the first runtime's folder changed though the install failed")
	}
	if lockAfter, _ := os.ReadFile(filepath.Join(l.project, "stax.lock")); string(lockAfter) != string(lockBefore) {
		t.Error("stax.lock changed though the install failed")
	}
	if r := runStax(t, "verify", "--installed", "--dir", l.project, "--runtime", "claude-code"); r.Code != 0 {
		t.Errorf("verify after the failed install: %d %s", r.Code, r.Stdout)
	}
}

// Dependencies in OCI layouts: a package built on one, consumed from
// another layout, with its dependency pinned by tag and digest.
func TestLayoutDependencies(t *testing.T) {
	t.Parallel()
	useHome(t)
	root := t.TempDir()
	org := filepath.Join(root, "org")
	filetest.WriteFile(t, filepath.Join(org, "stax.yaml"), "name: org\nversion: 1.0.0\n")
	writeSkillFiles(t, filepath.Join(org, "skills"), map[string]string{"lint/SKILL.md": skillMD("lint", "org lint")})
	if r := runStax(t, "pack", org, "-t", "oci:"+filepath.Join(root, "org-oci")+":1.0.0"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	team := filepath.Join(root, "team")
	filetest.WriteFile(t, filepath.Join(team, "stax.yaml"), "name: team\nversion: 1.0.0\npackages:\n  - oci:"+filepath.Join(root, "org-oci")+":1.0.0\n")
	writeSkillFiles(t, filepath.Join(team, "skills"), map[string]string{"review/SKILL.md": skillMD("review", "team review")})
	if r := runStax(t, "pack", team, "-t", "oci:"+filepath.Join(root, "team-oci")+":1.0.0"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	out := filepath.Join(root, "out")
	r := runStax(t, "pull", "oci:"+filepath.Join(root, "team-oci")+":1.0.0", "-o", out)
	if r.Code != 0 {
		t.Fatalf("pull through a layout dependency: %d %s", r.Code, r.Stderr)
	}
	for _, s := range []string{"lint", "review"} {
		if _, err := os.Stat(filepath.Join(out, s, "SKILL.md")); err != nil {
			t.Errorf("%s missing: %v", s, err)
		}
	}

	missing := filepath.Join(root, "nowhere")
	r = runStax(t, "pull", "oci:"+missing+":1")
	if r.Code != 2 || !strings.Contains(r.Stderr, "no OCI layout at "+missing) || !strings.Contains(r.Stderr, "name the directory of an OCI layout") {
		t.Errorf("missing layout: exit %d, want 2 (the file system's), the path and the fix\n%s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Error("reading a missing layout created it")
	}
}

// A layout stax.yaml names by a relative path is the project's: stax
// install --dir PROJECT from another directory finds it there, as a
// package directory named so is, and never a layout of that name in the
// directory it runs in.
func TestRelativeLayoutOfStaxYAMLIsTheProjects(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	proj := t.TempDir()
	src := packLayout(t, filepath.Join(proj, "lay"), "lint")
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  runtimes: [claude-code]\n  sources: ['oci:./lay:1.0.0']\n")
	// The test runs in cmd/stax, not in the project.
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install --dir %s of oci:./lay from another directory: exit %d\n%s", proj, r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(proj, ".claude", "skills", "lint", "SKILL.md")); err != nil {
		t.Errorf("the skill of the project's layout is not installed: %v", err)
	}
	if r := runStax(t, "install", "--frozen", "--dir", proj); r.Code != 0 {
		t.Errorf("install --frozen --dir %s: exit %d\n%s", proj, r.Code, r.Stderr)
	}

	// A relative layout on the command line is taken from where stax
	// runs, and saved in stax.yaml relative to the project.
	other := t.TempDir()
	if r := runStax(t, "pack", src, "-t", "oci:"+filepath.Join(other, "lay")+":1.0.0"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	proj2 := t.TempDir()
	// In a process of its own, which runs in other.
	cmd := staxCommand(t, []string{"STAX_HOME=" + home}, "install", "oci:./lay:1.0.0", "--dir", proj2, "--runtime", "claude-code")
	cmd.Dir = other
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install oci:./lay --dir %s run in %s: %v\n%s", proj2, other, err, out)
	}
	if r := runStax(t, "install", "--dir", proj2); r.Code != 0 {
		t.Errorf("install --dir %s of the stax.yaml it wrote: exit %d\n%s", proj2, r.Code, r.Stderr)
	}
}

// stax remove finds a layout stax.yaml lists by its directory, however
// either spells the path: the command line's oci:lay is saved as
// oci:./lay, and a stax.yaml written by hand or by an older stax holds
// oci:lay.
func TestRemoveLayoutSpelledOtherwise(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	proj := t.TempDir()
	packLayout(t, filepath.Join(proj, "lay"), "lint")
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  runtimes: [claude-code]\n  sources: ['oci:lay:1.0.0']\n")
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
	cmd := staxCommand(t, []string{"STAX_HOME=" + home}, "remove", "oci:lay:1.0.0")
	cmd.Dir = proj
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("remove oci:lay:1.0.0 run in the project: %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(filepath.Join(proj, "stax.yaml")); strings.Contains(string(data), "lay") {
		t.Errorf("stax.yaml still lists the layout:\n%s", data)
	}
}

// packLayout packs a package "lay" 1.0.0 of one skill, skill, into the
// OCI layout dir at 1.0.0, and returns the package's directory.
func packLayout(t *testing.T, dir, skill string) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "pkg")
	filetest.WriteFile(t, filepath.Join(src, "stax.yaml"), "name: lay\nversion: 1.0.0\n")
	writeSkillFiles(t, filepath.Join(src, "skills"), map[string]string{skill + "/SKILL.md": skillMD(skill, "the layout's")})
	if r := runStax(t, "pack", src, "-t", "oci:"+dir+":1.0.0"); r.Code != 0 {
		t.Fatalf("pack into %s: exit %d %s", dir, r.Code, r.Stderr)
	}
	return src
}
