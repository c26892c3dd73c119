package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// installExamplesFromLayout pushes a copy of the example package to an OCI
// layout, installs it into a new project for claude-code and returns the
// package source, the layout and the installed stateful skill.
func installExamplesFromLayout(t *testing.T) (source, layout, skillDir, proj string) {
	t.Helper()
	useHome(t)
	source = copyExamples(t)
	layout = filepath.Join(t.TempDir(), "layout")
	ref := "oci:" + layout + ":1.0.0"
	if r := runStax(t, "push", source, ref); r.Code != 0 {
		t.Fatalf("push: %d %s", r.Code, r.Stderr)
	}
	proj = t.TempDir()
	if r := runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code", "--oci-layout", layout); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	return source, layout, filepath.Join(proj, ".claude", "skills", "incident-postmortem"), proj
}

// learned is a memory entry a user of the installed skill adds, signed.
const learned = "- Paging the on-call twice within five minutes counts as one page in the\n  timeline, not two. — @ana, 2026-11-20\n"

// addMemoryEntry appends an entry to the "What worked" section of an
// installed MEMORY.md.
func addMemoryEntry(t *testing.T, skillDir, entry string) {
	t.Helper()
	name := filepath.Join(skillDir, "MEMORY.md")
	text := readText(t, name)
	const at = "\n## What didn't"
	if !strings.Contains(text, at) {
		t.Fatalf("MEMORY.md has no %q section", at)
	}
	if err := os.WriteFile(name, []byte(strings.Replace(text, at, entry+at, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestProposeApplyRoundTrip: a memory entry added to an installed skill
// goes back to the package source as a proposal that stax apply accepts:
// the entry is there with its author and date, the skill's patch version
// is bumped in SKILL.md and MEMORY.md, and the package still validates.
func TestProposeApplyRoundTrip(t *testing.T) {
	t.Parallel()
	source, layout, skillDir, proj := installExamplesFromLayout(t)
	addMemoryEntry(t, skillDir, learned)

	out := filepath.Join(t.TempDir(), "proposal.json")
	r := runStax(t, "propose", "incident-postmortem", "--dir", proj, "--runtime", "claude-code", "--oci-layout", layout, "-o", out)
	if r.Code != 0 {
		t.Fatalf("propose: %d %s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr+r.Stdout, "@ana, 2026-11-20") {
		t.Errorf("propose does not name the entry it proposes: %s%s", r.Stdout, r.Stderr)
	}
	var p struct {
		Summary   string            `json:"summary"`
		Operation string            `json:"operation_type"`
		Files     map[string]string `json:"upsert_files"`
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatalf("the proposal is not JSON: %v\n%s", err, data)
	}
	if p.Operation != "revise" || p.Summary == "" {
		t.Errorf("proposal: operation %q, summary %q", p.Operation, p.Summary)
	}
	if len(p.Files) != 1 || !strings.Contains(p.Files["incident-postmortem/MEMORY.md"], learned) {
		t.Fatalf("upsert_files should hold only the new MEMORY.md with the entry: %v", p.Files)
	}

	skills := filepath.Join(source, "skills")
	if r := runStax(t, "apply", out, skills); r.Code != 0 {
		t.Fatalf("apply: %d %s%s", r.Code, r.Stdout, r.Stderr)
	}
	memory := readText(t, filepath.Join(skills, "incident-postmortem", "MEMORY.md"))
	if !strings.Contains(memory, learned) || !strings.Contains(memory, "version: 1.3.3") {
		t.Errorf("MEMORY.md after apply lacks the entry or the bumped version:\n%s", memory)
	}
	if md := readText(t, filepath.Join(skills, "incident-postmortem", "SKILL.md")); !strings.Contains(md, "version: 1.3.3") {
		t.Errorf("SKILL.md after apply is not at 1.3.3:\n%s", md)
	}
	if r := runStax(t, "validate", source); r.Code != 0 {
		t.Fatalf("validate after apply: %d %s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestProposeRefusesWhatIsNotInstalledOrUnchanged: a skill stax did not
// install, and an installed skill nobody changed, have nothing to propose:
// exit 1 with a message that says so, and no proposal file.
func TestProposeRefusesWhatIsNotInstalledOrUnchanged(t *testing.T) {
	t.Parallel()
	_, layout, _, proj := installExamplesFromLayout(t)
	for _, c := range []struct {
		skill, want string
	}{
		{"no-such-skill", `"no-such-skill" is not installed`},
		{"incident-postmortem", "has no local changes to propose"},
	} {
		out := filepath.Join(t.TempDir(), "proposal.json")
		r := runStax(t, "propose", c.skill, "--dir", proj, "--runtime", "claude-code", "--oci-layout", layout, "-o", out)
		if r.Code != 1 || !strings.Contains(r.Stderr, c.want) {
			t.Errorf("propose %s: exit %d, want 1 and %q: %s", c.skill, r.Code, c.want, r.Stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("propose %s wrote %s: %v", c.skill, out, err)
		}
	}
}

// TestProposeSignedApplyVerifies: with --key, propose writes a signature
// over the proposal beside it, and stax apply --key PUB applies the
// proposal only when that signature verifies with PUB: a proposal changed
// after it was signed, or signed with another key, exits 6 and writes
// nothing.
func TestProposeSignedApplyVerifies(t *testing.T) {
	t.Parallel()
	source, layout, skillDir, proj := installExamplesFromLayout(t)
	priv, pub := newKeyPair(t, "proposer")
	_, otherPub := newKeyPair(t, "stranger")
	addMemoryEntry(t, skillDir, learned)

	out := filepath.Join(t.TempDir(), "proposal.json")
	r := runStax(t, "propose", "incident-postmortem", "--dir", proj, "--runtime", "claude-code", "--oci-layout", layout, "-o", out, "--key", priv)
	if r.Code != 0 {
		t.Fatalf("propose --key: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(out + ".sigstore.json"); err != nil {
		t.Fatalf("no signature beside the proposal: %v", err)
	}
	skills := filepath.Join(source, "skills")
	memory := filepath.Join(skills, "incident-postmortem", "MEMORY.md")
	before := readText(t, memory)

	if r := runStax(t, "apply", out, skills, "--key", otherPub); r.Code != 6 || !strings.Contains(r.Stderr, "wrong key") {
		t.Errorf("apply --key of another key: %d %s", r.Code, r.Stderr)
	}
	original := readText(t, out)
	tampered := strings.Replace(original, "@ana", "@mallory", 1)
	if err := os.WriteFile(out, []byte(tampered), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "apply", out, skills, "--key", pub); r.Code != 6 || !strings.Contains(r.Stderr, "content mismatch") {
		t.Errorf("apply --key of a changed proposal: %d %s", r.Code, r.Stderr)
	}
	if got := readText(t, memory); got != before {
		t.Fatalf("a proposal that did not verify was written")
	}

	if err := os.WriteFile(out, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "apply", out, skills, "--key", pub); r.Code != 0 {
		t.Fatalf("apply --key of the signed proposal: %d %s", r.Code, r.Stderr)
	}
	if got := readText(t, memory); !strings.Contains(got, learned) {
		t.Errorf("the signed proposal was not applied:\n%s", got)
	}
}

// TestProposeRefusesLinksAndUnsignedEntries: what goes into a proposal is
// sent to someone else, so a stateful file that is a symbolic link (say,
// to the user's credentials, planted in a committed folder) is refused
// unread, and a new memory entry without its author and date is refused
// naming its line; both exit 1 and write nothing.
func TestProposeRefusesLinksAndUnsignedEntries(t *testing.T) {
	t.Parallel()
	t.Run("link", func(t *testing.T) {
		t.Parallel()
		_, layout, skillDir, proj := installExamplesFromLayout(t)
		secret := filepath.Join(t.TempDir(), "credentials")
		if err := os.WriteFile(secret, []byte("aws_secret_access_key = hunter2\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		memory := filepath.Join(skillDir, "MEMORY.md")
		if err := os.Remove(memory); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(secret, memory); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "proposal.json")
		r := runStax(t, "propose", "incident-postmortem", "--dir", proj, "--runtime", "claude-code", "--oci-layout", layout, "-o", out)
		if r.Code != 1 || !strings.Contains(r.Stderr, "MEMORY.md is a symbolic link") || strings.Contains(r.Stdout+r.Stderr, "hunter2") {
			t.Errorf("propose of a linked MEMORY.md: %d %q %s", r.Code, r.Stdout, r.Stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("propose wrote %s: %v", out, err)
		}
	})
	t.Run("unsigned", func(t *testing.T) {
		t.Parallel()
		_, layout, skillDir, proj := installExamplesFromLayout(t)
		addMemoryEntry(t, skillDir, "- An entry nobody signed.\n")
		r := runStax(t, "propose", "incident-postmortem", "--dir", proj, "--runtime", "claude-code", "--oci-layout", layout)
		if r.Code != 1 || !strings.Contains(r.Stderr, "MEMORY.md:14: the new entry is not signed") || r.Stdout != "" {
			t.Errorf("propose of an unsigned entry: %d %q %s", r.Code, r.Stdout, r.Stderr)
		}
	})
}

// A skill installed from a package directory is proposed like any other;
// the package, built where it is declared and not kept in the local
// store, cannot list which memory entries are new, and propose says so
// rather than naming a reference and a `stax pack -t` that do not exist.
func TestProposeFromADirectorySourceSaysWhyNoEntryList(t *testing.T) {
	t.Parallel()
	useHome(t)
	source := copyExamples(t)
	proj := t.TempDir()
	if r := runStax(t, "install", source, "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	addMemoryEntry(t, filepath.Join(proj, ".claude", "skills", "incident-postmortem"), learned)
	out := filepath.Join(t.TempDir(), "proposal.json")
	r := runStax(t, "propose", "incident-postmortem", "--dir", proj, "--runtime", "claude-code", "-o", out)
	if r.Code != 0 {
		t.Fatalf("propose: %d %s", r.Code, r.Stderr)
	}
	said := r.Stdout + r.Stderr
	if strings.Contains(said, "/@sha256") || strings.Contains(said, "stax pack -t") || !strings.Contains(said, "not kept in the local store") {
		t.Errorf("propose of a directory source's skill should say the package is not kept in the local store, with no made-up reference:\n%s", said)
	}
}
