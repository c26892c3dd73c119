// Package staxyaml reads and writes stax.yaml: the definition of the
// package at its root (name, version, skills directory, the packages it
// builds on), the install settings of the project that consumes packages,
// and that project's trust section. It locates the skills directory the
// file names.
package staxyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stax-dev/stax/internal/atomicfile"
	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/trustpolicy"
	"github.com/stax-dev/stax/pkg/yamlerr"
)

// FileName is the package definition file at a package root.
const FileName = "stax.yaml"

// MaxFileSize bounds a stax.yaml, and $STAX_HOME/config.yaml read by its
// rules: tens of thousands of sources fit, and decoding one takes memory
// many times its size.
const MaxFileSize = 4 << 20

// DefaultSkillsDir is where skills live when stax.yaml does not say.
const DefaultSkillsDir = "skills"

// Definition is the content of stax.yaml.
type Definition struct {
	Name        string   `yaml:"name" json:"name,omitempty"`
	Version     string   `yaml:"version" json:"version,omitempty"`
	Description string   `yaml:"description,omitempty" json:"description,omitempty"`
	Author      string   `yaml:"author,omitempty" json:"author,omitempty"`
	License     string   `yaml:"license,omitempty" json:"license,omitempty"`
	Tags        []string `yaml:"tags,omitempty" json:"tags,omitempty"`
	// Skills is the skills directory, relative to the package root.
	Skills string `yaml:"skills,omitempty" json:"skills,omitempty"`
	// Packages are the packages this one builds on, lowest precedence
	// first: registry references, digest references, oci: layouts, or
	// paths relative to the package root (with the reference they are
	// published under, for publishing this one).
	Packages []Dependency `yaml:"packages,omitempty" json:"packages,omitempty"`
	// Install is what plain `stax install` sets up for this project.
	Install *InstallSpec `yaml:"install,omitempty" json:"install,omitempty"`
	// Trust overrides, for this project, the trust policy in $STAX_HOME.
	Trust *trustpolicy.Policy `yaml:"trust,omitempty" json:"trust,omitempty"`
}

// InstallSpec is the consumer section of stax.yaml.
type InstallSpec struct {
	// Sources are installed in order, later ones winning collisions; each
	// is a reference, an oci: layout, or a path ("." is this package), or
	// a repository with a version range ({ref, version}).
	Sources []Dependency `yaml:"sources" json:"sources"`
	// Runtimes are the agent runtimes to install into, by name: stax's
	// own, or one of Defined.
	Runtimes []string `yaml:"runtimes" json:"runtimes,omitempty"`
	// Defined are the runtimes of Runtimes the project defines by their
	// folders (written in place of their names in stax.yaml).
	Defined []RuntimeDefinition `yaml:"-" json:"defined,omitempty"`
	// Scope is "project" (default) or "user".
	Scope string `yaml:"scope,omitempty" json:"scope,omitempty"`
	// unknown is the first name of Runtimes that is neither one of stax's
	// runtimes nor defined here, with its line (see UnknownRuntime).
	unknown error
}

// Project is a package root on disk.
type Project struct {
	// Root is the package root: where stax.yaml and .staxignore live.
	Root string
	// Definition is the parsed stax.yaml; nil when the root has none.
	Definition *Definition
	// SkillsDir is the skills directory, Root joined with Definition.Skills,
	// or Root itself when there is no stax.yaml.
	SkillsDir string
}

var namePattern = regexp.MustCompile(`^[a-z0-9]+([._-][a-z0-9]+)*$`)

// Open reads the package at dir. A directory with stax.yaml is a package
// root; one without is taken as a bare skills directory.
func Open(dir string) (*Project, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, errdefs.MarkLocal(fmt.Errorf("open package %s: %w", dir, err))
	}
	if !info.IsDir() {
		return nil, errdefs.Invalid(fmt.Errorf("open package %s: not a directory", dir))
	}
	def, err := Load(filepath.Join(dir, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return &Project{Root: dir, SkillsDir: dir}, nil
	}
	if err != nil {
		return nil, err
	}
	skills := def.Skills
	if skills == "" {
		skills = DefaultSkillsDir
	}
	return &Project{Root: dir, Definition: def, SkillsDir: filepath.Join(dir, filepath.FromSlash(skills))}, nil
}

// PackageOfSkillsDir is the package whose stax.yaml, in the directory
// above dir, names dir as its skills directory; nil when there is none.
func PackageOfSkillsDir(dir string) (*Project, error) {
	parent := filepath.Join(dir, "..")
	if _, err := os.Stat(filepath.Join(parent, FileName)); err != nil {
		return nil, nil
	}
	p, err := Open(parent)
	if err != nil || p.Definition == nil {
		return nil, err
	}
	skills, err := filepath.Abs(p.SkillsDir)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	if skills != abs {
		return nil, nil
	}
	return p, nil
}

// Load parses and checks a stax.yaml file. Unknown keys are errors, so that
// a typo does not silently drop a setting.
func Load(path string) (*Definition, error) {
	data, err := regularfile.ReadFile(path, MaxFileSize)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, errdefs.MarkLocal(fmt.Errorf("read %s: %w", path, err))
	}
	return Parse(path, data)
}

// Parse parses and checks data, the content of the stax.yaml at path
// (which messages name).
func Parse(path string, data []byte) (*Definition, error) {
	var def Definition
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&def); err != nil && !errors.Is(err, io.EOF) {
		return nil, errdefs.Invalid(yamlerr.In(path, yamlerr.Translate(err, data, &def)))
	}
	if err := def.Check(); err != nil {
		return nil, errdefs.Invalid(fmt.Errorf("%s: %w", path, err))
	}
	if err := checkSameSource(data); err != nil {
		return nil, errdefs.Invalid(fmt.Errorf("%s: %w", path, err))
	}
	return &def, nil
}

// Check reports the first field that cannot be used to build a package.
// Empty name and version are allowed: flags or defaults may supply them.
func (d *Definition) Check() error {
	if d.Name != "" && !namePattern.MatchString(d.Name) {
		return fmt.Errorf("name %q: use lowercase letters, digits and single '-', '.' or '_' separators", d.Name)
	}
	if d.Version != "" && !reference.ValidTag(d.Version) {
		return fmt.Errorf("version %q: it becomes the default tag, so it must be a valid OCI tag (letters, digits, '.', '_', '-'; at most 128)", d.Version)
	}
	if d.Install != nil && d.Install.Scope != "" && d.Install.Scope != "project" && d.Install.Scope != "user" {
		return fmt.Errorf("install.scope %q: use project or user", d.Install.Scope)
	}
	if d.Install != nil {
		if err := checkRuntimes(d.Install.Defined); err != nil {
			return fmt.Errorf("install.runtimes: %w", err)
		}
	}
	if s := d.Skills; s != "" {
		clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(s)))
		if filepath.IsAbs(s) || clean == ".." || strings.HasPrefix(clean, "../") {
			return fmt.Errorf("skills %q: must be a directory inside the package root", s)
		}
	}
	return nil
}

// Write creates path with def. It refuses to replace an existing file
// unless overwrite is set.
func Write(path string, def *Definition, overwrite bool) error {
	if err := def.Check(); err != nil {
		return errdefs.Invalid(err)
	}
	body, err := yaml.Marshal(def)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	header := "# stax package definition: https://github.com/stax-dev/stax#staxyaml\n"
	return WriteFile(path, []byte(header+string(body)), overwrite)
}

// WriteFile creates path with data, the content of a stax.yaml. It
// refuses to replace an existing file unless overwrite is set; then it
// replaces it in one step, so a crash leaves the old file or the new,
// never the old one cut short.
func WriteFile(path string, data []byte, overwrite bool) error {
	if overwrite {
		// A temporary file that is not fresh was left by a killed write.
		atomicfile.RemoveStale(path)
		if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
			return errdefs.MarkLocal(fmt.Errorf("write %s: %w", path, err))
		}
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return errdefs.Invalid(fmt.Errorf("%s already exists: edit it, or pass --force to replace it", path))
	}
	if err != nil {
		return errdefs.MarkLocal(fmt.Errorf("create %s: %w", path, err))
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return errdefs.MarkLocal(fmt.Errorf("write %s: %w", path, err))
	}
	return errdefs.MarkLocal(f.Close())
}

// NameFromDir derives a package name from a directory name, for packages
// without a stax.yaml and for stax init.
func NameFromDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return NameFrom(filepath.Base(abs))
}

// NameFrom makes word a package name: lower case, each run of other
// characters one '-'; "skills" when nothing is left.
func NameFrom(word string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(word) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	name := strings.TrimSuffix(b.String(), "-")
	if name == "" {
		return "skills"
	}
	return name
}

// LoadDir reads dir/stax.yaml, nil when there is none.
func LoadDir(dir string) (*Definition, error) {
	def, err := Load(filepath.Join(dir, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return def, err
}

// TrustPolicy is the project's trust section with its key paths relative
// to dir, the project's directory; nil when there is none.
func (d *Definition) TrustPolicy(dir string) *trustpolicy.Policy {
	if d == nil || d.Trust == nil {
		return nil
	}
	p := *d.Trust
	p.Dir = dir
	return &p
}
