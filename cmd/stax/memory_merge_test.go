package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/lock"
)

// pushStatefulVersion pushes a package holding the stateful skill memo at
// version, with memory as the body of its MEMORY.md.
func pushStatefulVersion(t *testing.T, ref, version, memory string) {
	t.Helper()
	pushStatefulContributors(t, ref, version, "2", memory)
}

// pushStatefulContributors is pushStatefulVersion with contributors as
// the MEMORY.md frontmatter's count of them.
func pushStatefulContributors(t *testing.T, ref, version, contributors, memory string) {
	t.Helper()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		"stax.yaml": "name: memo-pkg\nversion: " + version + "\n",
		"skills/memo/SKILL.md": "---\nname: memo\ndescription: Remembers what runs taught. Use when testing memory merges.\nversion: " + version +
			"\n---\nThis is memo " + version + ".\n",
		"skills/memo/MEMORY.md": "---\nversion: " + version + "\ncontributors: " + contributors + "\nlastUpdated: 2026-05-20\n---\n" + memory,
	})
	if r := runStax(t, "push", dir, ref); r.Code != 0 {
		t.Fatalf("push %s: exit %d\n%s", ref, r.Code, r.Stderr)
	}
}

const (
	memoV1 = "\n## What worked\n\n- Ask for the alert rule first. — @mira, 2026-05-01\n"
	// memoV2 adds an entry of the maintainer's.
	memoV2 = memoV1 + "\n## Open questions\n\n- Near-misses: full template? — @jonas, 2026-05-20\n"
	// The user's entry, appended to the installed MEMORY.md.
	userEntry = "- Short form is enough under five minutes. — @ana, 2026-06-03\n"
)

// A user appends an entry to an installed skill's MEMORY.md; the next
// version of the package adds another. The update keeps the user's entry,
// takes the package's and its SKILL.md, and verify --installed agrees with
// the merged file. An entry both sides changed stops the next update with
// exit 5, naming the file and line, and writes nothing.
func TestUpdateMergesLocalMemory(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo := reg.Host + "/acme/memo"
	pushStatefulVersion(t, repo+":1.0.0", "1.0.0", memoV1)
	proj := t.TempDir()
	if r := runStax(t, "add", repo, "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
	}
	skillDir := filepath.Join(proj, ".claude", "skills", "memo")
	memory := filepath.Join(skillDir, "MEMORY.md")
	appendFile(t, memory, userEntry)

	pushStatefulVersion(t, repo+":1.1.0", "1.1.0", memoV2)
	// The plan of an install that moves memo to 1.1.0 merges it, as the
	// update below does: no conflict.
	if target := onlyTarget(t, dryRun(t, "install", repo, "--dir", proj)); len(target.Conflicts) != 0 || len(target.Update) != 1 {
		t.Errorf("plan of the update over a local memory entry: %+v, want memo updated, no conflict", target)
	}
	r := runStax(t, "update", "--dir", proj)
	if r.Code != 0 {
		t.Fatalf("update over a local memory entry: exit %d, want 0\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "merged memo") {
		t.Errorf("update does not say it merged memo's MEMORY.md:\n%s", r.Stdout)
	}
	got := readFile(t, memory)
	want := "---\nversion: 1.1.0\ncontributors: 2\nlastUpdated: 2026-06-03\n---\n" +
		"\n## What worked\n\n- Ask for the alert rule first. — @mira, 2026-05-01\n\n" + userEntry +
		"\n## Open questions\n\n- Near-misses: full template? — @jonas, 2026-05-20\n"
	if got != want {
		t.Errorf("merged MEMORY.md:\n%s\nwant:\n%s", got, want)
	}
	if s := readFile(t, filepath.Join(skillDir, "SKILL.md")); !strings.Contains(s, "memo 1.1.0") {
		t.Errorf("SKILL.md is not 1.1.0's:\n%s", s)
	}
	if r := runStax(t, "verify", "--installed", "--dir", proj); r.Code != 0 {
		t.Errorf("verify --installed after the merge: exit %d, want 0\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 || !strings.Contains(r.Stdout, "1 unchanged") {
		t.Errorf("install after the merge: exit %d, want 0 with memo unchanged\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	// The user rewords the maintainer's entry; so does 1.2.0, otherwise.
	edited := strings.Replace(readFile(t, memory), "Near-misses: full template?", "Near-misses: the short form.", 1)
	if err := os.WriteFile(memory, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	pushStatefulVersion(t, repo+":1.2.0", "1.2.0", strings.Replace(memoV2, "full template?", "a template of their own?", 1))
	before := map[string]string{"MEMORY.md": edited, "SKILL.md": readFile(t, filepath.Join(skillDir, "SKILL.md")),
		lock.FileName: readFile(t, filepath.Join(proj, lock.FileName))}
	r = runStax(t, "update", "--dir", proj)
	if r.Code != 5 {
		t.Fatalf("update over an entry changed on both sides: exit %d, want 5\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{filepath.Join("memo", "MEMORY.md") + ":15", "@jonas", "2026-05-20"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("the conflict does not name %q:\n%s", want, r.Stderr)
		}
	}
	r = runStax(t, "update", "--dir", proj, "--output", "json")
	var failure struct {
		Error *jsonError `json:"error"`
	}
	decodeJSON(t, r.Stderr, &failure)
	if e := failure.Error; e == nil || e.Exit != 5 || e.Code != "memory-merge" || e.File != memory || e.Line != 15 {
		t.Errorf("the JSON error of the conflict is %+v, want exit 5, code memory-merge, file %s, line 15", e, memory)
	}
	for name, was := range before {
		p := filepath.Join(skillDir, name)
		if name == lock.FileName {
			p = filepath.Join(proj, name)
		}
		if got := readFile(t, p); got != was {
			t.Errorf("a refused update changed %s:\n%s", name, got)
		}
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// An entry merged into an update is still the user's, not the package's:
// stax propose sends it back, though the install record holds the merged
// file, and not the maintainer's entry the update brought.
func TestProposeAfterAMergeSendsTheUsersEntry(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo := reg.Host + "/acme/memo"
	pushStatefulVersion(t, repo+":1.0.0", "1.0.0", memoV1)
	proj := t.TempDir()
	if r := runStax(t, "add", repo, "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
	}
	appendFile(t, filepath.Join(proj, ".claude", "skills", "memo", "MEMORY.md"), userEntry)
	pushStatefulVersion(t, repo+":1.1.0", "1.1.0", memoV2)
	if r := runStax(t, "update", "--dir", proj); r.Code != 0 {
		t.Fatalf("update: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	out := filepath.Join(t.TempDir(), "learnings.json")
	r := runStax(t, "propose", "memo", "--dir", proj, "--runtime", "claude-code", "-o", out, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("propose after the merge: exit %d, want 0\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	var res struct {
		Entries []struct {
			Signer string `json:"signer"`
			Date   string `json:"date"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	if len(res.Entries) != 1 || res.Entries[0].Signer != "@ana" || res.Entries[0].Date != "2026-06-03" {
		t.Errorf("proposed entries: %+v\nwant only @ana's of 2026-06-03", res.Entries)
	}
	if p := readFile(t, out); !strings.Contains(p, "Short form is enough") {
		t.Errorf("the proposal does not carry the user's entry:\n%s", p)
	}
}

// A user's edit of an installed MEMORY.md's frontmatter is never dropped
// by an update: a field the new version lacks is kept (and said to be),
// and a field both sides changed to other values is a conflict, exit 5,
// that writes nothing, as a changed entry is.
func TestUpdateKeepsTheUsersFrontmatter(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo := reg.Host + "/acme/memo"
	pushStatefulVersion(t, repo+":1.0.0", "1.0.0", memoV1)
	proj := t.TempDir()
	if r := runStax(t, "add", repo, "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
	}
	skillDir := filepath.Join(proj, ".claude", "skills", "memo")
	memory := filepath.Join(skillDir, "MEMORY.md")
	owned := strings.Replace(readFile(t, memory), "contributors: 2\n", "contributors: 2\nowner: \"@ana\"\n", 1)
	if err := os.WriteFile(memory, []byte(owned), 0o644); err != nil {
		t.Fatal(err)
	}

	pushStatefulVersion(t, repo+":1.1.0", "1.1.0", memoV2)
	// The plan of an install that moves memo to 1.1.0 merges it, as the
	// update below does: no conflict.
	if target := onlyTarget(t, dryRun(t, "install", repo, "--dir", proj)); len(target.Conflicts) != 0 || len(target.Update) != 1 {
		t.Errorf("plan of the update over a local memory entry: %+v, want memo updated, no conflict", target)
	}
	r := runStax(t, "update", "--dir", proj)
	if r.Code != 0 || !strings.Contains(r.Stdout, "merged memo/MEMORY.md: kept your 0 entries and your 1 field owner") {
		t.Fatalf("update over a field the user added: exit %d, want 0 saying the field was kept\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	want := "---\nversion: 1.1.0\ncontributors: 2\nlastUpdated: 2026-05-20\nowner: \"@ana\"\n---\n" + memoV2
	if got := readFile(t, memory); got != want {
		t.Errorf("merged MEMORY.md:\n%s\nwant:\n%s", got, want)
	}
	if r := runStax(t, "verify", "--installed", "--dir", proj); r.Code != 0 {
		t.Errorf("verify --installed after the merge: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	// The user counts the contributors otherwise than 1.2.0 does: both
	// changed the count 1.1.0 installed.
	counted := strings.Replace(readFile(t, memory), "contributors: 2\n", "contributors: 7\n", 1)
	if err := os.WriteFile(memory, []byte(counted), 0o644); err != nil {
		t.Fatal(err)
	}
	pushStatefulContributors(t, repo+":1.2.0", "1.2.0", "3", memoV2)
	lockBefore := readFile(t, filepath.Join(proj, lock.FileName))
	r = runStax(t, "update", "--dir", proj)
	if r.Code != 5 {
		t.Fatalf("update over a field changed on both sides: exit %d, want 5\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{filepath.Join("memo", "MEMORY.md") + ":3", `contributors is "7" here and "3"`, "both your copy and the new version changed it"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("the conflict does not say %q:\n%s", want, r.Stderr)
		}
	}
	if got := readFile(t, memory); got != counted {
		t.Errorf("a refused update changed MEMORY.md:\n%s", got)
	}
	if got := readFile(t, filepath.Join(proj, lock.FileName)); got != lockBefore {
		t.Errorf("a refused update changed %s", lock.FileName)
	}
}

// The commonest update of a stateful skill: the user added an entry, and
// the new version counts one more contributor. The update takes the new
// count, which the user never touched, and keeps the user's entry; then a
// count the user changed, and the next version did not, stays the user's.
func TestUpdateTakesTheNewContributorsAndKeepsTheUsersEntry(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo := reg.Host + "/acme/memo"
	pushStatefulVersion(t, repo+":1.0.0", "1.0.0", memoV1)
	proj := t.TempDir()
	if r := runStax(t, "add", repo, "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
	}
	memory := filepath.Join(proj, ".claude", "skills", "memo", "MEMORY.md")
	appendFile(t, memory, userEntry)

	pushStatefulContributors(t, repo+":1.1.0", "1.1.0", "3", memoV2)
	r := runStax(t, "update", "--dir", proj)
	if r.Code != 0 || !strings.Contains(r.Stdout, "merged memo/MEMORY.md: kept your 1 entry, took the new version's") {
		t.Fatalf("update to a version with one more contributor: exit %d, want 0 merging the user's entry\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	body := "\n## What worked\n\n- Ask for the alert rule first. — @mira, 2026-05-01\n\n" + userEntry +
		"\n## Open questions\n\n- Near-misses: full template? — @jonas, 2026-05-20\n"
	if got, want := readFile(t, memory), "---\nversion: 1.1.0\ncontributors: 3\nlastUpdated: 2026-06-03\n---\n"+body; got != want {
		t.Errorf("merged MEMORY.md:\n%s\nwant:\n%s", got, want)
	}
	if r := runStax(t, "verify", "--installed", "--dir", proj); r.Code != 0 {
		t.Errorf("verify --installed after the merge: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	counted := strings.Replace(readFile(t, memory), "contributors: 3\n", "contributors: 7 # with the on-call team\n", 1)
	if err := os.WriteFile(memory, []byte(counted), 0o644); err != nil {
		t.Fatal(err)
	}
	pushStatefulContributors(t, repo+":1.2.0", "1.2.0", "3", memoV2)
	if r := runStax(t, "update", "--dir", proj); r.Code != 0 || !strings.Contains(r.Stdout, "and your 1 field contributors") {
		t.Fatalf("update over a count only the user changed: exit %d, want 0 keeping it\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if got, want := readFile(t, memory), "---\nversion: 1.2.0\ncontributors: 7 # with the on-call team\nlastUpdated: 2026-06-03\n---\n"+body; got != want {
		t.Errorf("merged MEMORY.md:\n%s\nwant:\n%s", got, want)
	}
}

// An install record an older stax wrote holds no base for the merge of
// MEMORY.md's frontmatter: a field the two copies hold with other values
// stays a conflict, exit 5, whose message says how to settle it.
func TestUpdateWithARecordOfAnOlderStaxRefusesADifferingField(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo := reg.Host + "/acme/memo"
	pushStatefulVersion(t, repo+":1.0.0", "1.0.0", memoV1)
	proj := t.TempDir()
	if r := runStax(t, "add", repo, "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
	}
	skills := filepath.Join(proj, ".claude", "skills")
	recordPath := filepath.Join(skills, RecordFileForTest)
	var record map[string]any
	decodeJSON(t, readFile(t, recordPath), &record)
	entry := record["skills"].(map[string]any)["memo"].(map[string]any)
	if _, ok := entry["memory"]; !ok {
		t.Fatalf("the record keeps nothing of memo's MEMORY.md:\n%s", readFile(t, recordPath))
	}
	delete(entry, "memory") // as an older stax wrote it
	data, err := json.MarshalIndent(record, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(recordPath, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(skills, "memo", "MEMORY.md"), userEntry)

	pushStatefulContributors(t, repo+":1.1.0", "1.1.0", "3", memoV2)
	r := runStax(t, "update", "--dir", proj)
	if r.Code != 5 {
		t.Fatalf("update without a base: exit %d, want 5\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{`contributors is "2" here and "3"`, "written by an older stax", "make yours the same as the new one (take its value), or install with --force"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("the conflict does not say %q:\n%s", want, r.Stderr)
		}
	}
}

// A MEMORY.md merged by one update holds the user's entries and fields
// though the record holds it as installed: the next update merges it
// again, rather than writing the package's file over it; uninstall
// refuses, and a forced update moves it to a backup, as they do a file the
// user changed.
func TestUpdateAfterAMergeKeepsTheUsersEntries(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	repo := reg.Host + "/acme/memo"
	pushStatefulVersion(t, repo+":1.0.0", "1.0.0", memoV1)
	proj := t.TempDir()
	if r := runStax(t, "add", repo, "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add: exit %d\n%s", r.Code, r.Stderr)
	}
	memory := filepath.Join(proj, ".claude", "skills", "memo", "MEMORY.md")
	owned := strings.Replace(readFile(t, memory), "contributors: 2\n", "contributors: 2\nowner: \"@ana\"\n", 1)
	if err := os.WriteFile(memory, []byte(owned+userEntry), 0o644); err != nil {
		t.Fatal(err)
	}
	pushStatefulVersion(t, repo+":1.1.0", "1.1.0", memoV2)
	if r := runStax(t, "update", "--dir", proj); r.Code != 0 {
		t.Fatalf("update: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	// Nothing changed since the merge; 1.2.0 counts one more contributor.
	pushStatefulContributors(t, repo+":1.2.0", "1.2.0", "3", memoV2)
	r := runStax(t, "update", "--dir", proj)
	if r.Code != 0 || !strings.Contains(r.Stdout, "merged memo/MEMORY.md: kept your 1 entry and your 1 field owner") {
		t.Fatalf("update after a merge: exit %d, want 0 merging again\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	want := "---\nversion: 1.2.0\ncontributors: 3\nlastUpdated: 2026-06-03\nowner: \"@ana\"\n---\n" +
		"\n## What worked\n\n- Ask for the alert rule first. — @mira, 2026-05-01\n\n" + userEntry +
		"\n## Open questions\n\n- Near-misses: full template? — @jonas, 2026-05-20\n"
	if got := readFile(t, memory); got != want {
		t.Errorf("MEMORY.md after the second update:\n%s\nwant:\n%s", got, want)
	}
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 || !strings.Contains(r.Stdout, "1 unchanged") {
		t.Errorf("install after the merge: exit %d, want 0 with memo unchanged\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	r = runStax(t, "uninstall", "--dir", proj, "--runtime", "claude-code")
	if r.Code != 5 || !strings.Contains(r.Stderr, "memo: its MEMORY.md holds your entries, merged into the package's by an update") {
		t.Errorf("uninstall of a merged skill: exit %d, want 5 saying why\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if got := readFile(t, memory); got != want {
		t.Errorf("a refused uninstall changed MEMORY.md:\n%s", got)
	}

	pushStatefulVersion(t, repo+":1.3.0", "1.3.0", memoV2)
	if r := runStax(t, "update", "--dir", proj, "--force"); r.Code != 0 {
		t.Fatalf("update --force: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	backups, err := filepath.Glob(filepath.Join(proj, ".stax", "backup", "*", ".claude", "skills", "memo", "MEMORY.md"))
	if err != nil || len(backups) != 1 {
		t.Fatalf("backups of memo's MEMORY.md: %v (%v), want 1", backups, err)
	}
	if got := readFile(t, backups[0]); got != want {
		t.Errorf("the backup holds:\n%s\nwant:\n%s", got, want)
	}
}
