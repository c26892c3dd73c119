package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

// copyExamples copies the example package into a temporary directory.
func copyExamples(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "examples")
	copyTree(t, examples, dir)
	return dir
}

func readText(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestBumpChangesOnlyTheVersions bumps the stateful example skill and
// compares both files byte for byte with the originals, version lines
// replaced and MEMORY.md's lastUpdated set to SOURCE_DATE_EPOCH's date.
func TestBumpChangesOnlyTheVersions(t *testing.T) {
	t.Parallel()
	// 2026-11-23T01:00:00Z
	setenv(t, "SOURCE_DATE_EPOCH", "1795395600")
	tests := []struct {
		flag, want string
	}{
		{"", "1.3.3"}, {"--patch", "1.3.3"}, {"--minor", "1.4.0"}, {"--major", "2.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.want+tt.flag, func(t *testing.T) {
			pkg := copyExamples(t)
			skillDir := filepath.Join(pkg, "skills", "incident-postmortem")
			args := []string{"bump", skillDir}
			if tt.flag != "" {
				args = append(args, tt.flag)
			}
			r := runStax(t, args...)
			if r.Code != 0 {
				t.Fatalf("exit %d: %s", r.Code, r.Stderr)
			}
			for _, f := range []string{"SKILL.md", "MEMORY.md"} {
				orig := readText(t, filepath.Join(postmortem, f))
				want := strings.Replace(orig, "version: 1.3.2\n", "version: "+tt.want+"\n", 1)
				if f == "MEMORY.md" {
					want = strings.Replace(want, "lastUpdated: 2026-10-28\n", "lastUpdated: 2026-11-23\n", 1)
				}
				if orig == want {
					t.Fatalf("%s has no version line to replace", f)
				}
				if got := readText(t, filepath.Join(skillDir, f)); got != want {
					t.Errorf("%s =\n%s\nwant\n%s", f, got, want)
				}
			}
			for _, f := range []string{"EXAMPLES.md", "CALIBRATION.md"} {
				if readText(t, filepath.Join(skillDir, f)) != readText(t, filepath.Join(postmortem, f)) {
					t.Errorf("%s changed", f)
				}
			}
			if !strings.Contains(r.Stdout, "1.3.2 → "+tt.want) || !strings.Contains(r.Stdout, "MEMORY.md:2  version") {
				t.Errorf("stdout = %s", r.Stdout)
			}
			// The bumped package still validates strictly.
			if v := runStax(t, "validate", "--strict", pkg); v.Code != 0 {
				t.Errorf("validate after bump: %s", v.Stdout)
			}
		})
	}
}

func TestBumpByNameAndJSON(t *testing.T) {
	t.Parallel()
	pkg := copyExamples(t)
	skills := filepath.Join(pkg, "skills")
	before := readText(t, filepath.Join(skills, "write-changelog", "SKILL.md"))
	r := runStax(t, "bump", "write-changelog", "--dir", skills, "--minor", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var out struct {
		From, To string
		Changes  []struct{ File, Field string }
		DryRun   bool
	}
	decodeJSON(t, r.Stdout, &out)
	if out.From != "0.3.0" || out.To != "0.4.0" || len(out.Changes) != 1 || out.Changes[0].Field != "metadata.version" || out.DryRun {
		t.Errorf("result = %+v", out)
	}
	// metadata.version was quoted; it stays quoted.
	want := strings.Replace(before, `version: "0.3.0"`, `version: "0.4.0"`, 1)
	if got := readText(t, filepath.Join(skills, "write-changelog", "SKILL.md")); got != want {
		t.Errorf("SKILL.md =\n%s\nwant\n%s", got, want)
	}
}

func TestBumpDryRun(t *testing.T) {
	t.Parallel()
	pkg := copyExamples(t)
	dir := filepath.Join(pkg, "skills", "incident-postmortem")
	r := runStax(t, "bump", dir, "--dry-run")
	if r.Code != 0 || !strings.Contains(r.Stdout, "would bump") {
		t.Errorf("exit %d: %s", r.Code, r.Stdout)
	}
	if readText(t, filepath.Join(dir, "SKILL.md")) != readText(t, filepath.Join(postmortem, "SKILL.md")) {
		t.Error("--dry-run wrote")
	}
}

func TestBumpErrors(t *testing.T) {
	t.Parallel()
	pkg := copyExamples(t)
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"missing directory", []string{"bump", filepath.Join(pkg, "skills", "nope")}, "no such skill directory"},
		{"two parts", []string{"bump", filepath.Join(pkg, "skills", "fix-issue"), "--minor", "--major"}, "give one of --patch, --minor and --major"},
		{"unknown name", []string{"bump", "nope", "--dir", filepath.Join(pkg, "skills")}, `no skill "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runStax(t, tt.args...)
			if r.Code != 1 || !strings.Contains(r.Stderr, tt.msg) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", r.Code, r.Stderr, tt.msg)
			}
		})
	}
	// A skill without a version is told how to add one.
	dir := filepath.Join(t.TempDir(), "tool")
	filetest.WriteFile(t, filepath.Join(dir, "SKILL.md"), "---\nname: tool\ndescription: d\n---\nbody\n")
	r := runStax(t, "bump", dir)
	if r.Code != 1 || !strings.Contains(r.Stderr, `has no version; add one to its frontmatter, e.g. a line "version: 0.1.0"`) {
		t.Errorf("exit %d: %s", r.Code, r.Stderr)
	}
}
