package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/discover"
	"github.com/stax-dev/stax/pkg/install"
)

// installExamplesForUser pushes a copy of the example package to an OCI
// layout and installs it in user scope for claude-code, with HOME a new
// directory; it returns the layout, the $STAX_HOME, the user's skills
// folder and where its record is kept.
func installExamplesForUser(t *testing.T) (layout, home, folder, record string) {
	t.Helper()
	home = useHome(t)
	t.Setenv("HOME", t.TempDir())
	userHome, _ := os.UserHomeDir()
	layout = filepath.Join(t.TempDir(), "layout")
	ref := "oci:" + layout + ":1.0.0"
	if r := runStax(t, "push", copyExamples(t), ref); r.Code != 0 {
		t.Fatalf("push: %d %s", r.Code, r.Stderr)
	}
	t.Chdir(t.TempDir())
	if r := runStax(t, "install", ref, "--scope", "user", "--runtime", "claude-code", "--oci-layout", layout); r.Code != 0 {
		t.Fatalf("install --scope user: %d %s", r.Code, r.Stderr)
	}
	folder = filepath.Join(userHome, ".claude", "skills")
	return layout, home, folder, filepath.Join(home, "user", ".records", "claude-skills", install.RecordFile)
}

// A user-scope install keeps its record under $STAX_HOME, not in the
// user's folder, and every command that reads it finds it there.
func TestUserScopeRecordIsKeptUnderStaxHome(t *testing.T) {
	layout, _, folder, record := installExamplesForUser(t)
	if _, err := os.Stat(filepath.Join(folder, install.RecordFile)); !os.IsNotExist(err) {
		t.Errorf("the install wrote %s into the user's folder (%v)", install.RecordFile, err)
	}
	if data, err := os.ReadFile(record); err != nil || !strings.Contains(string(data), `"incident-postmortem"`) {
		t.Fatalf("the record under $STAX_HOME: %v\n%s", err, data)
	}
	if r := runStax(t, "verify", "--installed", "--scope", "user", "--runtime", "claude-code"); r.Code != 0 {
		t.Errorf("verify --installed --scope user: %d %s%s", r.Code, r.Stdout, r.Stderr)
	}
	r := runStax(t, "list", "--runtime", "claude-code", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("list: %d %s", r.Code, r.Stderr)
	}
	var l discover.Listing
	decodeJSON(t, r.Stdout, &l)
	listed := false
	for _, s := range l.Skills {
		if s.Key == "incident-postmortem" {
			listed = s.Installed != nil && strings.HasSuffix(s.Installed.Package, ":1.0.0")
		}
	}
	if !listed {
		t.Errorf("list does not name the package of the user's skill:\n%s", r.Stdout)
	}
	addMemoryEntry(t, filepath.Join(folder, "incident-postmortem"), learned)
	out := filepath.Join(t.TempDir(), "proposal.json")
	if r := runStax(t, "propose", "incident-postmortem", "--scope", "user", "--runtime", "claude-code", "--oci-layout", layout, "-o", out); r.Code != 0 {
		t.Errorf("propose --scope user: %d %s", r.Code, r.Stderr)
	} else if !strings.Contains(readText(t, out), "@ana, 2026-11-20") {
		t.Errorf("the proposal lacks the entry:\n%s", readText(t, out))
	}
	if r := runStax(t, "uninstall", "--scope", "user", "--runtime", "claude-code", "--force"); r.Code != 0 {
		t.Fatalf("uninstall --scope user: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(folder, "incident-postmortem")); !os.IsNotExist(err) {
		t.Errorf("uninstall left the skill (%v)", err)
	}
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Errorf("uninstall left the record (%v)", err)
	}
}

// A user folder installed by an older stax holds its record: the next
// install reads it, so the skills it lists are stax's, moves it under
// $STAX_HOME and removes it from the folder.
func TestUserScopeRecordInTheFolderIsMigrated(t *testing.T) {
	_, _, folder, record := installExamplesForUser(t)
	old := filepath.Join(folder, install.RecordFile)
	if err := os.Rename(record, old); err != nil {
		t.Fatalf("make the record an older stax's: %v", err)
	}
	if r := runStax(t, "verify", "--installed", "--scope", "user", "--runtime", "claude-code"); r.Code != 0 {
		t.Errorf("verify --installed reading the older record: %d %s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runStax(t, "install", "--scope", "user", "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install over the older record: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the older record is still in the folder (%v)", err)
	}
	if data, err := os.ReadFile(record); err != nil || !strings.Contains(string(data), `"incident-postmortem"`) {
		t.Errorf("the record under $STAX_HOME: %v\n%s", err, data)
	}
	if r := runStax(t, "verify", "--installed", "--scope", "user", "--runtime", "claude-code"); r.Code != 0 {
		t.Errorf("verify --installed: %d %s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// $STAX_HOME/user/.records linked to a directory out of $STAX_HOME/user
// is not followed: a user-scope install refuses to keep its record there
// (exit 2, naming the link) and writes nothing through it, and the
// commands that read the record refuse it too.
func TestUserScopeRecordsLinkedOutOfTheHomeAreRefused(t *testing.T) {
	home := useHome(t)
	t.Setenv("HOME", t.TempDir())
	layout := filepath.Join(t.TempDir(), "layout")
	ref := "oci:" + layout + ":1.0.0"
	if r := runStax(t, "push", copyExamples(t), ref); r.Code != 0 {
		t.Fatalf("push: %d %s", r.Code, r.Stderr)
	}
	t.Chdir(t.TempDir())
	outside := t.TempDir()
	records := filepath.Join(home, "user", ".records")
	if err := os.MkdirAll(filepath.Dir(records), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{outside, "../../" + filepath.Base(outside)} {
		os.Remove(records)
		if err := os.Symlink(target, records); err != nil {
			t.Fatal(err)
		}
		r := runStax(t, "install", ref, "--scope", "user", "--runtime", "claude-code", "--oci-layout", layout)
		if r.Code != 2 || !strings.Contains(r.Stderr, records+" is a symbolic link") {
			t.Errorf("install with .records linked to %s: exit %d, want 2 naming the link\n%s", target, r.Code, r.Stderr)
		}
		if entries, _ := os.ReadDir(outside); len(entries) != 0 {
			t.Errorf("install wrote through the link to %s: %v", target, entries)
		}
	}

	// Installed with .records a directory, then linked out to a copy.
	os.Remove(records)
	if r := runStax(t, "install", ref, "--scope", "user", "--runtime", "claude-code", "--oci-layout", layout); r.Code != 0 {
		t.Fatalf("install --scope user: %d %s", r.Code, r.Stderr)
	}
	if err := os.Rename(records, filepath.Join(outside, "records")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "records"), records); err != nil {
		t.Fatal(err)
	}
	r := runStax(t, "verify", "--installed", "--scope", "user", "--runtime", "claude-code")
	if r.Code != 2 || !strings.Contains(r.Stderr, records+" is a symbolic link") {
		t.Errorf("verify --installed with .records linked out: exit %d, want 2 naming the link\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}
