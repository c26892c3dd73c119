package staxyaml_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/staxyaml"
)

// AddSource and RemoveSource change only the lines of the source they
// add, replace or remove: comments, blank lines, order and the other keys
// stay byte for byte.
func TestEditSourcesKeepsTheRestOfTheFile(t *testing.T) {
	t.Parallel()
	ranged := staxyaml.Dependency{Ref: "ghcr.io/acme/tools", Version: ">=1.0.0 <2.0.0"}
	tests := []struct {
		name, body string
		add        staxyaml.Dependency
		want       string
	}{
		{name: "no file", body: "", add: ranged,
			want: "install:\n  sources:\n    - {ref: ghcr.io/acme/tools, version: \">=1.0.0 <2.0.0\"}\n"},
		{name: "no install", body: "# mine\nname: app\n\nversion: 1.0.0 # v\n", add: staxyaml.Dependency{Ref: "ghcr.io/a/b:1"},
			want: "# mine\nname: app\n\nversion: 1.0.0 # v\ninstall:\n  sources:\n    - ghcr.io/a/b:1\n"},
		{name: "install without sources", body: "install:\n    runtimes: [codex]  # ours\nname: x\n", add: staxyaml.Dependency{Path: "./team"},
			want: "install:\n    sources:\n      - ./team\n    runtimes: [codex]  # ours\nname: x\n"},
		{name: "appended after the last, in its indentation", body: "install:\n  sources:\n  # first\n  - .\n\n  - {ref: ghcr.io/a/b, version: ^1.0.0}\n  runtimes: [codex]\n", add: ranged,
			want: "install:\n  sources:\n  # first\n  - .\n\n  - {ref: ghcr.io/a/b, version: ^1.0.0}\n  - {ref: ghcr.io/acme/tools, version: \">=1.0.0 <2.0.0\"}\n  runtimes: [codex]\n"},
		{name: "replaces the source of the same repository", body: "install:\n  sources:\n    - ghcr.io/acme/tools:1.0.0 # pinned\n    - ./x\n", add: ranged,
			want: "install:\n  sources:\n    - {ref: ghcr.io/acme/tools, version: \">=1.0.0 <2.0.0\"}\n    - ./x\n"},
		{name: "replaces a block mapping", body: "install:\n  sources:\n    - ref: ghcr.io/acme/tools\n      version: ~1.0.0\n    - ./x\n", add: ranged,
			want: "install:\n  sources:\n    - {ref: ghcr.io/acme/tools, version: \">=1.0.0 <2.0.0\"}\n    - ./x\n"},
		{name: "flow sequence", body: "install: # here\n  sources: [., ghcr.io/a/b:1]   # two\n", add: ranged,
			want: "install: # here\n  sources: [., ghcr.io/a/b:1, {ref: ghcr.io/acme/tools, version: \">=1.0.0 <2.0.0\"}]   # two\n"},
		{name: "no newline at the end", body: "name: app", add: staxyaml.Dependency{Ref: "ghcr.io/a/b:1"},
			want: "name: app\ninstall:\n  sources:\n    - ghcr.io/a/b:1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := staxyaml.AddSource([]byte(tt.body), tt.add)
			if err != nil || string(got) != tt.want {
				t.Fatalf("AddSource:\n%s\nwant\n%s\n(%v)", got, tt.want, err)
			}
			if _, err := staxyaml.Parse(staxyaml.FileName, got); err != nil {
				t.Errorf("the edited file does not load: %v", err)
			}
			back, removed, err := staxyaml.RemoveSource(got, tt.add.Package())
			if err != nil || !removed {
				t.Fatalf("RemoveSource: %v, %v", removed, err)
			}
			if strings.Contains(string(back), tt.add.String()) {
				t.Errorf("RemoveSource left the source:\n%s", back)
			}
		})
	}
	if _, removed, err := staxyaml.RemoveSource([]byte("install:\n  sources: [./a]\n"), "ghcr.io/x/y"); removed || err != nil {
		t.Errorf("RemoveSource of a source not listed: %v, %v", removed, err)
	}
	if _, err := staxyaml.AddSource([]byte("{name: x}\n"), ranged); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Errorf("AddSource into a flow mapping: %v, want a refusal", err)
	}
}

// A source's version range is checked where stax.yaml is read, with its
// line; so are two sources of one repository.
func TestSourceRangesAreChecked(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		"install:\n  sources:\n    - {ref: ghcr.io/a/b, version: ^1.x.x.x}\n":                "line 3: version range \"^1.x.x.x\"",
		"install:\n  sources:\n    - {ref: ghcr.io/a/b:1.0.0, version: ^1.0.0}\n":            "names a tag or digest and a version range",
		"install:\n  sources:\n    - {path: ./x, version: ^1.0.0}\n":                         "needs a ref",
		"install:\n  sources:\n    - ghcr.io/a/b:1\n    - {ref: ghcr.io/a/b, version: ^1}\n": "lines 3 and 4 are both ghcr.io/a/b",
		"packages:\n  - {ref: ghcr.io/a/b, version: '>>1'}\n":                                "line 2: version range",
	} {
		if _, err := staxyaml.Parse("p/stax.yaml", []byte(body)); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "p/stax.yaml") {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
	def, err := staxyaml.Parse("stax.yaml", []byte("packages:\n  - {ref: ghcr.io/a/b, version: ^1.2.0}\n"))
	if err != nil || !reflect.DeepEqual(def.Packages[0], staxyaml.Dependency{Ref: "ghcr.io/a/b", Version: "^1.2.0", Line: 2}) {
		t.Errorf("a ranged package: %+v, %v", def, err)
	}
}

// A source and a package are declarations that name their file and line,
// in their range; a package with a path and a ref is its directory in a
// checkout and its reference when published.
func TestDeclarationsNameTheirLine(t *testing.T) {
	t.Parallel()
	def, err := staxyaml.Parse("p/stax.yaml", []byte("name: p\npackages:\n  - {path: ./team, ref: ghcr.io/a/team:1}\ninstall:\n  sources:\n    - ./local\n    - {ref: ghcr.io/a/b, version: ^1.2.0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	decls, err := staxyaml.Declarations(def.Install.Sources, "p/stax.yaml", false)
	if err != nil {
		t.Fatal(err)
	}
	if d := decls[0]; d.Kind != declaration.Directory || d.Where.String() != "p/stax.yaml:6" || d.Range != nil {
		t.Errorf("./local = %+v", d)
	}
	if d := decls[1]; d.Kind != declaration.Registry || d.Ref.Repository != "a/b" || d.Where.String() != "p/stax.yaml:7" || d.Range.String() != "^1.2.0" {
		t.Errorf("the ranged source = %+v", d)
	}
	for published, want := range map[bool]string{false: "./team", true: "ghcr.io/a/team:1"} {
		d, err := def.Packages[0].Declaration("p/stax.yaml", published)
		if err != nil || d.Written != want || d.Where.Line != 3 {
			t.Errorf("published %v: %+v, %v; want %s at line 3", published, d, err, want)
		}
	}
}
