package staxyaml

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/yamlerr"
)

// Package names the package a declaration is of, whatever its tag, digest
// or range: a registry repository (its full name), an oci: layout, or a
// directory (cleaned). Two sources of one package cannot both be
// installed, and stax add replaces the source of the package it adds.
func (d Dependency) Package() string {
	if d.Path != "" {
		return path.Clean(d.Path)
	}
	return PackageOf(d.Ref)
}

// PackageOf is Package of the declaration decl, written as one string.
func PackageOf(decl string) string {
	d, err := declaration.Parse(decl, declaration.Where{})
	if err != nil {
		return decl
	}
	return d.Package()
}

// checkSameSource reports two install.sources of one package, with their
// lines: which of them is meant cannot be told.
func checkSameSource(data []byte) error {
	seq, err := sourcesNode(data)
	if err != nil || seq == nil {
		return err
	}
	first := map[string]int{}
	for _, item := range seq.Content {
		var d Dependency
		if err := item.Decode(&d); err != nil {
			return err
		}
		pkg := d.Package()
		if line, ok := first[pkg]; ok {
			return fmt.Errorf("install.sources: lines %d and %d are both %s: keep one (a version range goes in {ref: %s, version: RANGE})", line, item.Line, pkg, pkg)
		}
		first[pkg] = item.Line
	}
	return nil
}

// sourcesNode is the install.sources sequence of data, nil when there is
// none.
func sourcesNode(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	_, install := mappingValue(doc.Content[0], "install")
	_, seq := mappingValue(install, "sources")
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil, nil
	}
	return seq, nil
}

// mappingValue is the key and value of key in the mapping m; nils when m
// is not a mapping or has no such key.
func mappingValue(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// AddSource returns data, the content of a stax.yaml (empty for none),
// with src in install.sources: in place of the source of the same
// package, else after the last. Only the lines of that source change, so
// comments, order and formatting of the rest of the file stay as they
// were.
func AddSource(data []byte, src Dependency) ([]byte, error) {
	e, err := newSourcesEdit(data)
	if err != nil {
		return nil, err
	}
	return e.add(src)
}

// RemoveSource returns data without the install.sources entry of pkg (see
// Dependency.Package); removed is false when there is none.
func RemoveSource(data []byte, pkg string) (out []byte, removed bool, err error) {
	e, err := newSourcesEdit(data)
	if err != nil {
		return nil, false, err
	}
	return e.remove(pkg)
}

// sourcesEdit edits install.sources of a stax.yaml line by line, with
// the positions its YAML tree gives.
type sourcesEdit struct {
	lines [][]byte // each with its newline
	root  *yaml.Node
}

// errCannotEdit ends the messages of files stax cannot edit in place.
const errCannotEdit = "edit install.sources of stax.yaml by hand"

func newSourcesEdit(data []byte) (*sourcesEdit, error) {
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		data = append(slices.Clip(data), '\n')
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, errdefs.Invalid(yamlerr.In(FileName, yamlerr.Translate(err, data, nil)))
	}
	e := &sourcesEdit{lines: bytes.SplitAfter(data, []byte("\n"))}
	if n := len(e.lines); n > 0 && len(e.lines[n-1]) == 0 {
		e.lines = e.lines[:n-1]
	}
	if len(doc.Content) > 0 {
		e.root = doc.Content[0]
		if e.root.Kind != yaml.MappingNode || e.root.Style&yaml.FlowStyle != 0 {
			return nil, errdefs.Invalid(fmt.Errorf("%s: the top level is not a block mapping: %s", FileName, errCannotEdit))
		}
	}
	return e, nil
}

func (e *sourcesEdit) add(src Dependency) ([]byte, error) {
	entry := flowText(src)
	installKey, install := mappingValue(e.root, "install")
	if installKey == nil {
		e.lines = append(e.lines, []byte("install:\n  sources:\n    - "+entry+"\n"))
		return e.bytes(), nil
	}
	if install.Kind != yaml.MappingNode || install.Style&yaml.FlowStyle != 0 {
		if install.Kind == yaml.ScalarNode && install.Tag == "!!null" {
			return e.insertAfter(installKey.Line, []string{"  sources:", "    - " + entry}), nil
		}
		return nil, errdefs.Invalid(fmt.Errorf("%s: line %d: install is not a block mapping: %s", FileName, install.Line, errCannotEdit))
	}
	sourcesKey, seq := mappingValue(install, "sources")
	indent := strings.Repeat(" ", install.Content[0].Column-1)
	if sourcesKey == nil {
		return e.insertAfter(installKey.Line, []string{indent + "sources:", indent + "  - " + entry}), nil
	}
	switch {
	case seq.Kind == yaml.ScalarNode && seq.Tag == "!!null":
		return e.insertAfter(sourcesKey.Line, []string{indent + "  - " + entry}), nil
	case seq.Kind != yaml.SequenceNode:
		return nil, errdefs.Invalid(fmt.Errorf("%s: line %d: install.sources is not a list: %s", FileName, seq.Line, errCannotEdit))
	case seq.Style&yaml.FlowStyle != 0:
		return e.rewriteFlow(seq, func(items []Dependency) []Dependency { return replaceOrAppend(items, src) })
	}
	for _, item := range seq.Content {
		var d Dependency
		if err := item.Decode(&d); err != nil {
			return nil, errdefs.Invalid(fmt.Errorf("%s: %w", FileName, err))
		}
		if d.Package() == src.Package() {
			prefix, err := e.itemPrefix(item)
			if err != nil {
				return nil, err
			}
			e.replaceLines(item.Line, lastLine(item), []string{prefix + entry})
			return e.bytes(), nil
		}
	}
	last := seq.Content[len(seq.Content)-1]
	prefix, err := e.itemPrefix(last)
	if err != nil {
		return nil, err
	}
	return e.insertAfter(lastLine(last), []string{prefix + entry}), nil
}

func (e *sourcesEdit) remove(pkg string) ([]byte, bool, error) {
	_, install := mappingValue(e.root, "install")
	_, seq := mappingValue(install, "sources")
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil, false, nil
	}
	if seq.Style&yaml.FlowStyle != 0 {
		removed := false
		out, err := e.rewriteFlow(seq, func(items []Dependency) []Dependency {
			n := len(items)
			items = slices.DeleteFunc(items, func(d Dependency) bool { return d.Package() == pkg })
			removed = len(items) < n
			return items
		})
		return out, removed, err
	}
	for _, item := range seq.Content {
		var d Dependency
		if err := item.Decode(&d); err != nil {
			return nil, false, errdefs.Invalid(fmt.Errorf("%s: %w", FileName, err))
		}
		if d.Package() == pkg {
			e.replaceLines(item.Line, lastLine(item), nil)
			return e.bytes(), true, nil
		}
	}
	return nil, false, nil
}

// itemPrefix is what comes before a sequence item on its first line, the
// indentation and the dash.
func (e *sourcesEdit) itemPrefix(item *yaml.Node) (string, error) {
	line := string(e.lines[item.Line-1])
	prefix := line[:min(item.Column-1, len(line))]
	if strings.TrimSpace(prefix) != "-" {
		return "", errdefs.Invalid(fmt.Errorf("%s: line %d: the entry is not on its own line after a dash: %s", FileName, item.Line, errCannotEdit))
	}
	return strings.TrimRight(prefix, " ") + " ", nil
}

// rewriteFlow writes a flow sequence ([a, b]) again with the items edit
// gives.
func (e *sourcesEdit) rewriteFlow(seq *yaml.Node, edit func([]Dependency) []Dependency) ([]byte, error) {
	var items []Dependency
	if err := seq.Decode(&items); err != nil {
		return nil, errdefs.Invalid(fmt.Errorf("%s: %w", FileName, err))
	}
	items = edit(items)
	end := lastLine(seq)
	text := string(bytes.Join(e.lines[seq.Line-1:end], nil))
	start := lineOffset(text, 1, seq.Column)
	closing := strings.LastIndex(text, "]")
	if closing < start {
		return nil, errdefs.Invalid(fmt.Errorf("%s: line %d: install.sources: %s", FileName, seq.Line, errCannotEdit))
	}
	texts := make([]string, len(items))
	for i, d := range items {
		texts[i] = flowText(d)
	}
	text = text[:start] + "[" + strings.Join(texts, ", ") + text[closing:]
	e.replaceLines(seq.Line, end, []string{strings.TrimSuffix(text, "\n")})
	return e.bytes(), nil
}

// lineOffset is the byte offset in text of a line and column (1-based).
func lineOffset(text string, line, column int) int {
	off := 0
	for range line - 1 {
		off += strings.IndexByte(text[off:], '\n') + 1
	}
	return off + column - 1
}

func replaceOrAppend(items []Dependency, src Dependency) []Dependency {
	for i, d := range items {
		if d.Package() == src.Package() {
			items[i] = src
			return items
		}
	}
	return append(items, src)
}

// lastLine is the last line a node spans, as far as its tree says: that
// of its last descendant, or, for a flow collection, of its closing
// bracket's line, which the last descendant's is in a one-line one.
func lastLine(n *yaml.Node) int {
	last := n.Line
	for _, c := range n.Content {
		last = max(last, lastLine(c))
	}
	return last
}

// insertAfter inserts lines after line (1-based).
func (e *sourcesEdit) insertAfter(line int, lines []string) []byte {
	e.replaceLines(line+1, line, lines)
	return e.bytes()
}

// replaceLines replaces lines from through to (1-based, inclusive; to <
// from inserts before from) with lines.
func (e *sourcesEdit) replaceLines(from, to int, lines []string) {
	var repl [][]byte
	for _, l := range lines {
		repl = append(repl, []byte(l+"\n"))
	}
	e.lines = slices.Replace(e.lines, from-1, max(to, from-1), repl...)
}

func (e *sourcesEdit) bytes() []byte { return bytes.Join(e.lines, nil) }

// plainScalar matches the references and paths written without quotes:
// nothing in them is a YAML indicator.
var plainScalar = regexp.MustCompile(`^[A-Za-z0-9_./][A-Za-z0-9_./:@+-]*$`)

// flowText is d as one line of YAML: the short form, or a flow mapping.
func flowText(d Dependency) string {
	if d.short() {
		return scalarText(d.String())
	}
	var fields []string
	if d.Path != "" {
		fields = append(fields, "path: "+scalarText(d.Path))
	}
	if d.Ref != "" {
		fields = append(fields, "ref: "+scalarText(d.Ref))
	}
	if d.Version != "" {
		fields = append(fields, "version: "+quoted(d.Version))
	}
	if d.Plugin != "" {
		fields = append(fields, "plugin: "+scalarText(d.Plugin))
	}
	if len(d.Skills) > 0 {
		skills := make([]string, len(d.Skills))
		for i, s := range d.Skills {
			skills[i] = scalarText(s)
		}
		fields = append(fields, "skills: ["+strings.Join(skills, ", ")+"]")
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

func scalarText(s string) string {
	if plainScalar.MatchString(s) {
		return s
	}
	return quoted(s)
}

// quoted is s as a double-quoted YAML scalar, which JSON's strings are
// (with <, > and & left as they are).
func quoted(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
