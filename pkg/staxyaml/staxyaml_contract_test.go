package staxyaml_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/atomicfile"
	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/staxyaml"
)

func TestLoadForms(t *testing.T) {
	tests := []struct {
		name, body string
		want       staxyaml.Definition
		wantErr    string // empty: loads
	}{
		{name: "empty file", body: "", want: staxyaml.Definition{}},
		{name: "comment only", body: "# nothing yet\n", want: staxyaml.Definition{}},
		{
			name: "every field",
			body: "name: org-skills\nversion: 1.2.0-rc.1\ndescription: d\nauthor: a\nlicense: MIT\ntags: [x, y]\nskills: agent/skills\n" +
				"install:\n  sources: [., ghcr.io/acme/base:1]\n  runtimes: [claude-code]\n  scope: user\n",
			want: staxyaml.Definition{Name: "org-skills", Version: "1.2.0-rc.1", Description: "d", Author: "a", License: "MIT", Tags: []string{"x", "y"}, Skills: "agent/skills",
				Install: &staxyaml.InstallSpec{Sources: []staxyaml.Dependency{{Path: "."}, {Ref: "ghcr.io/acme/base:1"}}, Runtimes: []string{"claude-code"}, Scope: "user"}},
		},
		{name: "name with separators", body: "name: a.b_c-d9\n", want: staxyaml.Definition{Name: "a.b_c-d9"}},
		{name: "unknown key", body: "name: p\nverison: 1\n", wantErr: `line 2: unknown key "verison": did you mean version?`},
		{name: "unknown nested key", body: "install:\n  source: [.]\n", wantErr: `line 2: unknown key "source" in install: did you mean sources?`},
		{name: "uppercase name", body: "name: Org\n", wantErr: `name "Org": use lowercase letters`},
		{name: "double separator", body: "name: a--b\n", wantErr: `name "a--b"`},
		{name: "version not a tag", body: "version: 1.0/2\n", wantErr: `version "1.0/2": it becomes the default tag`},
		{name: "version starting with a dot", body: "version: .1\n", wantErr: `version ".1"`},
		{name: "bad scope", body: "install:\n  scope: global\n", wantErr: `install.scope "global": use project or user`},
		{name: "skills outside the root", body: "skills: ../elsewhere\n", wantErr: `skills "../elsewhere": must be a directory inside the package root`},
		{name: "skills escaping after cleaning", body: "skills: a/../../b\n", wantErr: "must be a directory inside the package root"},
		{name: "absolute skills", body: "skills: /etc\n", wantErr: "must be a directory inside the package root"},
		{name: "not YAML", body: "name: [\n", wantErr: "stax.yaml:"},
		{name: "list at the top", body: "- a\n", wantErr: "stax.yaml:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), staxyaml.FileName)
			filetest.WriteFile(t, path, tt.body)
			def, err := staxyaml.Load(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load: %v, want an error containing %q", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), path) {
					t.Errorf("error %q does not name the file", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if def.Name != tt.want.Name || def.Version != tt.want.Version || def.Description != tt.want.Description ||
				def.Author != tt.want.Author || def.License != tt.want.License || def.Skills != tt.want.Skills ||
				!slices.Equal(def.Tags, tt.want.Tags) || (def.Install == nil) != (tt.want.Install == nil) {
				t.Fatalf("Load = %+v, want %+v", def, tt.want)
			}
			if w := tt.want.Install; w != nil {
				if g := def.Install; !reflect.DeepEqual(withoutLines(g.Sources), w.Sources) || !slices.Equal(g.Runtimes, w.Runtimes) || g.Scope != w.Scope {
					t.Errorf("install = %+v, want %+v", g, w)
				}
			}
		})
	}
	if _, err := staxyaml.Load(filepath.Join(t.TempDir(), staxyaml.FileName)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load of a missing file: %v, want fs.ErrNotExist", err)
	}
}

func TestOpen(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		wantDef   bool
		wantSkill string // SkillsDir relative to the root
		wantErr   string
	}{
		{name: "bare skills directory", files: map[string]string{"greet/SKILL.md": "x"}, wantSkill: "."},
		{name: "default skills directory", files: map[string]string{"stax.yaml": "name: p\n"}, wantDef: true, wantSkill: "skills"},
		{name: "named skills directory", files: map[string]string{"stax.yaml": "skills: agent/skills\n"}, wantDef: true, wantSkill: "agent/skills"},
		{name: "bad stax.yaml", files: map[string]string{"stax.yaml": "name: Bad\n"}, wantErr: `name "Bad"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, body := range tt.files {
				filetest.WriteFile(t, filepath.Join(root, name), body)
			}
			p, err := staxyaml.Open(root)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Open: %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Root != root || (p.Definition != nil) != tt.wantDef || p.SkillsDir != filepath.Join(root, tt.wantSkill) {
				t.Errorf("Open = %+v, want root %s, definition %v, skills %s", p, root, tt.wantDef, tt.wantSkill)
			}
		})
	}
	file := filepath.Join(t.TempDir(), "file")
	filetest.WriteFile(t, file, "x")
	for path, want := range map[string]string{file: "not a directory", filepath.Join(t.TempDir(), "absent"): "no such file"} {
		if _, err := staxyaml.Open(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s): %v, want %q", path, err, want)
		}
	}
}

func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), staxyaml.FileName)
	def := &staxyaml.Definition{Name: "demo", Version: "1.0.0", Install: &staxyaml.InstallSpec{Sources: []staxyaml.Dependency{{Path: "."}}, Runtimes: []string{"claude-code"}}}
	if err := staxyaml.Write(path, def, false); err != nil {
		t.Fatal(err)
	}
	back, err := staxyaml.Load(path)
	if err != nil || back.Name != "demo" || back.Version != "1.0.0" || !reflect.DeepEqual(withoutLines(back.Install.Sources), []staxyaml.Dependency{{Path: "."}}) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	def.Version = "2.0.0"
	if err := staxyaml.Write(path, def, false); err == nil || !strings.Contains(err.Error(), "already exists: edit it, or pass --force") {
		t.Errorf("Write over an existing file: %v, want a refusal", err)
	}
	if back, _ := staxyaml.Load(path); back.Version != "1.0.0" {
		t.Errorf("a refused Write changed the file: version %s", back.Version)
	}
	if err := staxyaml.Write(path, def, true); err != nil {
		t.Fatal(err)
	}
	if back, _ := staxyaml.Load(path); back.Version != "2.0.0" {
		t.Errorf("Write with overwrite: version %s, want 2.0.0", back.Version)
	}
	bad := filepath.Join(t.TempDir(), staxyaml.FileName)
	if err := staxyaml.Write(bad, &staxyaml.Definition{Name: "Bad Name"}, false); err == nil {
		t.Error("Write of an invalid definition succeeded")
	}
	if _, err := os.Stat(bad); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an invalid definition was written: %v", err)
	}
}

func TestNameFromDir(t *testing.T) {
	tests := map[string]string{
		"/x/org-skills":     "org-skills",
		"/x/My Skills":      "my-skills",
		"/x/Team_Skills.v2": "team-skills-v2",
		"/x/--weird--":      "weird",
		"/x/日本":             "skills",
		"/x/a  b":           "a-b",
	}
	for dir, want := range tests {
		if got := staxyaml.NameFromDir(dir); got != want {
			t.Errorf("NameFromDir(%q) = %q, want %q", dir, got, want)
		}
		if def := (staxyaml.Definition{Name: staxyaml.NameFromDir(dir)}); def.Check() != nil {
			t.Errorf("NameFromDir(%q) = %q, which Check refuses: %v", dir, def.Name, def.Check())
		}
	}
}

func TestIsPath(t *testing.T) {
	tests := map[string]bool{
		".": true, "..": true, "./a": true, "../a": true, "/abs": true,
		"a": false, "ghcr.io/a/b:1": false, "oci:./layout": false, ".hidden": false, "base": false,
	}
	for decl, want := range tests {
		if got := declaration.IsPath(decl); got != want {
			t.Errorf("IsPath(%q) = %v, want %v", decl, got, want)
		}
	}
}

// withoutLines are deps with the lines they were read from zeroed, to
// compare with those not read from a file.
func withoutLines(deps []staxyaml.Dependency) []staxyaml.Dependency {
	out := slices.Clone(deps)
	for i := range out {
		out[i].Line = 0
	}
	return out
}

// WriteFile with overwrite (stax init --force) replaces stax.yaml in one
// step: a reader holding the old file reads it whole, as a crash midway
// would leave it, never the old file cut short by a truncation.
func TestWriteFileReplacesInOneStep(t *testing.T) {
	path := filepath.Join(t.TempDir(), staxyaml.FileName)
	old := "install:\n  sources: [ghcr.io/acme/org-skills:2.0.0]\n"
	filetest.WriteFile(t, path, old)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := staxyaml.WriteFile(path, []byte("name: demo\n"), true); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(f); err != nil || string(got) != old {
		t.Errorf("the stax.yaml replaced, as its reader saw it: %q, %v; want the old content whole (a temporary file renamed over it)", got, err)
	}
	if got, _ := os.ReadFile(path); string(got) != "name: demo\n" {
		t.Errorf("stax.yaml after WriteFile with overwrite: %q", got)
	}
}

// A stax init --force killed before its rename leaves its temporary file
// beside stax.yaml; the next one removes it, as an install does stax.lock's.
func TestWriteFileRemovesAKilledWritesTemporary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, staxyaml.FileName)
	filetest.WriteFile(t, path, "name: old\n")
	left := filepath.Join(dir, "."+staxyaml.FileName+"1234567890")
	if !atomicfile.IsTemporary(filepath.Base(left), staxyaml.FileName) {
		t.Fatalf("%s is not named as the writer names its temporaries", left)
	}
	filetest.WriteFile(t, left, "name: half")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(left, old, old); err != nil {
		t.Fatal(err)
	}
	if err := staxyaml.WriteFile(path, []byte("name: demo\n"), true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the killed write's %s is still there (%v)", left, err)
	}
}
