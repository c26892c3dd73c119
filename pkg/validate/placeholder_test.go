package validate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/scaffold"
	"github.com/stax-dev/stax/pkg/skill"
)

// TestScaffoldedPlaceholders pins that every line stax new skill leaves
// for the author to fill in is reported, with its file and line: a
// warning, and an error under Strict, so that a scaffold is never
// packaged as it was written.
func TestScaffoldedPlaceholders(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	res, err := scaffold.Skill(scaffold.Options{SkillsDir: root, Name: "review", Stateful: true, Today: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	// The lines the scaffold writes its markers on, read from what it wrote.
	var want []finding
	for _, name := range res.Files {
		data, err := os.ReadFile(filepath.Join(root, "review", name))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "TODO") {
				want = append(want, w(CodePlaceholder, "review/"+name, i+1))
			}
		}
	}
	if len(want) < 10 {
		t.Fatalf("the scaffold wrote %d placeholder lines; the test expects its templates", len(want))
	}
	sortFindings(want)

	r, err := Dir(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	var got []finding
	for _, f := range findings(t, root, r) {
		if f.Code == CodePlaceholder {
			got = append(got, f)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("placeholders:\n%s\nwant:\n%s", list(got), list(want))
	}
	if !r.Valid {
		t.Errorf("a scaffolded skill is valid without --strict:\n%s", dump(r))
	}
	for _, d := range r.Warnings {
		if d.Code == CodePlaceholder && !strings.Contains(d.Message, "--allow-placeholders") {
			t.Errorf("message %q does not name --allow-placeholders", d.Message)
		}
	}

	strict, err := Dir(Options{Root: root, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if strict.Valid {
		t.Error("a scaffolded skill passes --strict")
	}
}

// TestPlaceholderIsTheScaffoldsMarker pins what a placeholder is: the
// TODO: that starts a line's text (after indentation and a list marker)
// or the TODO that starts an example's title, outside code blocks. A TODO
// an author writes in prose or in a code sample is theirs to keep.
func TestPlaceholderIsTheScaffoldsMarker(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	filetest.WriteFile(t, filepath.Join(root, "tool", skill.FileName), strings.Join([]string{
		"---",             // 1
		"name: tool",      // 2
		"description: >-", // 3
		"  Tracks work. Use when the user keeps a TODO list.", // 4
		"---",                                   // 5
		"# Tool",                                // 6
		"",                                      // 7
		"Add every TODO to the list.",           // 8
		"- TODO items are sorted first.",        // 9
		"- TODO: the step to write",             // 10: placeholder
		"1. TODO: another",                      // 11: placeholder
		"TODO: the body",                        // 12: placeholder
		"```go",                                 // 13
		"// TODO: handle the error",             // 14
		"TODO: inside a code block",             // 15
		"```",                                   // 16
		"Write `TODO:` at the start of a note.", // 17
		"",
	}, "\n"))
	filetest.WriteFile(t, filepath.Join(root, "tool", "EXAMPLES.md"), strings.Join([]string{
		"## Example: TODO a canonical case", // 1: placeholder
		"",
		"### Input",
		"",
		"A TODO list.",
		"",
		"### Output",
		"",
		"The list, sorted.",
		"",
		"## Example: TODOs sorted", // 10
		"",
		"### Input",
		"",
		"x",
		"",
		"### Output",
		"",
		"y",
		"",
	}, "\n"))
	// Only the files the scaffold writes are read: a script's TODO is code.
	filetest.WriteFile(t, filepath.Join(root, "tool", "scripts", "run.sh"), "TODO: later\n")
	r, err := Dir(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	var got []finding
	for _, f := range findings(t, root, r) {
		if f.Code == CodePlaceholder {
			got = append(got, f)
		}
	}
	want := []finding{
		w(CodePlaceholder, "tool/EXAMPLES.md", 1),
		w(CodePlaceholder, "tool/SKILL.md", 10),
		w(CodePlaceholder, "tool/SKILL.md", 11),
		w(CodePlaceholder, "tool/SKILL.md", 12),
	}
	sortFindings(want)
	if !slices.Equal(got, want) {
		t.Errorf("placeholders:\n%s\nwant:\n%s", list(got), list(want))
	}
}
