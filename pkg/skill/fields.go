package skill

import (
	"errors"
	"math"

	"go.yaml.in/yaml/v3"
)

// maxFieldValues bounds how many values Fields expands. Aliases let a few
// lines of YAML name an exponential number of values ("billion laughs");
// a real frontmatter holds a few dozen.
const maxFieldValues = 10000

// Fields is a JSON-friendly view of the whole frontmatter, unknown fields
// included, for machine-readable output. Mappings become map[string]any
// (encoding/json sorts their keys, so the output is stable), lists []any,
// and scalars their YAML value, except where JSON would lose what was
// written: dates stay the text they were written as, and so do .nan and
// .inf, which JSON cannot represent. Non-string keys are named by their
// text. When a key repeats, the first value wins, as in the typed fields.
func (f *Frontmatter) Fields() (map[string]any, error) {
	w := &fieldWalker{budget: maxFieldValues, active: map[*yaml.Node]bool{}}
	v, err := w.value(f.node)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

type fieldWalker struct {
	budget int
	// active holds the aliased nodes being expanded, to stop at cycles.
	active map[*yaml.Node]bool
}

var (
	errAliasCycle = errors.New("frontmatter alias refers to itself")
	errTooLarge   = errors.New("frontmatter expands to too many values")
)

func (w *fieldWalker) value(n *yaml.Node) (any, error) {
	if w.budget--; w.budget < 0 {
		return nil, errTooLarge
	}
	switch n.Kind {
	case yaml.AliasNode:
		// Collections mark themselves active while they are expanded, so an
		// alias to one of them from inside is a cycle.
		if n.Alias == nil || w.active[n.Alias] {
			return nil, errAliasCycle
		}
		return w.value(n.Alias)
	case yaml.MappingNode:
		w.active[n] = true
		defer delete(w.active, n)
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := keyText(Resolve(n.Content[i]))
			if _, dup := out[key]; dup {
				continue
			}
			v, err := w.value(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			out[key] = v
		}
		return out, nil
	case yaml.SequenceNode:
		w.active[n] = true
		defer delete(w.active, n)
		out := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, err := w.value(item)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		return scalarValue(n), nil
	}
	return nil, nil
}

// scalarValue decodes a scalar for JSON.
func scalarValue(n *yaml.Node) any {
	switch n.Tag {
	case "!!null":
		return nil
	case "!!bool", "!!int":
		var v any
		if err := n.Decode(&v); err == nil {
			return v
		}
	case "!!float":
		var v float64
		if err := n.Decode(&v); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
			return v
		}
	}
	return n.Value
}
