package validate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/layers"
)

func TestHiddenTextDiagnostics(t *testing.T) {
	t.Parallel()
	root := filepath.Join(fixtures, "invalid", "hidden-text")
	r, err := Dir(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range r.Errors {
		if d.Code == CodeHiddenText {
			got = append(got, d.Format("error"))
		}
	}
	// The column counts characters; the emoji family and the flag of
	// England on line 6 are not hidden text, nor is the PNG's bytes.
	want := []string{
		filepath.Join(root, "tool", "SKILL.md") + ":7:13: error: U+202E RIGHT-TO-LEFT OVERRIDE",
		filepath.Join(root, "tool", "references", "notes.md") + `:3:16: error: U+E0069 TAG LATIN SMALL LETTER I and 14 more hidden characters (15 of them tag characters, which can spell out text`,
	}
	if len(got) != len(want) {
		t.Fatalf("hidden-text diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("diagnostic\n  %s\ndoes not start with\n  %s", got[i], want[i])
		}
		if !strings.Contains(got[i], "[hidden-text]") || !strings.Contains(got[i], "remove") {
			t.Errorf("diagnostic %s lacks its code or the fix", got[i])
		}
		// Agents run validate: the report never spells out what the tag
		// characters mirror.
		if strings.Contains(got[i], "ignore") {
			t.Errorf("diagnostic %s spells out the hidden text", got[i])
		}
	}
}

// A NUL byte and an invalid byte do not switch the check off for a file
// read as text; a file of another name keeps the binary exemption.
func TestHiddenTextAfterNULInTextFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	body := "Read this.\x00\xff\nRun: rm -rf \u202E/tmp/ok\n"
	filetest.WriteFile(t, filepath.Join(root, "tool", "SKILL.md"),
		"---\nname: tool\ndescription: A skill that works. Use when testing stax.\n---\n"+body)
	filetest.WriteFile(t, filepath.Join(root, "tool", "scripts", "run.sh"), body)
	filetest.WriteFile(t, filepath.Join(root, "tool", "assets", "blob.bin"), body)
	r, err := Dir(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range r.Errors {
		if d.Code == CodeHiddenText {
			got = append(got, d.Format("error"))
		}
	}
	want := []string{
		filepath.Join(root, "tool", "SKILL.md") + ":6:13: error: U+202E RIGHT-TO-LEFT OVERRIDE",
		filepath.Join(root, "tool", "scripts", "run.sh") + ":2:13: error: U+202E RIGHT-TO-LEFT OVERRIDE",
	}
	if len(got) != len(want) {
		t.Fatalf("hidden-text diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("diagnostic\n  %s\ndoes not start with\n  %s", got[i], want[i])
		}
	}
}

// A file or folder name holding hidden text is refused by the one
// safe-name rule, which pack and the layer reader share.
func TestHiddenTextInNames(t *testing.T) {
	t.Parallel()
	build := func(rel string) func(t *testing.T) (string, string) {
		return func(t *testing.T) (string, string) {
			root := t.TempDir()
			goodSkill(t, root, "tool")
			filetest.WriteFile(t, filepath.Join(root, "tool", filepath.FromSlash(rel)), "# notes\n")
			return root, ""
		}
	}
	runCases(t, []validateCase{
		{name: "right-to-left override in a file name", build: build("references/notes\u202Edm.md"),
			want:     []finding{e(string(layers.ProblemUnsafeName), "tool/references/notes\u202Edm.md", 0)},
			messages: map[string]string{string(layers.ProblemUnsafeName): "hidden character U+202E RIGHT-TO-LEFT OVERRIDE in path"}},
		{name: "tag characters in a folder name", build: build("a\U000E0068\U000E0069/x.md"),
			want:     []finding{e(string(layers.ProblemUnsafeName), "tool/a\U000E0068\U000E0069", 0)},
			messages: map[string]string{string(layers.ProblemUnsafeName): "hidden character U+E0068 TAG LATIN SMALL LETTER H"}},
	})
}
