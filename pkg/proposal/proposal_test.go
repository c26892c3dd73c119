package proposal

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// parseRejected parses text and returns the format rule's problems, failing
// the test unless the proposal is rejected by that rule alone.
func parseRejected(t *testing.T, text string) string {
	t.Helper()
	_, err := Parse(strings.NewReader(text), 64<<20)
	var rejected *RejectedError
	if !errors.As(err, &rejected) || len(rejected.Rules) != 1 || rejected.Rules[0].Rule != RuleFormat {
		t.Fatalf("Parse = %v, want a rejection by rule %s", err, RuleFormat)
	}
	return strings.Join(rejected.Rules[0].Problems, "\n")
}

const validSkillMD = `---\nname: a\ndescription: d\n---\n# A\n`

// Text that is not UTF-8 is refused where it is, not rewritten with
// U+FFFD and written.
func TestParseRefusesInvalidUTF8(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		// where names the member and line the problem is in.
		where string
	}{{
		name:  "content",
		text:  "{\"summary\": \"s\", \"operation_type\": \"revise\",\n\"upsert_files\": {\n\"a/SKILL.md\": \"" + validSkillMD + "\",\n\"a/references/x.md\": \"caf\xe9\"}}",
		where: `line 4, column 26, in upsert_files "a/references/x.md"`,
	}, {
		name:  "escaped lone surrogate",
		text:  "{\"summary\": \"s\", \"operation_type\": \"revise\",\n\"upsert_files\": {\"a/SKILL.md\": \"" + validSkillMD + `\ud800"}}`,
		where: `line 2, column 73, in upsert_files "a/SKILL.md"`,
	}, {
		name:  "file path",
		text:  "{\"summary\": \"s\", \"operation_type\": \"revise\",\n\"upsert_files\": {\n\"a/SKILL.md\": \"" + validSkillMD + "\",\n\"a/\xff.md\": \"x\"}}",
		where: "line 4, column 4, in upsert_files:",
	}, {
		name:  "skill name",
		text:  "{\"summary\": \"s\", \"operation_type\": \"revise\",\n\"upsert_files\": {\"\xc3/SKILL.md\": \"" + validSkillMD + "\"}}",
		where: "line 2, column 19, in upsert_files:",
	}, {
		name:  "legacy skill_md",
		text:  "{\"summary\": \"s\", \"operation_type\": \"revise\",\n\"skill_md\": \"" + validSkillMD + "\xed\xa0\x80\"}",
		where: "line 2, column 54, in skill_md",
	}, {
		name:  "summary",
		text:  "{\"summary\": \"\xfe\", \"operation_type\": \"revise\", \"skill_md\": \"" + validSkillMD + "\"}",
		where: "line 1, column 14, in summary",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			problems := parseRejected(t, tt.text)
			if !strings.Contains(problems, tt.where) || !strings.Contains(problems, "UTF-8") && !strings.Contains(problems, "surrogate") {
				t.Errorf("problems %q do not name %q and the bad text", problems, tt.where)
			}
			if strings.Contains(problems, "\ufffd") {
				t.Errorf("problems %q hold a replacement character", problems)
			}
		})
	}
}

// A file given twice is refused: a reader of the JSON sees the first
// content, and the last one would be written.
func TestParseRefusesRepeatedFile(t *testing.T) {
	t.Parallel()
	problems := parseRejected(t, "{\"summary\": \"s\", \"operation_type\": \"revise\", \"upsert_files\": {\n\"a/SKILL.md\": \""+validSkillMD+"\",\n\"a/SKILL.md\": \""+validSkillMD+"# B\\n\"}}")
	if !strings.Contains(problems, `line 3, column 1, in upsert_files "a/SKILL.md": given twice`) {
		t.Errorf("problems %q", problems)
	}
}

func TestParseRefusesUnknownField(t *testing.T) {
	t.Parallel()
	problems := parseRejected(t, "{\"summary\": \"s\", \"operation_type\": \"revise\",\n\"delete_files\": [\"a/x\"], \"skill_md\": \""+validSkillMD+"\"}")
	if !strings.Contains(problems, `line 2, column 1: unknown field "delete_files"`) {
		t.Errorf("problems %q", problems)
	}
}

// lines builds a text of n distinct lines.
func lines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%x\n", i)
	}
	return b.String()
}

// A proposed file has at most MaxLines lines: the boundary is accepted,
// one more line is refused naming the file and the limit.
func TestParseLineLimit(t *testing.T) {
	t.Parallel()
	proposal := func(text string) string {
		return fmt.Sprintf(`{"summary": "s", "operation_type": "revise", "upsert_files": {"a/SKILL.md": "%s", "a/references/big.md": %q}}`, validSkillMD, text)
	}
	full := lines(MaxLines)
	if _, err := Parse(strings.NewReader(proposal(full)), 64<<20); err != nil {
		t.Fatalf("%d lines: %v", MaxLines, err)
	}
	if _, err := Parse(strings.NewReader(proposal(strings.TrimSuffix(full, "\n")+"\nno newline at the end")), 64<<20); err == nil {
		t.Fatalf("%d lines, the last unterminated, accepted", MaxLines+1)
	}
	problems := parseRejected(t, proposal(full+"x\n"))
	want := fmt.Sprintf(`upsert_files "a/references/big.md" has %d lines; a proposed file has at most %d`, MaxLines+1, MaxLines)
	if !strings.Contains(problems, want) {
		t.Errorf("problems %q, want %q", problems, want)
	}
}

// A current file too long to diff by lines is counted whole: the diff
// maps each distinct line to a rune, and panics past the last one.
func TestLineChangesPastTheDiffLimit(t *testing.T) {
	t.Parallel()
	from := lines(1_200_000)
	added, removed := lineChanges(from, "one\ntwo")
	if added != 2 || removed != 1_200_000 {
		t.Errorf("+%d -%d, want +2 -1200000", added, removed)
	}
	if added, removed := lineChanges("one\ntwo\n", "one\nthree\n"); added != 1 || removed != 1 {
		t.Errorf("+%d -%d, want +1 -1", added, removed)
	}
}
