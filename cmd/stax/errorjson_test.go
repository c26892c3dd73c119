package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

// TestJSONErrors checks that with --output json a failure is exactly one
// JSON object on stderr, with the exit code, a stable code, and the file
// and line when the failure has them.
func TestJSONErrors(t *testing.T) {
	t.Parallel()
	useHome(t)
	invalid, err := filepath.Abs("../../testdata/skills/invalid/name-invalid")
	if err != nil {
		t.Fatal(err)
	}
	typo := t.TempDir()
	filetest.WriteFile(t, filepath.Join(typo, "stax.yaml"), "name: team\ninstal:\n  sources: [.]\n")
	// A mistake stax's own reader of a declaration finds, not yaml.
	badPath := t.TempDir()
	filetest.WriteFile(t, filepath.Join(badPath, "stax.yaml"), "name: team\nversion: 1.0.0\npackages:\n  - path: team-skills\n")
	tests := []struct {
		name     string
		args     []string
		exit     int
		code     string
		file     string // suffix of the file, when there is one
		line     int
		hintWant string
	}{
		{"unknown flag", []string{"pack", "--no-such-flag", "--output", "json"}, 1, "usage", "", 0, "--help"},
		{"wrong args", []string{"--output", "json", "inspect"}, 1, "usage", "", 0, "--help"},
		{"unknown command", []string{"--output", "json", "frobnicate"}, 1, "usage", "", 0, "--help"},
		{"bad reference", []string{"inspect", "Bad/Ref:x", "--output", "json"}, 1, "invalid-reference", "", 0, "lowercase"},
		{"skills invalid", []string{"pack", invalid, "--output", "json"}, 1, "skills-invalid",
			filepath.Join("Bad_Name", "SKILL.md"), 2, "stax validate"},
		{"mistyped key of stax.yaml", []string{"install", "--dir", typo, "--output", "json"}, 1, "yaml-invalid",
			filepath.Join(typo, "stax.yaml"), 2, "what the line should hold"},
		{"declaration stax.yaml's reader refuses", []string{"pack", badPath, "--output", "json"}, 1, "yaml-invalid",
			filepath.Join(badPath, "stax.yaml"), 4, "what the line should hold"},
		{"missing directory", []string{"pack", filepath.Join(t.TempDir(), "nothing"), "--output", "json"}, 2, "file-not-found", "nothing", 0, ""},
		{"unreachable registry", []string{"resolve", "--remote", "127.0.0.1:9/x/y:1", "--output", "json"}, 3, "registry-unreachable", "", 0, "running"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runStax(t, tt.args...)
			if r.Code != tt.exit {
				t.Errorf("exit %d, want %d; stderr %s", r.Code, tt.exit, r.Stderr)
			}
			var got struct {
				Error *jsonError `json:"error"`
			}
			dec := json.NewDecoder(strings.NewReader(r.Stderr))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil || got.Error == nil {
				t.Fatalf("stderr is not one JSON error object (%v):\n%s", err, r.Stderr)
			}
			if dec.More() {
				t.Errorf("more than one JSON value on stderr:\n%s", r.Stderr)
			}
			e := got.Error
			if e.Exit != tt.exit || e.Code != tt.code || e.Message == "" {
				t.Errorf("error = %+v; want exit %d, code %q and a message", e, tt.exit, tt.code)
			}
			if tt.file == "" && e.File != "" || !strings.HasSuffix(e.File, tt.file) || e.Line != tt.line {
				t.Errorf("file %q line %d; want a file ending in %q, line %d", e.File, e.Line, tt.file, tt.line)
			}
			if !strings.Contains(e.Hint, tt.hintWant) {
				t.Errorf("hint %q does not contain %q", e.Hint, tt.hintWant)
			}
		})
	}
}

// TestJSONErrorsCodesDocumented keeps the table of error codes in
// docs/output-and-errors.md and the codes the CLI can give in step.
func TestJSONErrorsCodesDocumented(t *testing.T) {
	t.Parallel()
	page := repoFile(t, "docs/output-and-errors.md")
	for _, c := range errorCodes {
		if !strings.Contains(page, "| `"+c.Code+"` |") {
			t.Errorf("docs/output-and-errors.md has no row for the error code %q", c.Code)
		}
	}
}

// TestTextErrorsUnchanged: without --output json an error stays one
// "Error: …" line, not JSON.
func TestTextErrorsUnchanged(t *testing.T) {
	t.Parallel()
	useHome(t)
	r := runStax(t, "inspect", "Bad/Ref:x")
	if r.Code != 1 || !strings.HasPrefix(r.Stderr, "Error: ") {
		t.Errorf("exit %d, stderr %q", r.Code, r.Stderr)
	}
}
