package main

import (
	"github.com/stax-dev/stax/pkg/workflow"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/validate"
)

// TestStatefulWorkflow is the workflow docs/stateful-skills.md documents:
// publish, edit MEMORY.md, see validate --against refuse it, stax bump,
// validate again.
func TestStatefulWorkflow(t *testing.T) {
	t.Parallel()
	useHome(t)
	pkg := copyExamples(t)
	layout := "oci:" + filepath.Join(t.TempDir(), "published") + ":1.0.0"
	if r := runStax(t, "pack", pkg, "-t", layout); r.Code != 0 {
		t.Fatalf("pack: %s", r.Stderr)
	}
	if r := runStax(t, "pack", pkg); r.Code != 0 { // example-skills:1.0.0 in the local store
		t.Fatalf("pack: %s", r.Stderr)
	}
	// Unchanged: nothing to bump.
	for _, ref := range []string{layout, "example-skills:1.0.0"} {
		if r := runStax(t, "validate", pkg, "--against", ref); r.Code != 0 {
			t.Fatalf("unchanged against %s: exit %d\n%s%s", ref, r.Code, r.Stdout, r.Stderr)
		}
	}

	skillDir := filepath.Join(pkg, "skills", "incident-postmortem")
	memory := filepath.Join(skillDir, "MEMORY.md")
	f, err := os.OpenFile(memory, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("- Ask who declared the incident over. — @ann, 2026-11-02\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()

	r := runStax(t, "validate", pkg, "--against", layout)
	if r.Code != 1 {
		t.Fatalf("changed memory, no bump: exit %d\n%s", r.Code, r.Stdout)
	}
	want := memory + ": error: skill incident-postmortem: MEMORY.md changed since " + layout +
		", but the skill's version 1.3.2 is not greater than the published 1.3.2; " +
		"a change to MEMORY.md needs at least a patch bump: run stax bump " + skillDir + " [version-not-bumped]\n"
	if !strings.HasPrefix(r.Stdout, want) {
		t.Errorf("stdout =\n%s\nwant it to start\n%s", r.Stdout, want)
	}
	j := runStax(t, "validate", pkg, "--against", layout, "--output", "json")
	var report validate.Report
	decodeJSON(t, j.Stdout, &report)
	if j.Code != 1 || len(report.Errors) != 1 || report.Errors[0].Code != validate.CodeVersionNotBumped {
		t.Errorf("json: exit %d, %+v", j.Code, report.Errors)
	}

	if r := runStax(t, "bump", skillDir); r.Code != 0 {
		t.Fatalf("bump: %s", r.Stderr)
	}
	if r := runStax(t, "validate", "--strict", pkg, "--against", layout); r.Code != 0 {
		t.Errorf("after bump: exit %d\n%s", r.Code, r.Stdout)
	}
}

func TestValidateAgainstErrors(t *testing.T) {
	t.Parallel()
	useHome(t)
	// Not in the local store, so its registry is asked: a closed loopback port.
	r := runStax(t, "validate", examples, "--against", "127.0.0.1:9/missing:1.0.0")
	if r.Code != 3 || !strings.Contains(r.Stderr, "127.0.0.1:9/missing:1.0.0 is not in the local store") {
		t.Errorf("exit %d: %s", r.Code, r.Stderr)
	}
	r = runStax(t, "validate", examples, "--against", "oci:"+filepath.Join(t.TempDir(), "none"))
	if r.Code != 2 || !strings.Contains(r.Stderr, "no OCI layout at") {
		t.Errorf("missing layout: exit %d: %s", r.Code, r.Stderr)
	}
}

func TestValidateStatefulFixtures(t *testing.T) {
	t.Parallel()
	const root = "../../testdata/stateful"
	tests := map[string]struct {
		code    string
		warning bool
	}{
		"example-incomplete":         {validate.CodeExampleIncomplete, false},
		"memory-contributors":        {validate.CodeMemoryContributors, false},
		"memory-field-missing":       {validate.CodeMemoryFieldMissing, false},
		"memory-frontmatter-invalid": {validate.CodeMemoryFrontmatterInvalid, false},
		"memory-frontmatter-missing": {validate.CodeMemoryFrontmatterMissing, false},
		"memory-last-updated":        {validate.CodeMemoryLastUpdated, false},
		"memory-version-mismatch":    {validate.CodeMemoryVersionMismatch, false},
		"sibling-case":               {validate.CodeSiblingCase, true},
		"valid":                      {"", false},
		"nested-siblings":            {"", false},
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(tests) {
		t.Errorf("%d fixtures, %d cases: every fixture needs a case", len(entries), len(tests))
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			r := runStax(t, "validate", filepath.Join(root, name), "--output", "json")
			var report validate.Report
			decodeJSON(t, r.Stdout, &report)
			wantExit := 1
			found := report.Errors
			switch {
			case tt.code == "":
				wantExit, found = 0, nil
			case tt.warning:
				wantExit, found = 0, report.Warnings
			}
			if r.Code != wantExit {
				t.Errorf("exit %d, want %d: %+v", r.Code, wantExit, report)
			}
			if tt.code != "" && !hasCode(found, tt.code) {
				t.Errorf("no %s in %+v", tt.code, found)
			}
			if tt.warning {
				if s := runStax(t, "validate", "--strict", filepath.Join(root, name)); s.Code != 1 {
					t.Errorf("--strict: exit %d", s.Code)
				}
			}
		})
	}
}

func TestInspectShowsSiblings(t *testing.T) {
	t.Parallel()
	useHome(t)
	if r := runStax(t, "pack", examples); r.Code != 0 {
		t.Fatalf("pack: %s", r.Stderr)
	}
	r := runStax(t, "inspect", "example-skills:1.0.0", "--output", "json")
	var out workflow.InspectResult
	decodeJSON(t, r.Stdout, &out)
	for _, s := range out.Skills {
		if s.Stateful == nil {
			t.Fatalf("%s: no stateful summary", s.Name)
		}
		got := s.Stateful
		switch s.Name {
		case "incident-postmortem":
			if strings.Join(got.Siblings, ",") != "CALIBRATION.md,EXAMPLES.md,MEMORY.md" || got.MemoryEntries != 5 || got.Examples != 2 {
				t.Errorf("%s: %+v", s.Name, got)
			}
		default:
			if len(got.Siblings) != 0 || got.MemoryEntries != 0 || got.Examples != 0 {
				t.Errorf("%s: %+v", s.Name, got)
			}
		}
	}
	text := runStax(t, "inspect", "example-skills:1.0.0")
	if !strings.Contains(text.Stdout, "    stateful: CALIBRATION.md, EXAMPLES.md (2 examples), MEMORY.md (5 entries)\n") {
		t.Errorf("text output lacks the stateful line:\n%s", text.Stdout)
	}
	if strings.Count(text.Stdout, "stateful:") != 1 {
		t.Errorf("skills without siblings print a stateful line:\n%s", text.Stdout)
	}
}

// TestStatefulWorkflowThroughRegistry runs that workflow against a
// registry: pull the release, edit MEMORY.md, validate --against the
// pulled reference, bump, push the next version.
func TestStatefulWorkflowThroughRegistry(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	release := reg.Host + "/acme/skills:1.0.0"
	pushExamples(t, release)

	useHome(t) // another machine: the release is only in the registry
	if r := runStax(t, "pull", release); r.Code != 0 {
		t.Fatalf("pull: exit %d %s", r.Code, r.Stderr)
	}
	pkg := copyExamples(t)
	skillDir := filepath.Join(pkg, "skills", "incident-postmortem")
	calibration := filepath.Join(skillDir, "CALIBRATION.md")
	filetest.WriteFile(t, calibration, readText(t, calibration)+"- Say \"customer\", never \"user\", in the impact sentence.\n")

	r := runStax(t, "validate", pkg, "--against", release)
	if r.Code != 1 || !strings.Contains(r.Stdout, "skill incident-postmortem: CALIBRATION.md changed since "+release) {
		t.Fatalf("validate before bump: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runStax(t, "bump", skillDir); r.Code != 0 {
		t.Fatalf("bump: %s", r.Stderr)
	}
	if r := runStax(t, "validate", pkg, "--against", release); r.Code != 0 {
		t.Fatalf("validate after bump: exit %d\n%s", r.Code, r.Stdout)
	}
	if r := runStax(t, "push", pkg, reg.Host+"/acme/skills:1.0.1"); r.Code != 0 {
		t.Fatalf("push: exit %d %s", r.Code, r.Stderr)
	}
}
