package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
)

var postmortem = filepath.Join(examples, "skills", "incident-postmortem")

// order returns the markers in the order they appear in text; a missing
// marker fails the test.
func order(t *testing.T, text string, markers ...string) []int {
	t.Helper()
	var at []int
	for _, m := range markers {
		i := strings.Index(text, m)
		if i < 0 {
			t.Errorf("text lacks %q", m)
		}
		at = append(at, i)
	}
	return at
}

// TestRenderExampleLoadOrderAndTruncation renders the stateful example
// skill whole, then at a budget that cuts its memory: the load order of
// stateful skills (docs/stateful-skills.md), the oldest entries dropped
// first, and the summary on stderr.
func TestRenderExampleLoadOrderAndTruncation(t *testing.T) {
	t.Parallel()
	full := runStax(t, "render", postmortem, "--", "INC-42")
	if full.Code != 0 {
		t.Fatalf("render: %d %s", full.Code, full.Stderr)
	}
	markers := []string{
		"Write the postmortem for incident INC-42.", // SKILL.md body, substituted
		"## Terminology",                                   // CALIBRATION.md
		"## Example: database failover",                    // EXAMPLES.md, first block
		"## Example: certificate expiry",                   // EXAMPLES.md, last block
		"## What worked\n\n- Asking for the alerting rule", // MEMORY.md, newest first across sections
		"## Open questions\n\n- Should near-misses",        // 2026-10-01
		"## What worked\n\n- Putting the customer-facing",  // 2026-09-14
		"## What didn't",                                   // 2026-08-02
		"## Edge cases",                                    // 2026-07-19
	}
	if at := order(t, full.Stdout, markers...); !slices.IsSorted(at) {
		t.Errorf("load order is not body, calibration, examples, memory:\n%s", full.Stdout)
	}
	for _, s := range []string{"name: incident-postmortem", "contributors: 4", "$ARGUMENTS"} {
		if strings.Contains(full.Stdout, s) {
			t.Errorf("rendered text holds %q", s)
		}
	}
	wantOrder := "incident-postmortem: load order: SKILL.md body (718 B) → CALIBRATION.md (411 B) → " +
		"EXAMPLES.md (2 examples, 1196 B) → MEMORY.md (5 entries, most recent first, 651 B)\n"
	if !strings.HasPrefix(full.Stderr, wantOrder) {
		t.Errorf("stderr =\n%s\nwant it to start\n%s", full.Stderr, wantOrder)
	}
	if strings.Contains(full.Stderr, "dropped") {
		t.Errorf("dropped without a budget:\n%s", full.Stderr)
	}

	// 700 tokens: the two oldest entries go, and only them.
	cut := runStax(t, "render", postmortem, "--budget", "700", "--", "INC-42")
	if cut.Code != 0 {
		t.Fatalf("render --budget 700: %d %s", cut.Code, cut.Stderr)
	}
	for _, gone := range []string{"@li, 2026-07-19", "@mira, 2026-08-02", "## Edge cases", "## What didn't"} {
		if strings.Contains(cut.Stdout, gone) {
			t.Errorf("%q survived the budget", gone)
		}
	}
	for _, kept := range []string{"@mira, 2026-10-28", "@jonas, 2026-10-01", "## Example: certificate expiry", "## Avoid"} {
		if !strings.Contains(cut.Stdout, kept) {
			t.Errorf("%q was dropped", kept)
		}
	}
	wantCut := "incident-postmortem: load order: SKILL.md body (718 B) → CALIBRATION.md (411 B) → " +
		"EXAMPLES.md (2 examples, 1196 B) → MEMORY.md (3 of 5 entries, most recent first, 382 B)\n" +
		"dropped to fit the budget of 700 tokens:\n" +
		"  MEMORY.md:22  entry of 2026-07-19 by @li (123 B)\n" +
		"  MEMORY.md:17  entry of 2026-08-02 by @mira (146 B)\n" +
		"rendered 2764 bytes, about 691 tokens (bytes/4), budget 700 tokens\n"
	if cut.Stderr != wantCut {
		t.Errorf("stderr =\n%s\nwant\n%s", cut.Stderr, wantCut)
	}
	if len(cut.Stdout) != 2764 {
		t.Errorf("stdout is %d bytes, the summary says 2764", len(cut.Stdout))
	}
}

func TestRenderRefusesOverBudget(t *testing.T) {
	t.Parallel()
	r := runStax(t, "render", postmortem, "--budget", "200")
	if r.Code != 1 || r.Stdout != "" {
		t.Fatalf("exit %d, stdout %q", r.Code, r.Stdout)
	}
	// Body (712 bytes without arguments) + blank line + CALIBRATION.md (411).
	if !strings.Contains(r.Stderr, "take 1124 bytes (about 281 tokens), 81 tokens over the budget of 200 tokens") {
		t.Errorf("stderr = %s", r.Stderr)
	}

	j := runStax(t, "render", postmortem, "--budget-bytes", "1000", "--output", "json")
	var out renderResult
	decodeJSON(t, j.Stdout, &out)
	if j.Code != 1 || out.Refused == nil || out.Refused.Bytes != 1124 || out.Refused.Budget.Bytes != 1000 || out.Result != nil {
		t.Errorf("exit %d, %+v", j.Code, out)
	}
}

func TestRenderJSON(t *testing.T) {
	t.Parallel()
	r := runStax(t, "render", "incident-postmortem", "--dir", filepath.Join(examples, "skills"), "--budget", "650", "--output", "json", "--", "INC-7")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var out struct {
		Skill    string   `json:"skill"`
		Files    []string `json:"files"`
		Bytes    int64    `json:"bytes"`
		Tokens   int64    `json:"tokens"`
		Text     string   `json:"text"`
		Included []struct {
			File  string `json:"file"`
			Kind  string `json:"kind"`
			Bytes int64  `json:"bytes"`
		} `json:"included"`
		Dropped []struct {
			File, Kind, Date, Signer string
			Line                     int
			Bytes, Tokens            int64
		} `json:"dropped"`
	}
	decodeJSON(t, r.Stdout, &out)
	if out.Skill != "incident-postmortem" || out.Tokens > 650 || int64(len(out.Text)) != out.Bytes {
		t.Errorf("skill %q, %d tokens, %d bytes for %d of text", out.Skill, out.Tokens, out.Bytes, len(out.Text))
	}
	if !slices.Equal(out.Files, []string{"SKILL.md", "CALIBRATION.md", "EXAMPLES.md", "MEMORY.md"}) {
		t.Errorf("files = %v", out.Files)
	}
	var dates []string
	for _, d := range out.Dropped {
		if d.File != "MEMORY.md" || d.Kind != "entry" || d.Bytes == 0 || d.Tokens == 0 || d.Line == 0 || d.Signer == "" {
			t.Errorf("dropped %+v", d)
		}
		dates = append(dates, d.Date)
	}
	if !slices.Equal(dates, []string{"2026-07-19", "2026-08-02", "2026-09-14", "2026-10-01"}) {
		t.Errorf("dropped dates = %v, want oldest first", dates)
	}
	if !strings.Contains(out.Text, "incident INC-7.") || len(out.Included) != 5 {
		t.Errorf("included %d pieces; text:\n%s", len(out.Included), out.Text)
	}
}

func TestRenderVariables(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	filetest.WriteFile(t, filepath.Join(dir, "tool", "SKILL.md"),
		"---\nname: tool\ndescription: d\n---\nall=$ARGUMENTS first=$ARGUMENTS[0] third=[$ARGUMENTS[2]] dir=${STAX_SKILL_DIR} ws=${STAX_WORKSPACE} lit=\\$ARGUMENTS\n")
	abs, _ := filepath.Abs(filepath.Join(dir, "tool"))
	r := runStax(t, "render", filepath.Join(dir, "tool"), "--workspace", "/ws", "--", "a b", "--flag")
	want := "all=a b --flag first=a b third=[] dir=" + abs + " ws=/ws lit=$ARGUMENTS\n"
	if r.Code != 0 || r.Stdout != want {
		t.Errorf("exit %d\n got %q\nwant %q\n%s", r.Code, r.Stdout, want, r.Stderr)
	}
	r = runStax(t, "render", filepath.Join(dir, "tool"), "--skill-dir", "/installed/tool")
	if !strings.Contains(r.Stdout, "dir=/installed/tool ") {
		t.Errorf("--skill-dir ignored: %q", r.Stdout)
	}
	wd, _ := os.Getwd()
	if !strings.Contains(r.Stdout, "ws="+wd+" ") {
		t.Errorf("workspace is not the current directory: %q", r.Stdout)
	}
}

func TestRenderPackagedSkill(t *testing.T) {
	t.Parallel()
	useHome(t)
	if r := runStax(t, "pack", examples); r.Code != 0 {
		t.Fatalf("pack: %s", r.Stderr)
	}
	fromDir := runStax(t, "render", postmortem, "--skill-dir", "/s", "--workspace", "/w", "--", "X")
	fromPkg := runStax(t, "render", "example-skills:1.0.0#incident-postmortem", "--skill-dir", "/s", "--workspace", "/w", "--", "X")
	if fromPkg.Code != 0 || fromPkg.Stdout != fromDir.Stdout {
		t.Errorf("packaged render differs from the directory's (exit %d):\n%s", fromPkg.Code, fromPkg.Stderr)
	}
	// Without --skill-dir, a packaged skill has no directory yet.
	r := runStax(t, "render", "example-skills:1.0.0#review-pr")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Review pull request .") {
		t.Errorf("exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}

	layout := filepath.Join(t.TempDir(), "out")
	if r := runStax(t, "pack", examples, "-t", "oci:"+layout+":1.0.0"); r.Code != 0 {
		t.Fatalf("pack: %s", r.Stderr)
	}
	if r := runStax(t, "render", "oci:"+layout+":1.0.0#incident-postmortem", "--skill-dir", "/s", "--workspace", "/w", "--", "X"); r.Stdout != fromDir.Stdout {
		t.Errorf("oci: render differs (exit %d): %s", r.Code, r.Stderr)
	}
}

func TestRenderErrors(t *testing.T) {
	t.Parallel()
	useHome(t)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"arguments before --", []string{"render", postmortem, "X"}, 1, "after --"},
		{"no skill before --", []string{"render", "--", "X"}, 1, "name the skill before --"},
		{"two skills", []string{"render", postmortem, postmortem, "--", "X"}, 1, "one skill"},
		{"not a skill directory", []string{"render", examples}, 1, "../../examples is not a skill directory: it has no SKILL.md"},
		{"unknown name", []string{"render", "nope", "--dir", filepath.Join(examples, "skills")}, 1, "skills in ../../examples/skills: fix-issue, incident-postmortem, review-pr, write-changelog"},
		{"missing path", []string{"render", "./nope/skill"}, 1, "no such skill directory"},
		{"negative budget", []string{"render", postmortem, "--budget", "-1"}, 1, "must not be negative"},
		{"unknown package", []string{"render", "nothing:1.0.0#x"}, 1, "nothing:1.0.0 is not in the local store"},
		{"no name after #", []string{"render", "nothing:1.0.0#"}, 1, "name a skill directory after #"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runStax(t, tt.args...)
			if r.Code != tt.code || !strings.Contains(r.Stderr, tt.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.Code, r.Stderr, tt.code, tt.msg)
			}
		})
	}
}
