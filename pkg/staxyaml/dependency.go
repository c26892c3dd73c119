package staxyaml

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/stax-dev/stax/internal/userinfo"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/yamlerr"
)

// Dependency is one entry of packages: a reference (a registry reference,
// a digest reference or an oci: layout), a package directory, or a
// directory together with the reference it is published under:
//
//	packages:
//	  - ghcr.io/acme/org-skills:2.0.0
//	  - ../shared
//	  - {path: ../team, ref: ghcr.io/acme/team-skills:1.4.0}
//	  - {ref: ghcr.io/acme/tools, version: ^1.2.0}
//
// A source checkout resolves the directory; a package being published
// records the reference, since its consumers have no such directory. A
// version range picks, among the tags of a reference that names neither
// tag nor digest, the highest version it allows.
type Dependency struct {
	// Ref is the reference the package is published under.
	Ref string `yaml:"ref,omitempty" json:"ref,omitempty"`
	// Path is the package directory, relative to the declaring package.
	Path string `yaml:"path,omitempty" json:"path,omitempty"`
	// Version is a version range (see semver.ParseRange) for Ref; empty
	// for none.
	Version string `yaml:"version,omitempty" json:"version,omitempty"`
	// Line is the line of the file it was read from, 0 for one not read
	// from a file.
	Line int `yaml:"-" json:"-"`
	// Plugin takes that plugin of a git source's marketplace (NAME or
	// NAME@MARKETPLACE); Skills keep only those skills of the source, by
	// name. Empty takes everything.
	Plugin string   `yaml:"plugin,omitempty" json:"plugin,omitempty"`
	Skills []string `yaml:"skills,omitempty" json:"skills,omitempty"`
}

// String is the declaration as written in the short form, the directory
// when there is one.
func (d Dependency) String() string {
	if d.Path != "" {
		return d.Path
	}
	return d.Ref
}

// UnmarshalYAML reads the short form (one string) or the long one.
func (d *Dependency) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind == yaml.ScalarNode {
		var s string
		if err := node.Decode(&s); err != nil {
			return err
		}
		if declaration.IsPath(s) {
			*d = Dependency{Path: s, Line: node.Line}
		} else {
			*d = Dependency{Ref: s, Line: node.Line}
		}
		return nil
	}
	if node.Kind == yaml.MappingNode {
		// Decoding here does not inherit the file's strictness.
		for _, k := range keysOf(node) {
			if !slices.Contains(dependencyKeys, k.Value) {
				return yamlerr.UnknownKey(k.Line, k.Value, dependencyKeys)
			}
		}
	}
	type plain Dependency
	var p plain
	if err := node.Decode(&p); err != nil {
		return err
	}
	if p.Path != "" && !declaration.IsPath(p.Path) {
		return yamlerr.At(node.Line, fmt.Errorf("path %q: a package directory starts with ./, ../ or /", p.Path))
	}
	if p.Ref != "" && declaration.IsPath(p.Ref) {
		return yamlerr.At(node.Line, fmt.Errorf("ref %q is a directory: name a registry reference or an oci: layout", p.Ref))
	}
	if p.Path == "" && p.Ref == "" {
		return yamlerr.At(node.Line, errors.New("a package needs a ref or a path"))
	}
	if err := Dependency(p).checkVersion(); err != nil {
		return yamlerr.At(node.Line, err)
	}
	*d = Dependency(p)
	d.Line = node.Line
	return nil
}

// Check reports a version range that does not parse, or one given for
// what cannot have one: a directory, or a reference with a tag or digest.
func (d Dependency) Check() error { return d.checkVersion() }

func (d Dependency) checkVersion() error {
	if d.Version == "" {
		return nil
	}
	rng, err := semver.ParseRange(d.Version)
	if err != nil {
		return err
	}
	if d.Ref == "" {
		return fmt.Errorf("version %q needs a ref: a range chooses among a repository's tags", d.Version)
	}
	decl, err := declaration.Parse(d.Ref, declaration.Where{})
	if err != nil {
		return err
	}
	_, err = decl.InRange(rng)
	return err
}

// dependencyKeys are the keys of a declaration's long form.
var dependencyKeys = []string{"path", "ref", "version", "plugin", "skills"}

// Declaration is d as resolving takes it, written at line d.Line of file:
// its directory when it names one and published is false (a source
// checkout), else its reference, in its version range. A declaration
// whose reference or range does not parse is refused, naming the place.
func (d Dependency) Declaration(file string, published bool) (declaration.Declaration, error) {
	where := declaration.Where{File: file, Line: d.Line}
	written := d.String()
	if published && d.Ref != "" {
		written = d.Ref
	}
	decl, err := declaration.Parse(written, where)
	if err != nil {
		// Named as resolving names a declaration, escaped: it is the
		// file's text.
		return declaration.Declaration{}, fmt.Errorf("%s: %s: %w", where, termtext.Escape(userinfo.MaskReference(written)), err)
	}
	if d.Plugin != "" && decl.Kind != declaration.Git {
		return declaration.Declaration{}, fmt.Errorf("%s: %s is a %s, not a git repository: plugin (--plugin) takes a plugin of a git repository's marketplace", where, termtext.Escape(written), decl.Kind)
	}
	decl.Plugin, decl.Skills = d.Plugin, declaration.SkillSet(d.Skills)
	if written != d.Ref || d.Version == "" {
		return decl, nil
	}
	rng, err := semver.ParseRange(d.Version)
	if err == nil {
		decl, err = decl.InRange(rng)
	}
	if err != nil {
		return declaration.Declaration{}, fmt.Errorf("%s: %w", where, err)
	}
	return decl, nil
}

// Declarations are deps, written in file, as resolving takes them (see
// Dependency.Declaration).
func Declarations(deps []Dependency, file string, published bool) ([]declaration.Declaration, error) {
	decls := make([]declaration.Declaration, 0, len(deps))
	for _, d := range deps {
		decl, err := d.Declaration(file, published)
		if err != nil {
			return nil, err
		}
		decls = append(decls, decl)
	}
	return decls, nil
}

// short reports whether the declaration is written as one string.
func (d Dependency) short() bool {
	return d.Version == "" && d.Plugin == "" && len(d.Skills) == 0 && (d.Path == "" || d.Ref == "")
}

// MarshalJSON writes the short form when one field is set, as YAML does.
func (d Dependency) MarshalJSON() ([]byte, error) {
	if d.short() {
		return json.Marshal(d.String())
	}
	type plain Dependency
	return json.Marshal(plain(d))
}

// MarshalYAML writes the short form when one field is set.
func (d Dependency) MarshalYAML() (any, error) {
	if d.short() {
		return d.String(), nil
	}
	type plain Dependency
	return plain(d), nil
}
