package validate

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

func TestValidReport(t *testing.T) {
	r, err := Dir(Options{Root: filepath.Join(fixtures, "valid")})
	if err != nil {
		t.Fatal(err)
	}
	want := []Skill{
		{Name: "deploy", Dir: "deploy", Description: "Deploy the service to staging or production with the release script. Use when the user asks to ship or deploy."},
		{Name: "fix-issue", Dir: "fix-issue", Description: "Fix a GitHub issue following team standards. Use when the user gives an issue number or link."},
		{Name: "pdf-processing", Dir: "pdf-processing", Version: "1.0", Description: "Extracts text and tables from PDF files, fills forms, merges documents. " +
			"Use when working with PDF files or when the user mentions PDFs, forms, or document extraction."},
		{Name: "review-pr", Dir: "review-pr", Version: "2.1.0", Description: "Review a pull request against the team checklist. Use when asked to review a PR or a diff."},
	}
	if !reflect.DeepEqual(r.Skills, want) {
		t.Errorf("Skills =\n%+v\nwant\n%+v", r.Skills, want)
	}
	if r.Layer == nil || r.Layer.Entries == 0 {
		t.Fatalf("Layer = %+v, want the outline of the scan", r.Layer)
	}
	if len(r.lines) != len(r.Skills) {
		t.Fatalf("len(lines) = %d, want %d", len(r.lines), len(r.Skills))
	}
	for i, l := range r.lines {
		if l.name == 0 {
			t.Errorf("lines[%d] of skill %q has no name line", i, r.Skills[i].Name)
		}
	}
}

func TestLinesZeroWhenUnparseable(t *testing.T) {
	r, err := Dir(Options{Root: filepath.Join(fixtures, "invalid", "frontmatter-syntax")})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skills) != 1 || r.Skills[0].Dir != "tool" || r.Skills[0].Name != "" {
		t.Errorf("Skills = %+v, want the tool directory without a name", r.Skills)
	}
	if len(r.lines) != 1 || r.lines[0] != (fieldLines{}) {
		t.Errorf("lines = %v, want [{0 0}]", r.lines)
	}
}

func TestReportJSON(t *testing.T) {
	root := filepath.Join(fixtures, "invalid", "stray-file")
	r, err := Dir(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(got, &decoded); err != nil {
		t.Fatal(err)
	}
	pattern := `add \"/README.md\" to ` + jsonString(filepath.Join(root, layers.IgnoreFile))
	want := `{"valid":false,` +
		`"skills":[{"name":"good","dir":"good","description":"A skill that works. Use when testing stax."}],` +
		`"errors":[{"file":"` + jsonString(filepath.Join(root, "README.md")) + `","code":"stray-file",` +
		`"message":"file at the top level of the skills directory, where only skill directories belong; ` +
		`move it into a skill directory, or ` + pattern + ` to leave it out"}],` +
		`"warnings":[]}`
	if string(got) != want {
		t.Errorf("JSON =\n%s\nwant\n%s", got, want)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

func TestReportJSONShape(t *testing.T) {
	tests := []struct {
		fixture       string
		errs, warns   int
		lineInWarning bool
	}{
		{"valid", 0, 0, false},
		{"invalid/unknown-field", 0, 2, true},
		{"invalid/missing-skill-md", 1, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			r, err := Dir(Options{Root: filepath.Join(fixtures, tt.fixture)})
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var top map[string]json.RawMessage
			if err := json.Unmarshal(data, &top); err != nil {
				t.Fatal(err)
			}
			if keys := sortedKeys(top); !reflect.DeepEqual(keys, []string{"errors", "skills", "valid", "warnings"}) {
				t.Errorf("top-level keys = %v", keys)
			}
			for _, k := range []string{"skills", "errors", "warnings"} {
				if !bytes.HasPrefix(top[k], []byte("[")) {
					t.Errorf("%s = %s, want an array", k, top[k])
				}
			}
			var body struct {
				Errors, Warnings []map[string]any
			}
			if err := json.Unmarshal(data, &body); err != nil {
				t.Fatal(err)
			}
			if len(body.Errors) != tt.errs || len(body.Warnings) != tt.warns {
				t.Fatalf("%d errors, %d warnings; want %d, %d", len(body.Errors), len(body.Warnings), tt.errs, tt.warns)
			}
			for _, d := range append(body.Errors, body.Warnings...) {
				want := []string{"code", "file", "message"}
				if _, ok := d["line"]; ok {
					want = []string{"code", "file", "line", "message"}
				}
				if keys := sortedKeys(d); !reflect.DeepEqual(keys, want) {
					t.Errorf("diagnostic keys = %v, want %v", keys, want)
				}
			}
			if tt.lineInWarning {
				if line, ok := body.Warnings[0]["line"].(float64); !ok || line != 4 {
					t.Errorf("warning line = %v, want 4", body.Warnings[0]["line"])
				}
			}
			if len(body.Errors) > 0 {
				if _, ok := body.Errors[0]["line"]; ok {
					t.Errorf("line of a directory diagnostic is present: %v", body.Errors[0])
				}
			}
		})
	}
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

func TestReportIsDeterministic(t *testing.T) {
	root := filepath.Join(fixtures, "invalid", "name-duplicate")
	var first []byte
	for i := 0; i < 5; i++ {
		r, err := Dir(Options{Root: root})
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = got
		} else if !bytes.Equal(got, first) {
			t.Fatalf("run %d differs:\n%s\n%s", i, got, first)
		}
	}
}

func TestStrictEmptiesWarnings(t *testing.T) {
	r, err := Dir(Options{Root: filepath.Join(fixtures, "invalid", "unknown-field"), Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Valid || len(r.Errors) != 2 || r.Warnings == nil || len(r.Warnings) != 0 {
		t.Errorf("Valid %v, %d errors, warnings %#v; want false, 2, []", r.Valid, len(r.Errors), r.Warnings)
	}
}

func TestDirUnreadable(t *testing.T) {
	_, err := Dir(Options{Root: filepath.Join(t.TempDir(), "does-not-exist")})
	if err == nil {
		t.Fatal("Dir of a missing directory succeeded")
	}
	if !strings.Contains(err.Error(), "does-not-exist") {
		t.Errorf("error %q does not name the directory", err)
	}
}

func TestSkillMDTooLarge(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(root, "tool", skill.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxSkillMDSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r, err := Dir(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	got := findings(t, root, r)
	want := []finding{
		e(CodeSkillMDTooLarge, "tool/SKILL.md", 0),
		w(CodeLargeFile, "tool/SKILL.md", 0),
		// A sparse file is all zero bytes: valid UTF-8.
	}
	sortFindings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n%s\nwant\n%s", list(got), list(want))
	}
}

// TestSkillMDOverSharedLimit: a SKILL.md just over skill.MaxFileSize, the
// limit list and mcp load skills with, is an error here too, so that pack
// never accepts a skill no command would load.
func TestSkillMDOverSharedLimit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	head := "---\nname: tool\ndescription: A skill. Use when testing.\n---\n"
	filetest.WriteFile(t, filepath.Join(root, "tool", skill.FileName), head+strings.Repeat("x", skill.MaxFileSize+1-len(head)))
	r, err := Dir(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	got := findings(t, root, r)
	want := []finding{e(CodeSkillMDTooLarge, "tool/SKILL.md", 0)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n%s\nwant\n%s", list(got), list(want))
	}
}

// check validates a tree scanned beforehand, one top-level entry at a time
// as Dir does; the report has no Layer.
func check(opts Options, tree *layers.Tree) *Report {
	v := newValidator(opts)
	entries, problems := tree.Entries, tree.Problems
	for len(entries) > 0 || len(problems) > 0 {
		var top string
		switch {
		case len(problems) == 0 || len(entries) > 0 && entries[0].Path < problems[0].Path:
			top, _, _ = strings.Cut(entries[0].Path, "/")
		default:
			top, _, _ = strings.Cut(problems[0].Path, "/")
		}
		in := func(p string) bool { return p == top || strings.HasPrefix(p, top+"/") }
		part := &layers.Tree{Root: tree.Root}
		for len(entries) > 0 && in(entries[0].Path) {
			part.Entries, entries = append(part.Entries, entries[0]), entries[1:]
		}
		for _, p := range problems {
			if in(p.Path) {
				part.Problems = append(part.Problems, p)
			}
		}
		problems = slices.DeleteFunc(problems, func(p layers.Problem) bool { return in(p.Path) })
		v.part(part)
	}
	v.finish()
	return v.report
}

func TestReadError(t *testing.T) {
	// A file can vanish, or lose its permissions, between the scan and the
	// read; remove it after scanning to get there even when running as root.
	root := t.TempDir()
	goodSkill(t, root, "tool")
	filetest.WriteFile(t, filepath.Join(root, "tool", "notes.md"), "# Notes\n")
	tree, err := layers.Scan(layers.ScanOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{skill.FileName, "notes.md"} {
		if err := os.Remove(filepath.Join(root, "tool", name)); err != nil {
			t.Fatal(err)
		}
	}
	r := check(Options{Root: root}, tree)
	got := findings(t, root, r)
	// One error per file: SKILL.md is read twice (parse, then encoding
	// check) but reported once.
	want := []finding{e(CodeReadError, "tool/SKILL.md", 0), e(CodeReadError, "tool/notes.md", 0)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n%s\nwant\n%s", list(got), list(want))
	}
	if len(r.Skills) != 1 || r.lines[0] != (fieldLines{}) {
		t.Errorf("Skills = %+v, lines = %v; want the skill, unparsed", r.Skills, r.lines)
	}
}

func TestDuplicateNamesNameEachOther(t *testing.T) {
	root := filepath.Join(fixtures, "invalid", "name-duplicate")
	r, err := Dir(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	other := map[string]string{"alpha": "beta", "beta": "alpha"}
	n := 0
	for _, d := range r.Errors {
		if d.Code != CodeNameDuplicate {
			continue
		}
		n++
		dir := filepath.Base(filepath.Dir(d.File))
		if want := filepath.Join(root, other[dir], skill.FileName); !strings.Contains(d.Message, want) {
			t.Errorf("diagnostic on %s: %q does not name %s", dir, d.Message, want)
		}
	}
	if n != 2 {
		t.Errorf("%d name-duplicate errors, want 2", n)
	}
}

func TestStaxignore(t *testing.T) {
	pkg := t.TempDir()
	root := filepath.Join(pkg, "skills")
	goodSkill(t, root, "tool")
	filetest.WriteFile(t, filepath.Join(root, "README.md"), "# Skills\n")
	filetest.WriteFile(t, filepath.Join(root, "drafts", "notes.txt"), "later\n")
	filetest.WriteFile(t, filepath.Join(pkg, layers.IgnoreFile), "/skills/README.md\n*.txt\n")

	// Without the package root, .staxignore is not read.
	r, err := Dir(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	want := []finding{e(CodeSkillMDMissing, "drafts", 0), e(CodeStrayFile, "README.md", 0)}
	if got := findings(t, root, r); !reflect.DeepEqual(got, want) {
		t.Errorf("without package root:\n%s\nwant\n%s", list(got), list(want))
	}

	// With it, README.md is left out, and drafts/ is left empty.
	r, err = Dir(Options{Root: root, PackageRoot: pkg})
	if err != nil {
		t.Fatal(err)
	}
	want = []finding{e(CodeSkillDirEmpty, "drafts", 0)}
	if got := findings(t, root, r); !reflect.DeepEqual(got, want) {
		t.Errorf("with package root:\n%s\nwant\n%s", list(got), list(want))
	}
}

func TestStaxignoreInSkillsRoot(t *testing.T) {
	// When the skills directory is the package root, its .staxignore is
	// configuration, not a stray file.
	root := t.TempDir()
	goodSkill(t, root, "tool")
	filetest.WriteFile(t, filepath.Join(root, layers.IgnoreFile), "/NOTES.md\n")
	filetest.WriteFile(t, filepath.Join(root, "NOTES.md"), "# not packaged\n")
	r, err := Dir(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if got := findings(t, root, r); len(got) != 0 {
		t.Errorf("findings:\n%s\nwant none", list(got))
	}
}

func TestStrayFileHintIsRelativeToPackageRoot(t *testing.T) {
	pkg := t.TempDir()
	root := filepath.Join(pkg, "agent", "skills")
	goodSkill(t, root, "tool")
	filetest.WriteFile(t, filepath.Join(root, "README.md"), "# Skills\n")
	r, err := Dir(Options{Root: root, PackageRoot: pkg})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Errors) != 1 {
		t.Fatalf("Errors = %v", r.Errors)
	}
	want := `add "/agent/skills/README.md" to ` + filepath.Join(pkg, layers.IgnoreFile)
	if !strings.Contains(r.Errors[0].Message, want) {
		t.Errorf("message %q does not contain %q", r.Errors[0].Message, want)
	}
}

// TestStatefulFileOverSharedLimit: a MEMORY.md just over
// stateful.MaxFileSize, the most render and the MCP server read of a
// sibling, is an error, so that pack never accepts a skill they refuse.
func TestStatefulFileOverSharedLimit(t *testing.T) {
	t.Parallel()
	for _, name := range stateful.Files {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			filetest.WriteFile(t, filepath.Join(root, "tool", skill.FileName), "---\nname: tool\ndescription: A skill. Use when testing.\n---\nBody.\n")
			filetest.WriteFile(t, filepath.Join(root, "tool", name), strings.Repeat("x", stateful.MaxFileSize+1))
			r, err := Dir(Options{Root: root})
			if err != nil {
				t.Fatal(err)
			}
			got := findings(t, root, r)
			want := []finding{e(CodeStatefulFileTooLarge, "tool/"+name, 0)}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("findings:\n%s\nwant\n%s", list(got), list(want))
			}
		})
	}
}
