package skill

import "go.yaml.in/yaml/v3"

// The helpers every reader of skill files (SKILL.md, MEMORY.md and the
// other stateful files) walks YAML nodes with, so that aliases, nulls and
// duplicated keys mean the same in all of them.

// Resolve follows an alias to the node it names.
func Resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// IsNull reports a null scalar (~, null, or nothing).
func IsNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// Keys maps the scalar keys of mapping n to their values, aliases
// resolved; the first of a duplicated key wins, as in the SKILL.md
// decoder. A nil n has no keys.
func Keys(n *yaml.Node) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n == nil {
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if _, dup := out[k.Value]; !dup && k.Kind == yaml.ScalarNode {
			out[k.Value] = Resolve(n.Content[i+1])
		}
	}
	return out
}

// Lookup follows keys from mapping m; the first of duplicated keys wins.
// It returns nil when a key is missing or a value on the way is not a
// mapping.
func Lookup(m *yaml.Node, path ...string) *yaml.Node {
	n := m
	for _, key := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
				next = n.Content[i+1]
				break
			}
		}
		n = next
	}
	return n
}
