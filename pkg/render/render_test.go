package render

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/stateful"
	"github.com/stax-dev/stax/pkg/substitute"
	"github.com/stax-dev/stax/pkg/tokens"
)

const (
	skillMD = "---\nname: t\ndescription: d\nversion: 1.0.0\n---\n\nBODY $ARGUMENTS[0] in ${STAX_SKILL_DIR}\n\n"
	calib   = "## Terminology\n\nCALIB\n"
	// Examples: a preamble, then three blocks.
	examples = "EXPRE\n\n## Example: A\n### Input\nia\n### Output\noa\n\n## Example: B\n### Input\nib\n### Output\nob\n\n## Example: C\n### Input\nic\n### Output\noc\n"
	// Memory: entries out of date order, one undated, two on the same day.
	memory = "---\nversion: 1.0.0\ncontributors: 2\nlastUpdated: 2026-05-01\n---\n# MEMPRE\n\n" +
		"## What worked\n\n" +
		"- W-OLD — @a, 2026-01-01\n" + // line 10
		"- W-NEW — @b, 2026-05-01\n" + // line 11
		"- W-NODATE\n" + // line 12
		"\n## What didn't\n\n" +
		"- D-MID — @c, 2026-03-01\n" + // line 16
		"- D-MID2 — @d, 2026-03-01\n" // line 17
)

func fullSkill() Skill {
	return Skill{Name: "t", SkillMD: []byte(skillMD), Siblings: map[string][]byte{
		stateful.CalibrationFile: []byte(calib),
		stateful.ExamplesFile:    []byte(examples),
		stateful.MemoryFile:      []byte(memory),
	}}
}

// marker finds each marker in text and returns them in the order they
// appear; a missing marker is left out.
func markers(text string, ms ...string) []string {
	type at struct {
		m string
		i int
	}
	var found []at
	for _, m := range ms {
		if i := strings.Index(text, m); i >= 0 {
			found = append(found, at{m, i})
		}
	}
	slices.SortFunc(found, func(a, b at) int { return a.i - b.i })
	var out []string
	for _, f := range found {
		out = append(out, f.m)
	}
	return out
}

var allMarkers = []string{"BODY", "CALIB", "EXPRE", "ia", "ib", "ic", "MEMPRE", "W-NEW", "W-OLD", "W-NODATE", "D-MID2", "D-MID"}

func TestLoadOrder(t *testing.T) {
	res, err := Render(fullSkill(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// MEMORY.md newest first across its sections; undated last.
	want := []string{"BODY", "CALIB", "EXPRE", "ia", "ib", "ic", "MEMPRE", "W-NEW", "D-MID", "D-MID2", "W-OLD", "W-NODATE"}
	if got := markers(res.Text, allMarkers...); !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v\n%s", got, want, res.Text)
	}
	if want := []string{"SKILL.md", "CALIBRATION.md", "EXAMPLES.md", "MEMORY.md"}; !slices.Equal(res.Files, want) {
		t.Errorf("files = %v, want %v", res.Files, want)
	}
	for _, s := range []string{"name: t", "contributors:", "lastUpdated"} {
		if strings.Contains(res.Text, s) {
			t.Errorf("frontmatter %q leaked into the text", s)
		}
	}
	if len(res.Dropped) != 0 || res.Bytes != int64(len(res.Text)) || res.Tokens != tokens.Estimate(res.Bytes) {
		t.Errorf("dropped %v, bytes %d, tokens %d for %d bytes", res.Dropped, res.Bytes, res.Tokens, len(res.Text))
	}
	// Each run of entries of one section is under its heading; list items
	// of a run stay together.
	if !strings.Contains(res.Text, "## What worked\n\n- W-NEW — @b, 2026-05-01\n\n## What didn't\n\n- D-MID — @c, 2026-03-01\n- D-MID2 — @d, 2026-03-01\n\n"+
		"## What worked\n\n- W-OLD — @a, 2026-01-01\n- W-NODATE\n") {
		t.Errorf("memory not rendered as expected:\n%s", res.Text)
	}
	if res.Entries != (Count{Included: 5, Total: 5}) || res.Examples != (Count{Included: 3, Total: 3}) {
		t.Errorf("counts: entries %+v, examples %+v", res.Entries, res.Examples)
	}
	// Parts are separated by exactly one blank line.
	if !strings.HasPrefix(res.Text, "BODY") || !strings.Contains(res.Text, "${STAX_SKILL_DIR}\n\n## Terminology\n\nCALIB\n\nEXPRE\n\n## Example: A") {
		t.Errorf("parts not joined by one blank line:\n%q", res.Text)
	}
	var kinds []string
	for _, p := range res.Included {
		kinds = append(kinds, p.File+":"+p.Kind)
		if p.Bytes != int64(len(p.text)) || p.Tokens != tokens.Estimate(p.Bytes) {
			t.Errorf("%+v: sizes do not match its text", p)
		}
	}
	wantKinds := []string{"SKILL.md:body", "CALIBRATION.md:file", "EXAMPLES.md:preamble", "EXAMPLES.md:example", "EXAMPLES.md:example", "EXAMPLES.md:example",
		"MEMORY.md:preamble", "MEMORY.md:entry", "MEMORY.md:entry", "MEMORY.md:entry", "MEMORY.md:entry", "MEMORY.md:entry"}
	if !slices.Equal(kinds, wantKinds) {
		t.Errorf("included = %v", kinds)
	}
}

func TestOnlySkillMD(t *testing.T) {
	res, err := Render(Skill{Name: "t", SkillMD: []byte(skillMD)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "BODY  in ${STAX_SKILL_DIR}\n" || !slices.Equal(res.Files, []string{"SKILL.md"}) {
		t.Errorf("text %q, files %v", res.Text, res.Files)
	}
}

func TestSubstitution(t *testing.T) {
	res, err := Render(fullSkill(), Options{Substitute: substitute.Options{Arguments: []string{"INC-42"}, SkillDir: "/s"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Text, "BODY INC-42 in /s\n") {
		t.Errorf("text starts %q", res.Text[:30])
	}
	if body := res.Included[0]; body.Bytes != int64(len("BODY INC-42 in /s\n")) {
		t.Errorf("body size %d is not the size after substitution", body.Bytes)
	}
}

// TestBudget drops pieces one by one: each step's budget is the size of
// the text without one more piece, so each step must drop exactly the next
// piece of the RFC's order, and no other.
func TestBudget(t *testing.T) {
	full, err := Render(fullSkill(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The drop order: oldest entries first (undated oldest of all; on the
	// same day, the later one first), the memory preamble, then examples
	// from the last, then the examples preamble.
	steps := []struct {
		dropped string // the marker that disappears at this step
		line    int
	}{
		{"W-NODATE", 12}, {"W-OLD", 10}, {"D-MID2", 17}, {"D-MID", 16}, {"W-NEW", 11}, {"MEMPRE", 6},
		{"ic", 15}, {"ib", 9}, {"ia", 3}, {"EXPRE", 1},
	}
	gone := map[string]bool{}
	prev := full
	for i, step := range steps {
		// A budget one byte under the current text drops exactly one piece.
		budget := Budget{Bytes: prev.Bytes - 1}
		res, err := Render(fullSkill(), Options{Budget: budget})
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, step.dropped, err)
		}
		if len(res.Dropped) != i+1 {
			t.Fatalf("step %d: dropped %d pieces, want %d", i, len(res.Dropped), i+1)
		}
		last := res.Dropped[i]
		if !strings.Contains(last.text, step.dropped) || last.Line != step.line {
			t.Errorf("step %d dropped %q (line %d), want %s (line %d)", i, last.text, last.Line, step.dropped, step.line)
		}
		gone[step.dropped] = true
		for _, m := range allMarkers {
			// "D-MID" is a prefix of "D-MID2": check whole lines.
			present := strings.Contains(res.Text, m+"\n") || strings.Contains(res.Text, m+" ")
			if present == gone[m] {
				t.Errorf("step %d: %s present = %v\n%s", i, m, present, res.Text)
			}
		}
		if res.Bytes > budget.Bytes {
			t.Errorf("step %d: %d bytes over the budget %d", i, res.Bytes, budget.Bytes)
		}
		if i < 5 && res.Entries.String() != fmt.Sprintf("%d of 5", 4-i) {
			t.Errorf("step %d: entries %s", i, res.Entries)
		}
		prev = res
	}
	// A section whose entries are all gone loses its heading; a part with
	// nothing left is gone too.
	if strings.Contains(prev.Text, "What worked") || strings.Contains(prev.Text, "Example") {
		t.Errorf("empty sections left:\n%s", prev.Text)
	}
	if prev.Text != "BODY  in ${STAX_SKILL_DIR}\n\n## Terminology\n\nCALIB\n" {
		t.Errorf("final text %q", prev.Text)
	}
	if !slices.Equal(prev.Files, []string{"SKILL.md", "CALIBRATION.md"}) {
		t.Errorf("files = %v", prev.Files)
	}
}

func TestBudgetRefuses(t *testing.T) {
	fixed := int64(len("BODY  in ${STAX_SKILL_DIR}\n\n## Terminology\n\nCALIB\n"))
	tests := []struct {
		name   string
		budget Budget
		refuse bool
		msg    string
	}{
		{name: "bytes exactly", budget: Budget{Bytes: fixed}},
		{name: "bytes one under", budget: Budget{Bytes: fixed - 1}, refuse: true, msg: "1 bytes over the budget of " + itoa(fixed-1) + " bytes"},
		{name: "tokens exactly", budget: Budget{Tokens: tokens.Estimate(fixed)}},
		{name: "tokens one under", budget: Budget{Tokens: tokens.Estimate(fixed) - 1}, refuse: true, msg: "1 tokens over"},
		{name: "tokens far under", budget: Budget{Tokens: 2}, refuse: true, msg: itoa(tokens.Estimate(fixed)-2) + " tokens over the budget of 2 tokens"},
		{name: "both, bytes binding", budget: Budget{Tokens: 1000, Bytes: fixed - 5}, refuse: true, msg: "5 bytes over the budget of 1000 tokens and "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Render(fullSkill(), Options{Budget: tt.budget})
			var over *OverBudgetError
			if !tt.refuse {
				if err != nil {
					t.Fatal(err)
				}
				if res.Bytes != fixed || len(res.Dropped) != 10 {
					t.Errorf("%d bytes, %d dropped", res.Bytes, len(res.Dropped))
				}
				return
			}
			if !errors.As(err, &over) {
				t.Fatalf("error = %v, want *OverBudgetError", err)
			}
			if over.Bytes != fixed || over.Tokens != tokens.Estimate(fixed) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q (%+v), want %q", err, over, tt.msg)
			}
		})
	}
}

func TestUnparseableSkillMD(t *testing.T) {
	_, err := Render(Skill{Name: "t", SkillMD: []byte("no frontmatter")}, Options{})
	if !errors.Is(err, ErrSkillMD) {
		t.Errorf("error = %v", err)
	}
}

// TestExampleSkill renders the stateful example skill of the repository at
// a budget that cuts its memory, as docs/stateful-skills.md shows.
func TestExampleSkill(t *testing.T) {
	dir := "../../examples/skills/incident-postmortem"
	s := Skill{Name: "incident-postmortem", Siblings: map[string][]byte{}}
	var err error
	if s.SkillMD, err = os.ReadFile(filepath.Join(dir, "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	for _, f := range stateful.Files {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		s.Siblings[f] = data
	}
	res, err := Render(s, Options{Budget: Budget{Tokens: 700}})
	if err != nil {
		t.Fatal(err)
	}
	var dates []string
	for _, p := range res.Dropped {
		dates = append(dates, p.Date)
	}
	// The two oldest entries go; the newest stays first.
	if !slices.Equal(dates, []string{"2026-07-19", "2026-08-02"}) || res.Tokens > 700 {
		t.Errorf("dropped %v, %d tokens", dates, res.Tokens)
	}
	if !strings.Contains(res.Text, "## What worked\n\n- Asking for the alerting rule") {
		t.Errorf("newest entry not first:\n%s", res.Text)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Entries without dates keep the file as written.
func TestUndatedMemoryKeepsFileOrder(t *testing.T) {
	s := fullSkill()
	s.Siblings[stateful.MemoryFile] = []byte("## What didn't\n\n- U1\n- U2\n\n## What worked\n\n- U3\n")
	res, err := Render(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(res.Text, "## What didn't\n\n- U1\n- U2\n\n## What worked\n\n- U3\n") {
		t.Errorf("undated memory reordered:\n%s", res.Text)
	}
}
