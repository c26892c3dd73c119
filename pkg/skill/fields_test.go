package skill

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestFieldsJSON(t *testing.T) {
	doc := mustParse(t, `---
name: a
description: b
user-invocable: true
priority: 2.5
count: 7
created: 2024-05-01
nothing: null
weird: .inf
1: numeric key
base: &base
  x: 1
copy: *base
tags: [x, y]
nested:
  list:
    - {k: v}
---
`)
	fields, err := doc.Frontmatter.Fields()
	if err != nil {
		t.Fatalf("Fields: %v", err)
	}
	got, err := json.Marshal(fields)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	want := `{"1":"numeric key","base":{"x":1},"copy":{"x":1},"count":7,"created":"2024-05-01",` +
		`"description":"b","name":"a","nested":{"list":[{"k":"v"}]},"nothing":null,"priority":2.5,` +
		`"tags":["x","y"],"user-invocable":true,"weird":".inf"}`
	if string(got) != want {
		t.Errorf("Fields JSON =\n%s\nwant\n%s", got, want)
	}
}

func TestFieldsFirstDuplicateWins(t *testing.T) {
	fields, err := mustParse(t, "---\nname: first\nname: second\n---\n").Frontmatter.Fields()
	if err != nil {
		t.Fatal(err)
	}
	if fields["name"] != "first" {
		t.Errorf("name = %v, want first", fields["name"])
	}
}

func TestFieldsAliasCycle(t *testing.T) {
	doc := mustParse(t, "---\nname: a\nloop: &l\n  - *l\n---\n")
	if _, err := doc.Frontmatter.Fields(); !errors.Is(err, errAliasCycle) {
		t.Errorf("Fields error = %v, want %v", err, errAliasCycle)
	}
}

func TestFieldsAliasBomb(t *testing.T) {
	// Each level doubles the values: 2^20 expanded, far past the budget.
	var b strings.Builder
	b.WriteString("---\nl0: &l0 [x, x]\n")
	for i := 1; i <= 20; i++ {
		b.WriteString("l" + strconv.Itoa(i) + ": &l" + strconv.Itoa(i) + " [*l" + strconv.Itoa(i-1) + ", *l" + strconv.Itoa(i-1) + "]\n")
	}
	b.WriteString("---\n")
	doc := mustParse(t, b.String())
	if _, err := doc.Frontmatter.Fields(); !errors.Is(err, errTooLarge) {
		t.Errorf("Fields error = %v, want %v", err, errTooLarge)
	}
}
