package stateful

import (
	"crypto/sha256"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	"go.yaml.in/yaml/v3"

	"github.com/stax-dev/stax/pkg/skill"
)

// installSets are the frontmatter fields the install sets in a merged
// file (see MemoryMerge.LastUpdated and Version), whatever either side
// says.
var installSets = map[string]bool{FieldVersion: true, FieldLastUpdated: true}

// FieldBase is what an install knew of the frontmatter of the MEMORY.md it
// wrote as the package brought it: the digest of each field's value, by
// name, but for those the install sets (see FieldDigests). It is the base
// of a three-way merge of the fields: it tells which side changed one.
// nil is a base not known (a record an older stax wrote).
type FieldBase map[string]digest.Digest

// FieldDigests is the FieldBase of data, a MEMORY.md as its package brings
// it; nil when its frontmatter does not parse. A value that cannot be
// decoded has no digest, so a later merge counts it as changed on both
// sides: a conflict, never a loss.
func FieldDigests(data []byte) FieldBase {
	m := ParseMemory(data)
	if m.fields == nil {
		return nil
	}
	out := FieldBase{}
	for name, v := range skill.Keys(m.fields.Node()) {
		if d, ok := valueDigest(v); ok && !installSets[name] {
			out[name] = d
		}
	}
	return out
}

// keptField is a frontmatter field of the local file kept in the merged
// one: its name, its lines as the local file has them, and the upstream
// lines [from, to) they replace; from is 0 for a field upstream lacks,
// added at the end of its frontmatter.
type keptField struct {
	name, text string
	from, to   int
}

// mergeFields merges the frontmatter fields of two parsed sides against
// base, field by field, as git merges lines: a field the user did not
// change (local's value is base's) is upstream's, removed when upstream
// removed it; one the user changed and upstream did not is the user's; one
// only the local side has, or that upstream removed but the user changed,
// is kept; one both changed to other values is a conflict, since neither
// may be lost. Without a base, every local value counts as the user's.
// version and lastUpdated are the install's to set.
func mergeFields(local, upstream MemorySide, lm, um *Memory, base FieldBase) ([]keptField, *MergeError) {
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
		u, theyHave := theirs[name]
		if theyHave && sameValue(v, u) {
			continue
		}
		was, inBase := base[name]
		if inBase && hasDigest(v, was) {
			continue // the user's is as installed: upstream's value, or its removal, counts
		}
		f := keptField{name: name}
		if theyHave {
			if !inBase || !hasDigest(u, was) {
				return nil, fieldConflict(local, upstream, name, line, v, u, base == nil)
			}
			// Changed by the user alone: the user's lines replace upstream's.
			var err *MergeError
			if f.from, f.to, err = fieldLines(upstream, um, name); err != nil {
				return nil, err
			}
		}
		// A field's lines run from its name to the next field's, or to the
		// closing --- of the block.
		end := lm.bodyLine - 1
		if i+2 < len(pairs) {
			end = pairs[i+2].Line + 1
		}
		if end <= line || lm.fields.Node().Style&yaml.FlowStyle != 0 {
			return nil, &MergeError{File: local.Name, Line: line, Message: fmt.Sprintf(
				"the frontmatter field %s, which is yours to keep, shares its line with another field: write the frontmatter one field per line, then install again", name)}
		}
		f.text = strings.TrimRight(strings.Join(lines[line-1:end-1], ""), " \t\r\n")
		kept = append(kept, f)
	}
	if i := slices.IndexFunc(kept, func(f keptField) bool { return f.from == 0 }); i >= 0 && um.fields.Node().Style&yaml.FlowStyle != 0 {
		return nil, &MergeError{File: upstream.Name, Line: um.bodyLine - 2, Upstream: true, Message: fmt.Sprintf(
			"the new version's frontmatter is one flow mapping ({...}), to which your field %s cannot be added; install with --force to take the new file (yours is moved to a backup), then add it again", kept[i].name)}
	}
	return kept, nil
}

// fieldConflict is a field both sides changed to other values; noBase
// says the base is not known, and what settles that.
func fieldConflict(local, upstream MemorySide, name string, line int, mine, theirs *yaml.Node, noBase bool) *MergeError {
	why := "both your copy and the new version changed it since it was installed"
	if noBase {
		why = "stax cannot tell which side changed it, as the install record, written by an older stax, does not hold the frontmatter it installed"
	}
	return &MergeError{File: local.Name, Line: line, Message: fmt.Sprintf(
		"the frontmatter field %s is %s here and %s in %s: %s; make yours the same as the new one (take its value), or install with --force to take the new file (yours is moved to a backup)",
		name, describeValue(mine), describeValue(theirs), upstream.Name, why)}
}

// fieldLines are the lines [from, to) of upstream's field name: from its
// name to the next field's, or to the closing --- of the block.
func fieldLines(upstream MemorySide, um *Memory, name string) (from, to int, err *MergeError) {
	pairs := um.fields.Node().Content
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i].Kind != yaml.ScalarNode || pairs[i].Value != name {
			continue
		}
		from, to = um.fields.Line(name), um.bodyLine-1
		if i+2 < len(pairs) {
			to = pairs[i+2].Line + 1
		}
		if from == 0 || to <= from || um.fields.Node().Style&yaml.FlowStyle != 0 {
			break
		}
		return from, to, nil
	}
	return 0, 0, &MergeError{File: upstream.Name, Line: max(um.fields.Line(name), 1), Upstream: true, Message: fmt.Sprintf(
		"the new version's frontmatter field %s shares its line with another field, so your value of it cannot replace its own; install with --force to take the new file (yours is moved to a backup), then set it again", name)}
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

// hasDigest reports whether n's value has the digest d (see valueDigest).
func hasDigest(n *yaml.Node, d digest.Digest) bool {
	got, ok := valueDigest(n)
	return ok && got == d
}

// valueDigest is the digest of the data n decodes to, written in a form
// of its own that sameValue's notion of equal values maps to equal bytes:
// each value with its type, mapping keys sorted. It is kept in install
// records, so the form does not change.
func valueDigest(n *yaml.Node) (digest.Digest, bool) {
	var v any
	if n.Decode(&v) != nil {
		return "", false
	}
	var b strings.Builder
	if !writeValue(&b, v) {
		return "", false
	}
	sum := sha256.Sum256([]byte(b.String()))
	return digest.NewDigestFromBytes(digest.SHA256, sum[:]), true
}

// writeValue writes v, a value yaml decodes into an any, as valueDigest
// hashes it; false for a type yaml does not decode to.
func writeValue(b *strings.Builder, v any) bool {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int:
		b.WriteString("int " + strconv.Itoa(v))
	case int64:
		b.WriteString("int " + strconv.FormatInt(v, 10))
	case uint64:
		b.WriteString("int " + strconv.FormatUint(v, 10))
	case float64:
		if math.IsNaN(v) {
			return false // never equal to itself
		}
		b.WriteString("float " + strconv.FormatFloat(v, 'g', -1, 64))
	case string:
		b.WriteString("string " + strconv.Quote(v))
	case time.Time:
		b.WriteString("time " + v.Format(time.RFC3339Nano))
	case []any:
		b.WriteString("[")
		for _, e := range v {
			if !writeValue(b, e) {
				return false
			}
			b.WriteString(",")
		}
		b.WriteString("]")
	case map[string]any:
		m := make(map[any]any, len(v))
		for k, e := range v {
			m[k] = e
		}
		return writeMap(b, m)
	case map[any]any:
		return writeMap(b, v)
	default:
		return false
	}
	return true
}

// writeMap writes a mapping as writeValue does: its entries in the order
// of their keys as written.
func writeMap(b *strings.Builder, m map[any]any) bool {
	entries := make([][2]string, 0, len(m))
	for k, v := range m {
		var kb, vb strings.Builder
		if !writeValue(&kb, k) || !writeValue(&vb, v) {
			return false
		}
		entries = append(entries, [2]string{kb.String(), vb.String()})
	}
	slices.SortFunc(entries, func(x, y [2]string) int { return strings.Compare(x[0], y[0]) })
	b.WriteString("{")
	for _, e := range entries {
		b.WriteString(e[0] + ":" + e[1] + ",")
	}
	b.WriteString("}")
	return true
}

// describeValue is a value in a message: a scalar quoted (and so escaped),
// anything else by its kind.
func describeValue(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%q", n.Value)
	}
	return skill.Describe(n)
}
