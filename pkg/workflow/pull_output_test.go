package workflow_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/workflow"
)

// layered writes two packages: org (lower) and team (higher), both with
// the skill "shared"; org's copy has an extra file team's lacks.
func layered(t *testing.T) (org, team string) {
	root := t.TempDir()
	skillMD := func(name, from string) string {
		return "---\nname: " + name + "\ndescription: The " + name + " skill of " + from + ". Use when testing merges.\n---\nFrom " + from + ".\n"
	}
	org, team = filepath.Join(root, "org"), filepath.Join(root, "team")
	filetest.WriteFile(t, filepath.Join(org, "stax.yaml"), "name: org\nversion: 1.0.0\n")
	filetest.WriteFile(t, filepath.Join(org, "skills", "shared", "SKILL.md"), skillMD("shared", "org"))
	filetest.WriteFile(t, filepath.Join(org, "skills", "shared", "references", "only-org.md"), "org's file\n")
	filetest.WriteFile(t, filepath.Join(org, "skills", "org-own", "SKILL.md"), skillMD("org-own", "org"))
	filetest.WriteFile(t, filepath.Join(team, "stax.yaml"), "name: team\nversion: 1.0.0\n")
	filetest.WriteFile(t, filepath.Join(team, "skills", "shared", "SKILL.md"), skillMD("shared", "team"))
	filetest.WriteFile(t, filepath.Join(team, "skills", "team-own", "SKILL.md"), skillMD("team-own", "team"))
	return org, team
}

// pullTo pulls refs into dest.
func pullTo(t *testing.T, dest string, opts workflow.PullOptions) error {
	t.Helper()
	opts.OutputDir = dest
	_, err := workflow.Pull(context.Background(), newEnv(t, &bytes.Buffer{}), opts)
	return err
}

// The winner's whole directory is written: no file of the losing skill
// survives beside it, whichever order the packages come in.
func TestPullOutputWholeDirectoryPrecedence(t *testing.T) {
	t.Parallel()
	org, team := layered(t)
	for _, tt := range []struct {
		name   string
		refs   []string
		winner string
	}{
		{"later source wins", []string{org, team}, "team"},
		{"order reversed", []string{team, org}, "org"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "skills")
			if err := pullTo(t, dest, workflow.PullOptions{Refs: tt.refs}); err != nil {
				t.Fatal(err)
			}
			body, err := os.ReadFile(filepath.Join(dest, "shared", "SKILL.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(body), "From "+tt.winner) {
				t.Errorf("shared/SKILL.md is\n%s\nwant the winner's", body)
			}
			_, err = os.Stat(filepath.Join(dest, "shared", "references", "only-org.md"))
			if survived := err == nil; survived != (tt.winner == "org") {
				t.Errorf("org's extra file present = %v with %s winning: a losing skill's files must not survive beside the winner", survived, tt.winner)
			}
		})
	}
}

func TestPullOutputDestination(t *testing.T) {
	t.Parallel()
	org, team := layered(t)
	tests := []struct {
		name    string
		prepare func(t *testing.T, dest string)
		wantErr string
	}{
		{"absent", func(*testing.T, string) {}, ""},
		{"empty directory", func(t *testing.T, dest string) { os.MkdirAll(dest, 0o755) }, ""},
		{"directory with a user's file", func(t *testing.T, dest string) { filetest.WriteFile(t, filepath.Join(dest, "mine.md"), "mine") }, "is not an empty directory"},
		{"a file", func(t *testing.T, dest string) { filetest.WriteFile(t, dest, "mine") }, "is not an empty directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			dest := filepath.Join(parent, "skills")
			tt.prepare(t, dest)
			err := pullTo(t, dest, workflow.PullOptions{Refs: []string{org, team}})
			if tt.wantErr == "" && err != nil {
				t.Fatalf("Pull: %v", err)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Pull: %v, want %q", err, tt.wantErr)
				}
				if got, _ := os.ReadFile(filepath.Join(dest, "mine.md")); tt.name == "directory with a user's file" && string(got) != "mine" {
					t.Errorf("the user's file is gone or changed: %q", got)
				}
			}
			// Nothing is left staged beside dest.
			entries, _ := os.ReadDir(parent)
			if len(entries) != 1 || entries[0].Name() != "skills" {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("parent holds %v, want only skills", names)
			}
		})
	}
}

// The limits bound what pull -o extracts: over either, nothing lands.
func TestPullOutputLimits(t *testing.T) {
	t.Parallel()
	org, team := layered(t)
	tests := []struct {
		name     string
		maxSize  int64
		maxFiles int
		ok       bool
	}{
		{"defaults", 0, 0, true},
		{"no limits", -1, -1, true},
		{"size over the limit", 16, 0, false},
		{"files over the limit", 0, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "skills")
			err := pullTo(t, dest, workflow.PullOptions{Refs: []string{org, team}, Limits: layers.Limits{MaxSize: tt.maxSize, MaxFiles: tt.maxFiles}})
			if (err == nil) != tt.ok {
				t.Fatalf("Pull: %v, want success %v", err, tt.ok)
			}
			if _, statErr := os.Stat(dest); (statErr == nil) != tt.ok {
				t.Errorf("dest present = %v after Pull returned %v", statErr == nil, err)
			}
		})
	}
}

// plantStaging leaves beside a pull target what a run leaves there while
// it stages: a staging directory holding its lock file and half the skills,
// aged as a run killed a while ago.
func plantStaging(t *testing.T, parent, name string) string {
	t.Helper()
	dir := filepath.Join(parent, ".stax-staging-merge-"+name)
	filetest.WriteFile(t, filepath.Join(dir, ".stax-scratch.lock"), "")
	filetest.WriteFile(t, filepath.Join(dir, "out", "half", "SKILL.md"), "half\n")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A pull beside a killed pull's staging directory removes it; a live
// pull's (its lock held) stays, and so does a folder of that name stax did
// not make (no lock file in it).
func TestPullOutputRemovesDeadRunsStaging(t *testing.T) {
	org, team := layered(t)
	parent := t.TempDir()
	dead := plantStaging(t, parent, "dead")
	live := plantStaging(t, parent, "live")
	held := flock.New(filepath.Join(live, ".stax-scratch.lock"))
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	foreign := filepath.Join(parent, ".stax-staging-merge-"+"not-ours")
	filetest.WriteFile(t, filepath.Join(foreign, "notes.md"), "mine\n")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(foreign, old, old); err != nil {
		t.Fatal(err)
	}

	if err := pullTo(t, filepath.Join(parent, "skills"), workflow.PullOptions{Refs: []string{org, team}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a killed pull's staging %s is still there (%v)", dead, err)
	}
	for _, keep := range []string{filepath.Join(live, "out", "half", "SKILL.md"), filepath.Join(foreign, "notes.md")} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s was removed: %v", keep, err)
		}
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 3 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("beside the target: %v; want skills, the live staging and the foreign folder only", names)
	}
}

// A target named with a trailing separator is the same directory: the
// skills go into it, and nothing is staged inside it.
func TestPullOutputIntoADirectoryNamedWithATrailingSeparator(t *testing.T) {
	t.Parallel()
	org, team := layered(t)
	parent := t.TempDir()
	dest := filepath.Join(parent, "skills") + string(filepath.Separator)
	if err := pullTo(t, dest, workflow.PullOptions{Refs: []string{org, team}}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 || entries[0].Name() != "skills" {
		t.Errorf("beside the target: %v; want skills alone", entries)
	}
	inside, _ := os.ReadDir(dest)
	for _, e := range inside {
		if strings.HasPrefix(e.Name(), ".stax") {
			t.Errorf("%s left in the target", e.Name())
		}
	}
}

// A package directory carries no signature: a check of every package's
// signature asked for on the command line refuses it, before anything is
// read, rather than pull it unchecked.
func TestPullRefusesToVerifyAPackageDirectory(t *testing.T) {
	t.Parallel()
	org, _ := layered(t)
	for _, v := range []workflow.Verification{{Mode: "require"}, {Keys: []string{filepath.Join(t.TempDir(), "cosign.pub")}}} {
		dest := filepath.Join(t.TempDir(), "out")
		err := pullTo(t, dest, workflow.PullOptions{Refs: []string{org}, Verify: v})
		if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "package directory") {
			t.Errorf("pull %s with %+v: %v (%v), want it refused as an invalid argument", org, v, err, errdefs.Of(err))
		}
		if _, serr := os.Stat(dest); !errors.Is(serr, fs.ErrNotExist) {
			t.Errorf("pull with %+v wrote %s (%v)", v, dest, serr)
		}
	}
}

// Under --verify warn a package directory is pulled, with a warning that
// nothing of it was checked, as a package that does not verify is warned
// of.
func TestPullWarnsThatAPackageDirectoryWasNotVerified(t *testing.T) {
	t.Parallel()
	org, _ := layered(t)
	var stderr bytes.Buffer
	_, err := workflow.Pull(context.Background(), newEnv(t, &stderr), workflow.PullOptions{Refs: []string{org}, OutputDir: filepath.Join(t.TempDir(), "out"), Verify: workflow.Verification{Mode: "warn"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "package directory, which carries no signature") {
		t.Errorf("stderr = %q: want a warning that the directory was not checked", stderr.String())
	}
}
