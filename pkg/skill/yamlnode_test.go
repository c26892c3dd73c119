package skill

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestYAMLNodeHelpers(t *testing.T) {
	var doc yaml.Node
	src := "a: &x 1\nb: *x\nc: ~\na: 2\nm:\n  n:\n    o: deep\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	m := doc.Content[0]
	keys := Keys(m)
	if keys["a"].Value != "1" {
		t.Errorf("a duplicated key: the first should win, got %q", keys["a"].Value)
	}
	if keys["b"].Value != "1" {
		t.Errorf("an alias is not resolved: %q", keys["b"].Value)
	}
	if !IsNull(keys["c"]) || IsNull(keys["a"]) {
		t.Error("IsNull is wrong")
	}
	if n := Lookup(m, "m", "n", "o"); n == nil || n.Value != "deep" {
		t.Errorf("Lookup m.n.o = %v", n)
	}
	if Lookup(m, "a", "x") != nil || Lookup(m, "nope") != nil || Lookup(nil, "a") != nil {
		t.Error("Lookup found what is not there")
	}
	if len(Keys(nil)) != 0 {
		t.Error("Keys(nil) is not empty")
	}
}
