package staxyaml

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestDependencyForms(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) (*Definition, error) {
		path := filepath.Join(dir, FileName)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return Load(path)
	}
	def, err := write("name: p\nversion: 1.0.0\npackages:\n  - ghcr.io/a/b:1\n  - ../c\n  - {path: ./d, ref: ghcr.io/a/d:2}\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []Dependency{{Ref: "ghcr.io/a/b:1", Line: 4}, {Path: "../c", Line: 5}, {Path: "./d", Ref: "ghcr.io/a/d:2", Line: 6}}
	for i, d := range want {
		if !reflect.DeepEqual(def.Packages[i], d) {
			t.Errorf("packages[%d] = %+v, want %+v", i, def.Packages[i], d)
		}
	}
	for body, msg := range map[string]string{
		"packages:\n  - {path: shared}\n":      `path "shared": a package directory starts with ./, ../ or /`,
		"packages:\n  - {ref: ../x}\n":         `ref "../x" is a directory`,
		"packages:\n  - {}\n":                  "a package needs a ref or a path",
		"packages:\n  - {path: ./x, tag: 1}\n": `unknown key "tag" in an item of packages (the keys here are path, ref, version, plugin, skills)`,
	} {
		if _, err := write(body); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", body, err, msg)
		}
	}
}

func TestDependencyEncodings(t *testing.T) {
	def := Definition{Name: "p", Packages: []Dependency{{Ref: "ghcr.io/a/b:1"}, {Path: "../c"}, {Path: "./d", Ref: "ghcr.io/a/d:2"}}}
	j, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"packages":["ghcr.io/a/b:1","../c",{"ref":"ghcr.io/a/d:2","path":"./d"}]`; !strings.Contains(string(j), want) {
		t.Errorf("JSON %s, want %s", j, want)
	}
	y, err := yaml.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	var back Definition
	if err := yaml.Unmarshal(y, &back); err != nil || !reflect.DeepEqual(withoutLines(back.Packages), def.Packages) {
		t.Errorf("YAML round trip: %s -> %+v, %v", y, back.Packages, err)
	}
}

// withoutLines are deps with the lines they were read from zeroed, to
// compare with those not read from a file.
func withoutLines(deps []Dependency) []Dependency {
	out := slices.Clone(deps)
	for i := range out {
		out[i].Line = 0
	}
	return out
}
