package warning

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestLinesGroupAKindAndSummary(t *testing.T) {
	t.Parallel()
	var ws []Warning
	for i := range 7 {
		s := fmt.Sprintf("s%d", i)
		ws = append(ws, Warning{Kind: "k", Skill: s, Summary: "X ignores model", Message: "skill " + s + ": X ignores model"})
	}
	ws = append(ws,
		Warning{Kind: "job", Message: "about the whole job"},
		Warning{Kind: "k", Skill: "s9", Summary: "X ignores tools", Message: "skill s9: X ignores tools"},
		Warning{Kind: "k", Skill: "s0", Summary: "X ignores model", Message: "skill s0: X ignores model again"},
	)
	got := strings.Join(Lines(ws, false), "\n")
	want := "X ignores model: 8 in 7 skills: s0, s1, s2, s3, s4 and 2 more (--verbose lists each)\n" +
		"about the whole job\n" +
		"skill s9: X ignores tools"
	if got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
	if verbose := Lines(ws, true); len(verbose) != len(ws) || verbose[0] != ws[0].Message {
		t.Errorf("verbose: %q", verbose)
	}
}

// Several warnings of one skill are "4 in 1 skill", not "1 skills".
func TestLinesOfOneSkill(t *testing.T) {
	t.Parallel()
	var ws []Warning
	for i := range 4 {
		ws = append(ws, Warning{Kind: "placeholder", Skill: "one", Summary: "placeholders", Message: fmt.Sprintf("skills/one/SKILL.md:%d: placeholder", i)})
	}
	if got, want := strings.Join(Lines(ws, false), "\n"), "placeholders: 4 in 1 skill: one (--verbose lists each)"; got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
}

// A job's warnings are a list of their messages in JSON, as before they
// had kinds, and read back as such.
func TestListIsItsMessagesInJSON(t *testing.T) {
	t.Parallel()
	l := List{{Kind: "ignored-fields", Skill: "a", Summary: "s", Message: "skill a: s"}, {Kind: "runtimes-overlap", Message: "m"}}
	data, err := json.Marshal(struct {
		Warnings List `json:"warnings"`
		None     List `json:"none"`
	}{Warnings: l})
	if err != nil || string(data) != `{"warnings":["skill a: s","m"],"none":[]}` {
		t.Fatalf("marshal: %s, %v", data, err)
	}
	var back struct {
		Warnings List `json:"warnings"`
	}
	if err := json.Unmarshal(data, &back); err != nil || len(back.Warnings) != 2 || back.Warnings[1].Message != "m" {
		t.Errorf("read back: %+v, %v", back, err)
	}
}
