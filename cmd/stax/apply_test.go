package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/proposal"
)

var proposalFixtures = filepath.Join("..", "..", "testdata", "proposals")

func proposalSkills(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "skills")
	copyTree(t, filepath.Join(proposalFixtures, "skills"), dir)
	return dir
}

func TestApplyCommand(t *testing.T) {
	t.Parallel()
	setenv(t, "SOURCE_DATE_EPOCH", "1795395600") // 2026-11-23
	dir := proposalSkills(t)
	revise := filepath.Join(proposalFixtures, "revise.json")

	r := runStax(t, "apply", revise, dir, "--dry-run")
	if r.Code != 0 || !strings.Contains(r.Stdout, "would apply revise to triage-bug: 1.2.0 → 1.3.0 (minor)") ||
		!strings.Contains(r.Stdout, "  A triage-bug/references/flaky.md  +1 -0") {
		t.Fatalf("dry run: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "triage-bug", "references", "flaky.md")); !os.IsNotExist(err) {
		t.Fatal("--dry-run wrote")
	}

	r = runStax(t, "apply", revise, dir, "--major", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("apply: %d %s", r.Code, r.Stderr)
	}
	var res struct {
		proposal.Result
		Applied bool
	}
	decodeJSON(t, r.Stdout, &res)
	if !res.Applied || len(res.Rules) != 8 || res.Skills[0].To != "2.0.0" || res.Skills[0].Part != "major" {
		t.Errorf("result %+v", res)
	}
	mem := readText(t, filepath.Join(dir, "triage-bug", "MEMORY.md"))
	if !strings.Contains(mem, "version: 2.0.0") || !strings.Contains(mem, "lastUpdated: 2026-11-23") {
		t.Errorf("MEMORY.md:\n%s", mem)
	}
	if v := runStax(t, "validate", dir); v.Code != 0 {
		t.Errorf("the applied skills do not validate: %s", v.Stdout)
	}

	// A proposal of the current SKILL.md verbatim changes nothing.
	r = runStax(t, "apply", filepath.Join(proposalFixtures, "noop.json"), proposalSkills(t))
	if r.Code != 0 || !strings.Contains(r.Stdout, "no change") {
		t.Errorf("no-op: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
}

func TestApplyCommandRejects(t *testing.T) {
	t.Parallel()
	dir := proposalSkills(t)
	r := runStax(t, "apply", filepath.Join(proposalFixtures, "reject-uncited.json"), dir)
	if r.Code != 1 || !strings.Contains(r.Stderr, "rule tier3-cited: triage-bug/assets/template.md is not cited from SKILL.md") {
		t.Errorf("exit %d\n%s", r.Code, r.Stderr)
	}
	r = runStax(t, "apply", filepath.Join(proposalFixtures, "reject-hostile-paths.json"), dir, "--output", "json")
	var res proposal.Result
	decodeJSON(t, r.Stdout, &res)
	if r.Code != 1 || len(res.Rules) != 2 || res.Rules[1].Rule != "safe-paths" || res.Rules[1].Passed {
		t.Errorf("exit %d, rules %+v", r.Code, res.Rules)
	}
	// A proposal that is not one fails the format rule, in JSON too.
	r = runStaxWith(t, &IOStreams{In: strings.NewReader(`{"summary": "x"`)}, "apply", "-", dir, "--output", "json")
	decodeJSON(t, r.Stdout, &res)
	if r.Code != 1 || len(res.Rules) != 1 || res.Rules[0].Rule != "format" || !strings.Contains(r.Stderr, "rule format: not a proposal") {
		t.Errorf("exit %d %+v\n%s", r.Code, res.Rules, r.Stderr)
	}
}

func TestApplyCommandArguments(t *testing.T) {
	t.Parallel()
	var got *applyOptions
	cmd := newApplyCmd(newFactory(&IOStreams{}, &globalOptions{}), func(_ context.Context, o *applyOptions) error { got = o; return nil })
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetArgs([]string{"p.json", "skills", "--minor", "--dry-run"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Proposal != "p.json" || got.SkillsDir != "skills" || !got.Minor || !got.DryRun {
		t.Errorf("options %+v", got)
	}
	cmd.SetArgs([]string{"p.json", "--minor", "--major"})
	if err := cmd.Execute(); err == nil {
		t.Error("--minor with --major accepted")
	}
}

// A proposed file past the line limit, or text that is not UTF-8, is
// refused as invalid input (exit 1, in JSON too), before the line diff
// that would panic on more distinct lines than there are runes.
func TestApplyCommandRefusesUnreadableContent(t *testing.T) {
	t.Parallel()
	// Lines are appended, not printed: 1.2 million Fprintf calls took
	// seconds under the race detector.
	var big []byte
	for i := range 1_200_000 {
		big = strconv.AppendInt(big, int64(i), 16)
		big = append(big, '\n')
	}
	skillMD := readText(t, filepath.Join(proposalFixtures, "skills", "triage-bug", "SKILL.md")) + "\nRead references/big.md.\n"
	huge, err := json.Marshal(map[string]any{"summary": "s", "operation_type": "revise", "upsert_files": map[string]string{
		"triage-bug/SKILL.md": skillMD, "triage-bug/references/big.md": string(big),
	}})
	if err != nil {
		t.Fatal(err)
	}
	dir := proposalSkills(t)
	r := runStaxWith(t, &IOStreams{In: strings.NewReader(string(huge))}, "apply", "-", dir, "--output", "json")
	var res proposal.Result
	decodeJSON(t, r.Stdout, &res)
	want := fmt.Sprintf(`upsert_files "triage-bug/references/big.md" has 1200000 lines; a proposed file has at most %d`, proposal.MaxLines)
	if r.Code != 1 || len(res.Rules) != 1 || res.Rules[0].Rule != "format" || res.Rules[0].Passed ||
		!strings.Contains(fmt.Sprint(res.Rules[0].Problems), want) {
		t.Errorf("exit %d, rules %+v\n%s", r.Code, res.Rules, r.Stderr)
	}
	var failure struct {
		Error struct {
			Exit          int
			Code, Message string
		}
	}
	decodeJSON(t, r.Stderr, &failure)
	if failure.Error.Exit != 1 || failure.Error.Code != "invalid" || !strings.Contains(failure.Error.Message, want) {
		t.Errorf("error %+v", failure.Error)
	}
	if _, err := os.Stat(filepath.Join(dir, "triage-bug", "references", "big.md")); !os.IsNotExist(err) {
		t.Error("the refused proposal wrote")
	}

	invalid := `{"summary": "s", "operation_type": "revise", "upsert_files": {"triage-bug/references/x.md": "caf` + "\xe9" + `"}}`
	r = runStaxWith(t, &IOStreams{In: strings.NewReader(invalid)}, "apply", "-", dir)
	if r.Code != 1 || !strings.Contains(r.Stderr, `rule format: not a proposal: line 1, column 97, in upsert_files "triage-bug/references/x.md": invalid UTF-8`) {
		t.Errorf("exit %d\n%s", r.Code, r.Stderr)
	}
}
