package validate

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/layers"
)

// publish writes root as a skills layer and reads it back as Published.
func publish(t *testing.T, root string) *Published {
	t.Helper()
	tree, err := layers.Scan(layers.ScanOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res, err := layers.Write(&buf, tree, layers.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ReadPublished("acme/skills:1.0.0", &buf, layers.ReadOptions{Digest: res.Digest})
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestReadPublished(t *testing.T) {
	pub := publish(t, filepath.Join(fixtures, statefulFixtures+"valid"))
	want := map[string]string{"triage": "0.4.2", "changelog": "2.0.1"}
	if len(pub.Versions) != len(want) {
		t.Errorf("versions = %v, want %v", pub.Versions, want)
	}
	for k, v := range want {
		if pub.Versions[k] != v {
			t.Errorf("version of %s = %q, want %q", k, pub.Versions[k], v)
		}
	}
	var paths []string
	for _, f := range pub.Files {
		paths = append(paths, f.Path)
		if f.Digest == "" {
			t.Errorf("%s has no digest", f.Path)
		}
	}
	if !slices.Contains(paths, "triage/MEMORY.md") || !slices.Contains(paths, "triage/references/owners.md") {
		t.Errorf("files = %v", paths)
	}
	if _, err := ReadPublished("x", strings.NewReader("not gzip"), layers.ReadOptions{}); err == nil {
		t.Error("a corrupt layer was read")
	}
}

func TestCheckAgainst(t *testing.T) {
	const memory = "triage/MEMORY.md"
	setVersion := func(v string) func(t *testing.T, root string) {
		return func(t *testing.T, root string) {
			for _, f := range []string{"triage/SKILL.md", memory} {
				p := filepath.Join(root, f)
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				filetest.WriteFile(t, p, strings.Replace(string(data), "version: 0.4.2", "version: "+v, 1))
			}
		}
	}
	appendTo := func(rel, text string) func(t *testing.T, root string) {
		return func(t *testing.T, root string) {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(filepath.Join(root, rel), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(text); err != nil {
				t.Fatal(err)
			}
		}
	}
	remove := func(rel string) func(t *testing.T, root string) {
		return func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, rel)); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name  string
		edits []func(t *testing.T, root string)
		want  []finding
		// message must appear in the first error.
		message string
	}{
		{name: "unchanged"},
		{name: "memory changed, same version",
			edits:   []func(*testing.T, string){appendTo(memory, "- New. — @ann, 2026-06-01\n")},
			want:    []finding{e(CodeVersionNotBumped, memory, 0)},
			message: "skill triage: MEMORY.md changed since acme/skills:1.0.0, but the skill's version 0.4.2 is not greater than the published 0.4.2; a change to MEMORY.md needs at least a patch bump: run stax bump "},
		{name: "memory changed, patch bump",
			edits: []func(*testing.T, string){appendTo(memory, "- New.\n"), setVersion("0.4.3")}},
		{name: "memory changed, major bump",
			edits: []func(*testing.T, string){appendTo(memory, "- New.\n"), setVersion("1.0.0")}},
		{name: "memory changed, version lowered",
			edits: []func(*testing.T, string){appendTo(memory, "- New.\n"), setVersion("0.4.1")},
			want:  []finding{e(CodeVersionNotBumped, memory, 0)}},
		{name: "memory changed, pre-release of the same version",
			edits: []func(*testing.T, string){appendTo(memory, "- New.\n"), setVersion("0.4.2-rc.1")},
			want:  []finding{e(CodeVersionNotBumped, memory, 0)}},
		{name: "examples and calibration changed",
			edits: []func(*testing.T, string){appendTo("triage/EXAMPLES.md", "\n"), appendTo("triage/CALIBRATION.md", "- More.\n")},
			want:  []finding{e(CodeVersionNotBumped, "triage/CALIBRATION.md", 0), e(CodeVersionNotBumped, "triage/EXAMPLES.md", 0)}},
		{name: "sibling added",
			edits:   []func(*testing.T, string){appendTo("changelog/EXAMPLES.md", "## One\n### Input\n### Output\n")},
			want:    []finding{e(CodeVersionNotBumped, "changelog/EXAMPLES.md", 0)},
			message: "EXAMPLES.md was added"},
		{name: "sibling removed",
			edits:   []func(*testing.T, string){remove("triage/CALIBRATION.md")},
			want:    []finding{e(CodeVersionNotBumped, "triage/SKILL.md", 4)},
			message: "CALIBRATION.md was removed"},
		{name: "only SKILL.md and references changed",
			edits: []func(*testing.T, string){appendTo("triage/SKILL.md", "More.\n"), appendTo("triage/references/owners.md", "- x\n")}},
		{name: "new skill",
			edits: []func(*testing.T, string){
				appendTo("fresh/SKILL.md", "---\nname: fresh\ndescription: New. Use when testing stax.\nversion: 0.1.0\n---\n"),
				appendTo("fresh/MEMORY.md", "---\nversion: 0.1.0\ncontributors: 1\nlastUpdated: 2026-01-01\n---\n"),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pubRoot, root := t.TempDir(), t.TempDir()
			copyDir(t, filepath.Join(fixtures, statefulFixtures+"valid"), pubRoot)
			copyDir(t, pubRoot, root)
			pub := publish(t, pubRoot)
			for _, edit := range tt.edits {
				edit(t, root)
			}
			r, err := Dir(Options{Root: root})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.CheckAgainst(pub); err != nil {
				t.Fatal(err)
			}
			got := findings(t, root, r)
			want := slices.Clone(tt.want)
			sortFindings(want)
			if !slices.Equal(got, want) {
				t.Errorf("findings:\n%s\nwant:\n%s\n%s", list(got), list(want), dump(r))
			}
			if r.Valid != (len(want) == 0) {
				t.Errorf("Valid = %v", r.Valid)
			}
			if len(want) > 0 {
				msg := r.Errors[0].Message
				if tt.message != "" && !strings.Contains(msg, tt.message) {
					t.Errorf("message %q lacks %q", msg, tt.message)
				}
				if !strings.HasSuffix(msg, "stax bump "+filepath.Join(root, strings.Split(want[0].File, "/")[0])) {
					t.Errorf("message %q does not end with the bump command for the skill", msg)
				}
			}
		})
	}
}

func TestBumped(t *testing.T) {
	tests := []struct {
		now, before string
		want        bool
	}{
		{"1.0.1", "1.0.0", true}, {"1.0.0", "1.0.0", false}, {"0.9.0", "1.0.0", false},
		{"1.0.0", "1.0.0-rc.1", true}, {"1.0.0+b2", "1.0.0+b1", false},
		// Not Semantic Versions: any change of the text counts.
		{"1.1", "1.0", true}, {"1.0", "1.0", false}, {"", "1.0", false}, {"2", "", true}, {"", "", false},
	}
	for _, tt := range tests {
		if got := bumped(tt.now, tt.before); got != tt.want {
			t.Errorf("bumped(%q, %q) = %v, want %v", tt.now, tt.before, got, tt.want)
		}
	}
}
