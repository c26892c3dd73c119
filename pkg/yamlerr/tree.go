package yamlerr

import (
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// parse is the tree of data, nil when it does not parse.
func parse(data []byte) *yaml.Node {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return nil
	}
	return &doc
}

// item stands in a path for an item of a list.
const item = "[]"

// find is the path of the first node of doc on line that match accepts,
// a key or a value: the keys to it, item for an item of a list. A key's
// path is that of the mapping that holds it. It is nil when none is.
func find(doc *yaml.Node, line int, match func(n *yaml.Node, isKey bool) bool) []string {
	var walk func(n *yaml.Node, path []string) ([]string, bool)
	walk = func(n *yaml.Node, path []string) ([]string, bool) {
		if n.Line == line && match(n, false) {
			return path, true
		}
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				if p, ok := walk(c, path); ok {
					return p, true
				}
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				if p, ok := walk(c, append(slices.Clip(path), item)); ok {
					return p, true
				}
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Line == line && match(k, true) {
					return path, true
				}
				if p, ok := walk(v, append(slices.Clip(path), k.Value)); ok {
					return p, true
				}
			}
		}
		// An alias is not followed: its anchor is walked where it is.
		return nil, false
	}
	if doc == nil {
		return nil
	}
	p, _ := walk(doc, nil)
	return p
}

// describe names the value at path as a user reads the file:
// install.runtimes, or name in an item of install.runtimes; "" for the
// top level.
func describe(path []string) string {
	if len(path) == 0 {
		return ""
	}
	last := len(path) - 1
	if path[last] == item {
		return "an item of " + orTop(describe(path[:last]))
	}
	cut := -1
	for j := last; j >= 0; j-- {
		if path[j] == item {
			cut = j
			break
		}
	}
	if cut < 0 {
		return strings.Join(path, ".")
	}
	return strings.Join(path[cut+1:], ".") + " in " + describe(path[:cut+1])
}

func orTop(s string) string {
	if s == "" {
		return "the top level"
	}
	return s
}

// kindOf names the kind of value a Go type is decoded from. Types of
// the program are looked up among those reachable from v, by the name
// yaml gave them.
func kindOf(goType string, v any) string {
	goType = strings.TrimLeft(goType, "*")
	switch {
	case strings.HasPrefix(goType, "[]"), strings.HasPrefix(goType, "["):
		return "a list"
	case strings.HasPrefix(goType, "map["):
		return "a mapping"
	}
	switch goType {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "a whole number"
	case "float32", "float64":
		return "a number"
	}
	t := typeNamed(v, goType)
	if t == nil {
		return "another kind of value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "a mapping"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	if t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64 {
		return "a whole number"
	}
	return "another kind of value"
}

// knownKeys are the keys of the struct type yaml names goType, among
// those reachable from v; nil when there is none.
func knownKeys(v any, goType string) []string {
	t := typeNamed(v, goType)
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	structKeys(t, &keys)
	return keys
}

// structKeys appends the keys yaml reads into the struct type t, as
// yaml names them: the tag's name, else the field's name in lower case;
// inline structs add theirs.
func structKeys(t reflect.Type, keys *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if slices.Contains(strings.Split(opts, ","), "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				structKeys(ft, keys)
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		*keys = append(*keys, name)
	}
}

// typeNamed is the type reachable from v's whose String is name, or nil.
func typeNamed(v any, name string) reflect.Type {
	if v == nil {
		return nil
	}
	seen := map[reflect.Type]bool{}
	var search func(t reflect.Type) reflect.Type
	search = func(t reflect.Type) reflect.Type {
		if seen[t] {
			return nil
		}
		seen[t] = true
		if t.String() == name {
			return t
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			return search(t.Elem())
		case reflect.Map:
			if found := search(t.Key()); found != nil {
				return found
			}
			return search(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				if found := search(t.Field(i).Type); found != nil {
					return found
				}
			}
		}
		return nil
	}
	return search(reflect.TypeOf(v))
}

// IsMerge reports whether k is a merge key as the decoder takes one: <<,
// untagged or tagged !!merge. Another key tagged !!merge is an ordinary
// key, and a quoted "<<" a string.
func IsMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && (k.Tag == "" || k.Tag == "!" || k.ShortTag() == "!!merge")
}

// badMergeLine is the line of the first merge key (<<) of doc whose value
// is not a mapping, an alias of one, or a list of them; 0 when none is.
func badMergeLine(doc *yaml.Node) int {
	if doc == nil {
		return 0
	}
	isMapping := func(n *yaml.Node) bool {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		return n.Kind == yaml.MappingNode
	}
	var walk func(n *yaml.Node) int
	walk = func(n *yaml.Node) int {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if IsMerge(k) {
					ok := isMapping(v)
					if v.Kind == yaml.SequenceNode {
						ok = !slices.ContainsFunc(v.Content, func(c *yaml.Node) bool { return !isMapping(c) })
					}
					if !ok {
						return k.Line
					}
				}
			}
		}
		// An alias is not followed: its anchor is walked where it is.
		for _, c := range n.Content {
			if line := walk(c); line != 0 {
				return line
			}
		}
		return 0
	}
	return walk(doc)
}
