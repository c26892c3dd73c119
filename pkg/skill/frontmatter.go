package skill

import (
	"fmt"
	"math"
	"sort"

	"go.yaml.in/yaml/v3"
)

// frontmatterOffset converts a line of the frontmatter YAML to a line of the
// file: the YAML starts right after the opening "---" on line 1.
const frontmatterOffset = 1

// ToolsForm says how allowed-tools was written.
type ToolsForm int

const (
	// ToolsAbsent: the field is missing or null.
	ToolsAbsent ToolsForm = iota
	// ToolsList: a YAML list, the form the stax specification requires.
	ToolsList
	// ToolsString: a space-delimited string, the form of the Agent Skills
	// specification (and of Claude Code, which also separates with commas).
	ToolsString
)

// FieldErrorKind classifies a FieldError.
type FieldErrorKind string

const (
	// WrongType: the value is not of the type the field requires.
	WrongType FieldErrorKind = "wrong-type"
	// Duplicate: the field is defined more than once. YAML parsers disagree
	// on which value wins, so the skill would mean different things to
	// different runtimes.
	Duplicate FieldErrorKind = "duplicate"
)

// FieldError is a problem with one frontmatter field.
type FieldError struct {
	// Field is the field name; "metadata.<key>" for an entry of metadata.
	Field string
	// Line is the 1-based line of the file.
	Line    int
	Kind    FieldErrorKind
	Message string
}

func (e FieldError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Message) }

// UnknownField is a top-level field that no known specification defines.
type UnknownField struct {
	Name string
	Line int
}

// Frontmatter is the decoded frontmatter of a SKILL.md. Typed fields hold
// the zero value when the field is missing or has the wrong type.
type Frontmatter struct {
	// Fields of the Agent Skills and stax specifications.
	Name          string
	Description   string
	AllowedTools  []string
	ToolsForm     ToolsForm
	Model         string
	UserInvocable *bool
	ArgumentHint  string
	// ArgumentHintList is set when argument-hint was written unquoted in
	// brackets ("argument-hint: [issue]"), which YAML reads as a list.
	// ArgumentHint then holds the bracketed text the author meant.
	ArgumentHintList bool
	Priority         *float64
	Tags             []string
	License          string
	Compatibility    string
	// Metadata values keep the text they were written with: a version
	// written 1.10 stays "1.10" instead of becoming the number 1.1.
	Metadata map[string]string
	// Version is the top-level version field, else metadata.version.
	Version string
	// VersionField is "version" or "metadata.version": where Version came
	// from. Empty when there is no version.
	VersionField string

	// Errors are the fields of the wrong type, and the duplicate fields.
	Errors []FieldError
	// Unknown are the top-level fields no known specification defines, in
	// the order they were written.
	Unknown []UnknownField

	lines map[string]int
	doc   *yaml.Node // the document node: it holds the comments around the mapping
	node  *yaml.Node // the mapping
}

// knownFields are the fields of the stax specification, of the Agent
// Skills specification, the top-level version stax reads,
// and the Claude Code extensions: users copy Claude Code skills unchanged,
// so those fields must not draw warnings.
var knownFields = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range []string{
		// stax and Agent Skills.
		"name", "description", "allowed-tools", "model", "user-invocable",
		"argument-hint", "priority", "tags", "license", "compatibility", "metadata",
		"version",
		// Claude Code extensions.
		"disable-model-invocation", "when_to_use", "context", "agent", "hooks", "paths",
	} {
		m[f] = true
	}
	return m
}()

// IsKnownField reports whether name is a top-level field stax recognizes.
func IsKnownField(name string) bool { return knownFields[name] }

// KnownFields lists the recognized top-level fields, sorted.
func KnownFields() []string {
	out := make([]string, 0, len(knownFields))
	for k := range knownFields {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Line is the 1-based file line of a field ("name", or "metadata.version"
// for an entry of metadata), or 0 when the field is absent.
func (f *Frontmatter) Line(field string) int { return f.lines[field] }

// Has reports whether the field is present, even if null or empty.
func (f *Frontmatter) Has(field string) bool {
	_, ok := f.lines[field]
	return ok
}

// Node is the mapping node the frontmatter was decoded from. Changing it
// changes what FrontmatterYAML encodes, not the typed fields.
func (f *Frontmatter) Node() *yaml.Node { return f.node }

// MarshalYAML encodes the frontmatter as it was parsed, unknown fields
// included.
func (f *Frontmatter) MarshalYAML() (any, error) { return f.node, nil }

func (f *Frontmatter) encode() ([]byte, error) {
	out, err := yaml.Marshal(f.doc)
	if err != nil {
		return nil, fmt.Errorf("encoding frontmatter: %w", err)
	}
	if len(f.node.Content) == 0 && f.doc.HeadComment == "" && f.doc.FootComment == "" {
		// yaml writes an empty mapping as "{}"; an empty frontmatter
		// block is the faithful encoding.
		return nil, nil
	}
	return out, nil
}

// decode parses the frontmatter YAML fm.
func decode(fm []byte) (*Frontmatter, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(fm, &doc); err != nil {
		return nil, yamlError(err, fm)
	}
	if err := checkNodes(&doc); err != nil {
		return nil, err
	}
	var m *yaml.Node
	switch {
	case doc.Kind == 0 || (doc.Kind == yaml.DocumentNode && len(doc.Content) == 0):
		// Empty frontmatter (or only comments): no fields, which the
		// validator reports as missing name and description.
		doc = yaml.Node{Kind: yaml.DocumentNode, HeadComment: doc.HeadComment}
		m = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		doc.Content = []*yaml.Node{m}
	default:
		m = Resolve(doc.Content[0])
		if m.Kind != yaml.MappingNode {
			line := m.Line + frontmatterOffset
			return nil, &ParseError{Err: ErrNotMapping, Line: line,
				Detail: fmt.Sprintf("the frontmatter must be a YAML mapping of fields (name: value), not %s", Describe(m))}
		}
	}
	f := &Frontmatter{lines: map[string]int{}, doc: &doc, node: m}
	f.decodeFields()
	return f, nil
}

func (f *Frontmatter) decodeFields() {
	for i := 0; i+1 < len(f.node.Content); i += 2 {
		k, v := Resolve(f.node.Content[i]), Resolve(f.node.Content[i+1])
		key := keyText(k)
		line := k.Line + frontmatterOffset
		if first, dup := f.lines[key]; dup {
			f.errorf(key, line, Duplicate, "field %q is already defined on line %d; keep only one", key, first)
			continue
		}
		f.lines[key] = line
		switch key {
		case "name":
			f.Name = f.str(key, v)
		case "description":
			f.Description = f.str(key, v)
		case "model":
			f.Model = f.str(key, v)
		case "license":
			f.License = f.str(key, v)
		case "compatibility":
			f.Compatibility = f.str(key, v)
		case "argument-hint":
			f.argumentHint(v)
		case "allowed-tools":
			f.allowedTools(v)
		case "user-invocable":
			f.UserInvocable = f.boolean(key, v)
		case "priority":
			f.Priority = f.number(key, v)
		case "tags":
			f.Tags = f.strings(key, v)
		case "metadata":
			f.metadata(v)
		case "version":
			f.version(v)
		default:
			if !knownFields[key] {
				f.Unknown = append(f.Unknown, UnknownField{Name: key, Line: line})
			}
		}
	}
	if f.Version == "" {
		if v, ok := f.Metadata["version"]; ok && v != "" {
			f.Version, f.VersionField = v, "metadata.version"
		}
	}
}

func (f *Frontmatter) errorf(field string, line int, kind FieldErrorKind, format string, args ...any) {
	f.Errors = append(f.Errors, FieldError{Field: field, Line: line, Kind: kind, Message: fmt.Sprintf(format, args...)})
}

func (f *Frontmatter) wrongType(field string, v *yaml.Node, want string) {
	msg := fmt.Sprintf("%s must be %s, not %s", field, want, Describe(v))
	if v.Kind == yaml.ScalarNode && want == "a string" {
		msg += fmt.Sprintf("; quote the value: %s: %q", field, v.Value)
	}
	f.errorf(field, v.Line+frontmatterOffset, WrongType, "%s", msg)
}

// str decodes a string field. Null counts as empty, not as a wrong type:
// "name:" with nothing after it is better reported as an empty name.
func (f *Frontmatter) str(field string, v *yaml.Node) string {
	switch {
	case IsNull(v):
		return ""
	case v.Kind == yaml.ScalarNode && v.Tag == "!!str":
		return v.Value
	}
	f.wrongType(field, v, "a string")
	return ""
}

func (f *Frontmatter) boolean(field string, v *yaml.Node) *bool {
	if IsNull(v) {
		return nil
	}
	if v.Kind == yaml.ScalarNode && v.Tag == "!!bool" {
		var b bool
		if err := v.Decode(&b); err == nil {
			return &b
		}
	}
	f.wrongType(field, v, "true or false")
	return nil
}

func (f *Frontmatter) number(field string, v *yaml.Node) *float64 {
	if IsNull(v) {
		return nil
	}
	if v.Kind == yaml.ScalarNode && (v.Tag == "!!int" || v.Tag == "!!float") {
		var n float64
		if err := v.Decode(&n); err == nil && !math.IsNaN(n) && !math.IsInf(n, 0) {
			return &n
		}
	}
	f.wrongType(field, v, "a finite number")
	return nil
}

// strings decodes a list of strings, reporting each bad item on its line.
func (f *Frontmatter) strings(field string, v *yaml.Node) []string {
	if IsNull(v) {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		f.wrongType(field, v, "a list of strings")
		return nil
	}
	out := make([]string, 0, len(v.Content))
	for i, item := range v.Content {
		item = Resolve(item)
		if item.Kind != yaml.ScalarNode || item.Tag != "!!str" {
			f.errorf(field, item.Line+frontmatterOffset, WrongType,
				"%s[%d] must be a string, not %s", field, i, Describe(item))
			continue
		}
		out = append(out, item.Value)
	}
	return out
}

func (f *Frontmatter) allowedTools(v *yaml.Node) {
	switch {
	case IsNull(v):
	case v.Kind == yaml.ScalarNode && v.Tag == "!!str":
		f.AllowedTools, f.ToolsForm = SplitTools(v.Value), ToolsString
	case v.Kind == yaml.SequenceNode:
		f.AllowedTools, f.ToolsForm = f.strings("allowed-tools", v), ToolsList
	default:
		f.wrongType("allowed-tools", v, "a list of strings or a space-delimited string")
	}
}

// argumentHint accepts a flow list of scalars as the bracketed text it was
// meant to be: Claude Code documents hints like "[issue-number]", and
// authors often leave them unquoted.
func (f *Frontmatter) argumentHint(v *yaml.Node) {
	if v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle != 0 {
		text := "["
		for i, item := range v.Content {
			item = Resolve(item)
			if item.Kind != yaml.ScalarNode {
				f.wrongType("argument-hint", v, "a string")
				return
			}
			if i > 0 {
				text += ", "
			}
			text += item.Value
		}
		f.ArgumentHint, f.ArgumentHintList = text+"]", true
		return
	}
	f.ArgumentHint = f.str("argument-hint", v)
}

func (f *Frontmatter) metadata(v *yaml.Node) {
	if IsNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		f.wrongType("metadata", v, "a mapping of keys to values")
		return
	}
	f.Metadata = make(map[string]string, len(v.Content)/2)
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := Resolve(v.Content[i]), Resolve(v.Content[i+1])
		field := "metadata." + keyText(k)
		line := k.Line + frontmatterOffset
		if first, dup := f.lines[field]; dup {
			f.errorf(field, line, Duplicate, "field %q is already defined on line %d; keep only one", field, first)
			continue
		}
		f.lines[field] = line
		text, ok := scalarText(val)
		if !ok {
			f.errorf(field, val.Line+frontmatterOffset, WrongType,
				"%s must be a single value (string, number or boolean), not %s", field, Describe(val))
			continue
		}
		f.Metadata[keyText(k)] = text
	}
}

func (f *Frontmatter) version(v *yaml.Node) {
	text, ok := scalarText(v)
	if !ok {
		f.wrongType("version", v, "a single value such as 1.2.0")
		return
	}
	if text != "" {
		f.Version, f.VersionField = text, "version"
	}
}

// scalarText is the text of a scalar as written; "" for null.
func scalarText(v *yaml.Node) (string, bool) {
	if v.Kind != yaml.ScalarNode {
		return "", false
	}
	if IsNull(v) {
		return "", true
	}
	return v.Value, true
}

// keyText names a mapping key. Keys are almost always plain scalars; a
// complex key is named by its YAML encoding so it can still be reported.
func keyText(k *yaml.Node) string {
	if k.Kind == yaml.ScalarNode {
		return k.Value
	}
	flow := *k
	flow.Style = yaml.FlowStyle
	out, err := yaml.Marshal(&flow)
	if err != nil {
		return Describe(k)
	}
	return string(trimNewline(out))
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// Describe names the type of a YAML node for messages ("a list", "a
// string"), for every parser of skill files.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!str":
			return "a string"
		case "!!int":
			return "an integer"
		case "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		case "!!null":
			return "null"
		case "!!timestamp":
			return "a date"
		case "!!binary":
			return "binary data"
		}
		return "a value tagged " + n.Tag
	}
	return "an unsupported YAML node"
}
