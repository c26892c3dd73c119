package stateful

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/stax-dev/stax/pkg/skill"
)

// installSets are the frontmatter fields the install sets in a merged
// file (see MemoryMerge.LastUpdated and Version), whatever either side
// says.
var installSets = map[string]bool{FieldVersion: true, FieldLastUpdated: true}

// keptField is a frontmatter field of the local file that the upstream one
// lacks: its name and its lines, as the local file has them.
type keptField struct {
	name, text string
}

// mergeFields merges the frontmatter fields of two parsed sides, as
// MergeMemory merges entries: a field only the local side has is the
// user's and is kept; a field both have with the same value is upstream's;
// a field both have with other values is a conflict, since which side
// changed it cannot be told and neither may be lost. version and
// lastUpdated are the install's to set.
func mergeFields(local, upstream MemorySide, lm, um *Memory) ([]keptField, *MergeError) {
	pairs := lm.fields.Node().Content
	theirs := skill.Keys(um.fields.Node())
	lines := strings.SplitAfter(string(local.Data), "\n")
	var kept []keptField
	for i := 0; i+1 < len(pairs); i += 2 {
		k, v := pairs[i], skill.Resolve(pairs[i+1])
		name, line := k.Value, lm.fields.Line(k.Value)
		if k.Kind != yaml.ScalarNode || line == 0 {
			return nil, &MergeError{File: local.Name, Line: k.Line + 1, Message: "a frontmatter field whose name is not text cannot be matched to the new version's; name it with text, then install again"}
		}
		if installSets[name] {
			continue
		}
		if u, ok := theirs[name]; ok {
			if !sameValue(v, u) {
				return nil, &MergeError{File: local.Name, Line: line, Message: fmt.Sprintf(
					"the frontmatter field %s is %s here and %s in %s: stax cannot tell which side changed it; make yours the same as the new one, or install with --force to take the new file (yours is moved to a backup)",
					name, describeValue(v), describeValue(u), upstream.Name)}
			}
			continue
		}
		// A field's lines run from its name to the next field's, or to the
		// closing --- of the block.
		end := lm.bodyLine - 1
		if i+2 < len(pairs) {
			end = pairs[i+2].Line + 1
		}
		if end <= line || lm.fields.Node().Style&yaml.FlowStyle != 0 {
			return nil, &MergeError{File: local.Name, Line: line, Message: fmt.Sprintf(
				"the frontmatter field %s, which the new version lacks, shares its line with another field: write the frontmatter one field per line, then install again", name)}
		}
		text := strings.TrimRight(strings.Join(lines[line-1:end-1], ""), " \t\r\n")
		kept = append(kept, keptField{name: name, text: text})
	}
	if len(kept) > 0 && um.fields.Node().Style&yaml.FlowStyle != 0 {
		return nil, &MergeError{File: upstream.Name, Line: um.bodyLine - 2, Upstream: true, Message: fmt.Sprintf(
			"the new version's frontmatter is one flow mapping ({...}), to which your field %s cannot be added; install with --force to take the new file (yours is moved to a backup), then add it again", kept[0].name)}
	}
	return kept, nil
}

// checkKept parses the merged text and checks that its frontmatter holds
// every field of upstream's and every kept field with the values they had:
// a field whose lines did not carry over as they read in the local file
// (an indentation the new block reads otherwise) is a conflict, not a loss.
func checkKept(local MemorySide, merged []byte, lm, um *Memory, kept []keptField) *MergeError {
	if len(kept) == 0 {
		return nil
	}
	m := ParseMemory(merged)
	got := map[string]*yaml.Node{}
	if m.fields != nil {
		got = skill.Keys(m.fields.Node())
	}
	want := skill.Keys(um.fields.Node())
	mine := skill.Keys(lm.fields.Node())
	for _, f := range kept {
		want[f.name] = mine[f.name]
	}
	for name, v := range want {
		if g, ok := got[name]; !ok || !sameValue(g, v) {
			return &MergeError{File: local.Name, Line: max(lm.fields.Line(name), 1), Message: fmt.Sprintf(
				"the frontmatter field %s does not read the same once added to the new version's frontmatter; write it on lines of its own, as name: value, then install again", name)}
		}
	}
	return nil
}

// sameValue reports whether two YAML values decode to the same data:
// "7" and 7 differ, 7 written twice does not.
func sameValue(a, b *yaml.Node) bool {
	var x, y any
	if a.Decode(&x) != nil || b.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// describeValue is a value in a message: a scalar quoted (and so escaped),
// anything else by its kind.
func describeValue(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%q", n.Value)
	}
	return skill.Describe(n)
}
