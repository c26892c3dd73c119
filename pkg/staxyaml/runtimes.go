package staxyaml

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/yamlerr"
)

// RuntimeDefinition is a runtime a project defines by its skills folders,
// for an agent stax does not know yet: an entry of install.runtimes
// written as {name, project, user} instead of a name.
type RuntimeDefinition struct {
	// Name is what --runtime and install.runtimes call it.
	Name string `yaml:"name" json:"name"`
	// Project is its skills folder relative to the project root.
	Project string `yaml:"project" json:"project"`
	// User is its skills folder relative to the home directory; written
	// ~/.agent/skills, as a shell would, it is read as .agent/skills.
	User string `yaml:"user" json:"user"`
}

// expandHome reads a user folder written from the home directory, as
// ~/FOLDER, as the FOLDER relative to it that it names: taken as it is,
// it would be a directory named ~ in the home directory.
func (d *RuntimeDefinition) expandHome() {
	if rest, ok := strings.CutPrefix(d.User, "~/"); ok {
		d.User = rest
	}
}

// Runtime is the runtime the definition describes, read as the runtimes
// of the table are: it honours the Agent Skills fields.
func (d RuntimeDefinition) Runtime() agent.Runtime {
	return agent.Defined(d.Name, d.Project, d.User)
}

// check applies to a definition read from a project the rules of names
// and paths read from outside: its folders are relative, clean, without
// "..", so inside the project (or home), and not stax's own; its name is
// one a user can type and not one of stax's runtimes, which it would
// shadow.
func (d RuntimeDefinition) check() error {
	if d.Name == "" {
		return errors.New("a runtime needs a name")
	}
	if !namePattern.MatchString(d.Name) {
		return fmt.Errorf("runtime name %q: use lowercase letters, digits and single '-', '.' or '_' separators", d.Name)
	}
	if _, known := agent.Lookup(d.Name); known {
		return fmt.Errorf("%s is a runtime stax knows: use it by name, or give yours another name", d.Name)
	}
	if d.Project == "" || d.User == "" {
		return fmt.Errorf("runtime %s needs a project and a user folder (project: .agent/skills, user: .agent/skills)", d.Name)
	}
	for _, f := range []struct{ scope, dir string }{{"project", d.Project}, {"user", d.User}} {
		if err := layers.CheckPath(f.dir); err != nil {
			return fmt.Errorf("runtime %s: %s folder %w: name a folder relative to the %s, such as .agent/skills", d.Name, f.scope, err, rootOf(f.scope))
		}
		if strings.HasPrefix(f.dir, "~") {
			// ~/ in a user folder was read as the home directory before.
			return fmt.Errorf("runtime %s: %s folder %q: ~ is not expanded there: name a folder relative to the %s, such as .agent/skills", d.Name, f.scope, f.dir, rootOf(f.scope))
		}
		if first, _, _ := strings.Cut(f.dir, "/"); slices.Contains(layers.Reserved, first) {
			return fmt.Errorf("runtime %s: %s folder %q is inside %s, stax's own: name another folder", d.Name, f.scope, f.dir, first)
		}
	}
	return nil
}

func rootOf(scope string) string {
	if scope == "user" {
		return "home directory"
	}
	return "project root"
}

// checkRuntimes checks each definition, and that none is given twice.
func checkRuntimes(defs []RuntimeDefinition) error {
	seen := map[string]bool{}
	for _, d := range defs {
		if err := d.check(); err != nil {
			return err
		}
		if seen[d.Name] {
			return fmt.Errorf("runtime %s is defined twice in install.runtimes: keep one", d.Name)
		}
		seen[d.Name] = true
	}
	return nil
}

// UnmarshalYAML reads install, whose runtimes are names or definitions.
// Decoding here does not inherit the file's strictness: unknown fields
// are refused by hand.
func (s *InstallSpec) UnmarshalYAML(node *yaml.Node) error {
	if err := knownKeys(node, "install", "sources", "runtimes", "scope"); err != nil {
		return err
	}
	var raw struct {
		Sources  []Dependency `yaml:"sources"`
		Runtimes []yaml.Node  `yaml:"runtimes"`
		Scope    string       `yaml:"scope"`
	}
	if err := node.Decode(&raw); err != nil {
		return err
	}
	out := InstallSpec{Sources: raw.Sources, Scope: raw.Scope}
	var named []yaml.Node
	for _, n := range raw.Runtimes {
		if n.Kind == yaml.ScalarNode {
			out.Runtimes = append(out.Runtimes, n.Value)
			named = append(named, n)
			continue
		}
		if err := knownKeys(&n, "a runtime", "name", "project", "user"); err != nil {
			return err
		}
		var d RuntimeDefinition
		if err := n.Decode(&d); err != nil {
			return err
		}
		d.expandHome()
		if err := d.check(); err != nil {
			return yamlerr.At(n.Line, err)
		}
		out.Runtimes = append(out.Runtimes, d.Name)
		out.Defined = append(out.Defined, d)
	}
	if err := checkRuntimes(out.Defined); err != nil {
		return yamlerr.At(node.Line, err)
	}
	for _, n := range named {
		if slices.ContainsFunc(out.Defined, func(d RuntimeDefinition) bool { return d.Name == n.Value }) {
			continue
		}
		if _, err := agent.Find(n.Value); err != nil && out.unknown == nil {
			out.unknown = yamlerr.At(n.Line, err)
		}
	}
	*s = out
	return nil
}

// UnknownRuntime is the first name install.runtimes gives that is neither
// one of stax's runtimes nor one the list defines, as a yamlerr error at
// its line (yamlerr.In names the file); nil when there is none. Parsing
// does not refuse it: the stax.yaml of a package or a git repository may
// name the runtimes of a newer stax, and only a project's own install
// section is installed from, whose reader checks it.
func (s *InstallSpec) UnknownRuntime() error {
	if s == nil {
		return nil
	}
	return s.unknown
}

// MarshalYAML writes a defined runtime as its definition, the others by
// name, in their order.
func (s InstallSpec) MarshalYAML() (any, error) {
	type entry = any
	runtimes := make([]entry, 0, len(s.Runtimes))
	for _, name := range s.Runtimes {
		if i := slices.IndexFunc(s.Defined, func(d RuntimeDefinition) bool { return d.Name == name }); i >= 0 {
			runtimes = append(runtimes, s.Defined[i])
		} else {
			runtimes = append(runtimes, name)
		}
	}
	return struct {
		Sources  []Dependency `yaml:"sources"`
		Runtimes []entry      `yaml:"runtimes"`
		Scope    string       `yaml:"scope,omitempty"`
	}{s.Sources, runtimes, s.Scope}, nil
}

// knownKeys refuses a key of the mapping node that is not one of keys.
func knownKeys(node *yaml.Node, what string, keys ...string) error {
	if node.Kind != yaml.MappingNode {
		return yamlerr.At(node.Line, fmt.Errorf("%s must be a mapping of %s", what, strings.Join(keys, ", ")))
	}
	for _, k := range keysOf(node) {
		if !slices.Contains(keys, k.Value) {
			return yamlerr.UnknownKey(k.Line, k.Value, keys)
		}
	}
	return nil
}

// keysOf are the keys of mapping node as the decoder reads them, which is
// how the top level of stax.yaml is checked: a merge key (<<) is none of
// them, the keys of the mappings it names are. A merge of anything else
// is left to the decoder to refuse. Each mapping is read once: an alias
// may name a mapping that merges it (the decoder refuses that), or one
// merged many times over.
func keysOf(node *yaml.Node) []*yaml.Node {
	var keys []*yaml.Node
	seen := map[*yaml.Node]bool{}
	var read func(n *yaml.Node)
	read = func(n *yaml.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if !yamlerr.IsMerge(k) {
				keys = append(keys, k)
				continue
			}
			merged := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				merged = v.Content
			}
			for _, m := range merged {
				if m.Kind == yaml.AliasNode && m.Alias != nil {
					m = m.Alias
				}
				if m.Kind == yaml.MappingNode {
					read(m)
				}
			}
		}
	}
	read(node)
	return keys
}
