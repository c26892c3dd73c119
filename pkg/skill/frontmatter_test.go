package skill

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func mustParse(t *testing.T, in string) *Document {
	t.Helper()
	doc, err := Parse([]byte(in))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return doc
}

func TestFrontmatterTypedFields(t *testing.T) {
	doc := mustParse(t, `---
name: fix-issue
description: >
  Fix a GitHub issue
  following team standards
allowed-tools:
  - Read
  - Bash(git *)
model: claude-sonnet-4-1
user-invocable: false
argument-hint: <issue-number>
priority: 3
tags: [github, issues]
license: Apache-2.0
compatibility: Requires gh
metadata:
  author: team
  version: 1.10
---
Body
`)
	f := doc.Frontmatter
	if len(f.Errors) != 0 {
		t.Fatalf("Errors = %v", f.Errors)
	}
	if len(f.Unknown) != 0 {
		t.Errorf("Unknown = %v", f.Unknown)
	}
	checks := []struct {
		field     string
		got, want any
	}{
		{"Name", f.Name, "fix-issue"},
		{"Description", f.Description, "Fix a GitHub issue following team standards\n"},
		{"AllowedTools", f.AllowedTools, []string{"Read", "Bash(git *)"}},
		{"ToolsForm", f.ToolsForm, ToolsList},
		{"Model", f.Model, "claude-sonnet-4-1"},
		{"UserInvocable", *f.UserInvocable, false},
		{"ArgumentHint", f.ArgumentHint, "<issue-number>"},
		{"ArgumentHintList", f.ArgumentHintList, false},
		{"Priority", *f.Priority, 3.0},
		{"Tags", f.Tags, []string{"github", "issues"}},
		{"License", f.License, "Apache-2.0"},
		{"Compatibility", f.Compatibility, "Requires gh"},
		// Metadata keeps the text: 1.10 must not become 1.1.
		{"Metadata", f.Metadata, map[string]string{"author": "team", "version": "1.10"}},
		{"Version", f.Version, "1.10"},
		{"VersionField", f.VersionField, "metadata.version"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.field, c.got, c.want)
		}
	}
}

func TestFrontmatterLines(t *testing.T) {
	doc := mustParse(t, `---
name: a
description: |
  two
  lines
tags:
  - x
metadata:
  author: me
---
`)
	f := doc.Frontmatter
	for field, want := range map[string]int{
		"name": 2, "description": 3, "tags": 6, "metadata": 8, "metadata.author": 9, "model": 0,
	} {
		if got := f.Line(field); got != want {
			t.Errorf("Line(%q) = %d, want %d", field, got, want)
		}
	}
	if f.Has("model") || !f.Has("tags") {
		t.Errorf("Has(model) = %v, Has(tags) = %v", f.Has("model"), f.Has("tags"))
	}
}

func TestAllowedToolsForms(t *testing.T) {
	tests := []struct {
		name  string
		yaml  string
		tools []string
		form  ToolsForm
	}{
		{"block list", "allowed-tools:\n  - Read\n  - Grep\n", []string{"Read", "Grep"}, ToolsList},
		{"flow list", "allowed-tools: [Read, \"Bash(git *)\"]\n", []string{"Read", "Bash(git *)"}, ToolsList},
		{"agent skills string", "allowed-tools: Bash(git:*) Bash(jq:*) Read\n", []string{"Bash(git:*)", "Bash(jq:*)", "Read"}, ToolsString},
		{"claude code commas", "allowed-tools: Bash(git add:*), Bash(git status:*), Read\n", []string{"Bash(git add:*)", "Bash(git status:*)", "Read"}, ToolsString},
		{"extra whitespace", "allowed-tools: \"  Read \t Grep  \"\n", []string{"Read", "Grep"}, ToolsString},
		{"absent", "", nil, ToolsAbsent},
		{"null", "allowed-tools:\n", nil, ToolsAbsent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustParse(t, "---\nname: a\ndescription: b\n"+tt.yaml+"---\n").Frontmatter
			if len(f.Errors) != 0 {
				t.Fatalf("Errors = %v", f.Errors)
			}
			if !reflect.DeepEqual(f.AllowedTools, tt.tools) {
				t.Errorf("AllowedTools = %#v, want %#v", f.AllowedTools, tt.tools)
			}
			if f.ToolsForm != tt.form {
				t.Errorf("ToolsForm = %v, want %v", f.ToolsForm, tt.form)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	tests := []struct {
		name, yaml, version, from string
	}{
		{"top level", "version: 1.2.0\n", "1.2.0", "version"},
		{"top level wins", "version: 2.0.0\nmetadata:\n  version: 1.0.0\n", "2.0.0", "version"},
		{"metadata", "metadata:\n  version: \"1.0\"\n", "1.0", "metadata.version"},
		{"number keeps its text", "version: 1.10\n", "1.10", "version"},
		{"null top level falls back", "version:\nmetadata:\n  version: 3.1.4\n", "3.1.4", "metadata.version"},
		{"none", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustParse(t, "---\nname: a\ndescription: b\n"+tt.yaml+"---\n").Frontmatter
			if len(f.Errors) != 0 {
				t.Fatalf("Errors = %v", f.Errors)
			}
			if f.Version != tt.version || f.VersionField != tt.from {
				t.Errorf("Version, VersionField = %q, %q; want %q, %q", f.Version, f.VersionField, tt.version, tt.from)
			}
		})
	}
}

func TestFieldErrors(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string // starts on file line 2
		field   string
		line    int
		kind    FieldErrorKind
		message string // substring
	}{
		{"name number", "name: 123\n", "name", 2, WrongType, `quote the value: name: "123"`},
		{"description list", "description:\n  - a\n", "description", 3, WrongType, "description must be a string, not a list"},
		{"description bool", "description: true\n", "description", 2, WrongType, "not a boolean"},
		{"model mapping", "model:\n  id: x\n", "model", 3, WrongType, "model must be a string, not a mapping"},
		{"license number", "license: 2.0\n", "license", 2, WrongType, "not a number"},
		{"compatibility date", "compatibility: 2024-01-01\n", "compatibility", 2, WrongType, "not a date"},
		{"argument-hint mapping", "argument-hint: {a: b}\n", "argument-hint", 2, WrongType, "argument-hint must be a string"},
		{"priority string", "priority: high\n", "priority", 2, WrongType, "priority must be a finite number, not a string"},
		{"priority nan", "priority: .nan\n", "priority", 2, WrongType, "finite number"},
		{"user-invocable string", "user-invocable: yes\n", "user-invocable", 2, WrongType, "must be true or false, not a string"},
		{"tags string", "tags: a, b\n", "tags", 2, WrongType, "tags must be a list of strings, not a string"},
		{"tags item", "tags:\n  - ok\n  - [nested]\n", "tags", 4, WrongType, "tags[1] must be a string, not a list"},
		{"allowed-tools item", "allowed-tools:\n  - Read\n  - 42\n", "allowed-tools", 4, WrongType, "allowed-tools[1] must be a string, not an integer"},
		{"allowed-tools mapping", "allowed-tools: {Read: true}\n", "allowed-tools", 2, WrongType, "a list of strings or a space-delimited string"},
		{"metadata list", "metadata: [a]\n", "metadata", 2, WrongType, "metadata must be a mapping"},
		{"metadata value", "metadata:\n  owners:\n    - a\n", "metadata.owners", 4, WrongType, "metadata.owners must be a single value"},
		{"version list", "version: [1, 2]\n", "version", 2, WrongType, "version must be a single value"},
		{"duplicate field", "tags: [a]\ntags: [b]\n", "tags", 3, Duplicate, `"tags" is already defined on line 2`},
		{"duplicate metadata key", "metadata:\n  a: 1\n  a: 2\n", "metadata.a", 4, Duplicate, "already defined on line 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := "---\n" + tt.yaml
			if !strings.Contains(tt.yaml, "name:") {
				in += "name: a\n"
			}
			if !strings.Contains(tt.yaml, "description:") {
				in += "description: b\n"
			}
			f := mustParse(t, in+"---\n").Frontmatter
			if len(f.Errors) != 1 {
				t.Fatalf("Errors = %v, want one", f.Errors)
			}
			e := f.Errors[0]
			if e.Field != tt.field || e.Line != tt.line || e.Kind != tt.kind {
				t.Errorf("error = %+v, want field %q line %d kind %s", e, tt.field, tt.line, tt.kind)
			}
			if !strings.Contains(e.Message, tt.message) {
				t.Errorf("Message = %q, want it to contain %q", e.Message, tt.message)
			}
		})
	}
}

func TestFieldErrorsAreAllReported(t *testing.T) {
	f := mustParse(t, "---\nname: 1\ndescription: 2\npriority: x\ntags: y\n---\n").Frontmatter
	var got []string
	for _, e := range f.Errors {
		got = append(got, e.Field)
	}
	if want := []string{"name", "description", "priority", "tags"}; !reflect.DeepEqual(got, want) {
		t.Errorf("error fields = %v, want %v", got, want)
	}
}

func TestNullStringFieldsAreEmpty(t *testing.T) {
	f := mustParse(t, "---\nname:\ndescription: ~\n---\n").Frontmatter
	if len(f.Errors) != 0 {
		t.Errorf("Errors = %v", f.Errors)
	}
	if f.Name != "" || f.Description != "" || !f.Has("name") || !f.Has("description") {
		t.Errorf("Name %q Description %q Has %v %v", f.Name, f.Description, f.Has("name"), f.Has("description"))
	}
}

func TestArgumentHintUnquotedBrackets(t *testing.T) {
	f := mustParse(t, "---\nname: a\ndescription: b\nargument-hint: [issue-number]\n---\n").Frontmatter
	if len(f.Errors) != 0 {
		t.Fatalf("Errors = %v", f.Errors)
	}
	if f.ArgumentHint != "[issue-number]" || !f.ArgumentHintList {
		t.Errorf("ArgumentHint = %q, ArgumentHintList = %v", f.ArgumentHint, f.ArgumentHintList)
	}
}

func TestPriorityForms(t *testing.T) {
	for in, want := range map[string]float64{"3": 3, "-1": -1, "2.5": 2.5, "0x10": 16, "1e2": 100} {
		f := mustParse(t, "---\nname: a\ndescription: b\npriority: "+in+"\n---\n").Frontmatter
		if len(f.Errors) != 0 || f.Priority == nil || *f.Priority != want {
			t.Errorf("priority: %s: Priority = %v, Errors = %v; want %v", in, f.Priority, f.Errors, want)
		}
	}
}

func TestUnknownFields(t *testing.T) {
	f := mustParse(t, `---
name: a
description: b
disable-model-invocation: true
when_to_use: when needed
context: fork
agent: Explore
hooks: {}
paths: src/
x-custom: 1
Name: shadow
---
`).Frontmatter
	want := []UnknownField{{"x-custom", 10}, {"Name", 11}}
	if !reflect.DeepEqual(f.Unknown, want) {
		t.Errorf("Unknown = %v, want %v", f.Unknown, want)
	}
	if len(f.Errors) != 0 {
		t.Errorf("Errors = %v", f.Errors)
	}
}

func TestKnownFields(t *testing.T) {
	for _, name := range []string{"name", "allowed-tools", "version", "disable-model-invocation", "paths"} {
		if !IsKnownField(name) {
			t.Errorf("IsKnownField(%q) = false", name)
		}
	}
	if IsKnownField("x-custom") {
		t.Error("IsKnownField(x-custom) = true")
	}
	if got := KnownFields(); len(got) != 18 || got[0] != "agent" {
		t.Errorf("KnownFields = %v", got)
	}
}

func TestSplitTools(t *testing.T) {
	tests := map[string][]string{
		"Read Grep":                       {"Read", "Grep"},
		"Read,Grep":                       {"Read", "Grep"},
		"Bash(git add:*), Read":           {"Bash(git add:*)", "Read"},
		"Bash(a, b) Read":                 {"Bash(a, b)", "Read"},
		"Bash(x(y) z) Edit":               {"Bash(x(y) z)", "Edit"},
		"":                                nil,
		" , ":                             nil,
		"Bash(unbalanced Read":            {"Bash(unbalanced Read"},
		"Read\nGrep":                      {"Read", "Grep"},
		"mcp__github__get_issue WebFetch": {"mcp__github__get_issue", "WebFetch"},
	}
	for in, want := range tests {
		if got := SplitTools(in); !reflect.DeepEqual(got, want) {
			t.Errorf("SplitTools(%q) = %#v, want %#v", in, got, want)
		}
	}
}

// equalJSON compares two values by their JSON encoding.
func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

func TestMarshalYAMLKeepsUnknownFields(t *testing.T) {
	doc := mustParse(t, "---\nname: a\ndescription: b\nx-owner: team # who to ask\n---\n")
	// A caller embedding the frontmatter in its own document gets every
	// field, not just the typed ones.
	out, err := yaml.Marshal(map[string]any{"skill": doc.Frontmatter})
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Skill map[string]string `yaml:"skill"`
	}
	if err := yaml.Unmarshal(out, &back); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]string{"name": "a", "description": "b", "x-owner": "team"}
	if !reflect.DeepEqual(back.Skill, want) {
		t.Errorf("re-encoded = %v, want %v\n%s", back.Skill, want, out)
	}
	if doc.Frontmatter.Node().Kind != yaml.MappingNode {
		t.Errorf("Node().Kind = %v, want a mapping", doc.Frontmatter.Node().Kind)
	}
}

func TestComplexKeyIsNamed(t *testing.T) {
	f := mustParse(t, "---\nname: a\ndescription: b\n? [x, y]\n: z\n---\n").Frontmatter
	if len(f.Unknown) != 1 || f.Unknown[0].Name != "[x, y]" || f.Unknown[0].Line != 4 {
		t.Errorf("Unknown = %+v, want [x, y] on line 4", f.Unknown)
	}
}

func TestAliasedValues(t *testing.T) {
	f := mustParse(t, "---\nx-base: &d A description\nname: a\ndescription: *d\n---\n").Frontmatter
	if f.Description != "A description" || len(f.Errors) != 0 {
		t.Errorf("Description = %q, Errors = %v", f.Description, f.Errors)
	}
}

func TestErrorStrings(t *testing.T) {
	_, err := Parse([]byte("---\nname: a\ndescription: b: c\n---\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "line 3: invalid YAML in frontmatter: mapping values") {
		t.Errorf("ParseError = %v", err)
	}
	if pe := (&ParseError{Err: ErrYAML, Detail: "no line known"}); pe.Error() != "no line known" {
		t.Errorf("ParseError without a line = %v", pe)
	}
	fe := FieldError{Field: "tags", Line: 7, Kind: WrongType, Message: "tags must be a list"}
	if fe.Error() != "line 7: tags must be a list" {
		t.Errorf("FieldError = %v", fe)
	}
}
