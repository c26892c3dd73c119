package diff

import (
	"errors"
	"reflect"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/snapshot"
)

func TestFields(t *testing.T) {
	tests := []struct {
		name string
		a, b map[string]any
		want []FieldChange
	}{
		{"both nil", nil, nil, []FieldChange{}},
		{"equal lists", map[string]any{"tags": []any{"a", "b"}}, map[string]any{"tags": []any{"a", "b"}}, []FieldChange{}},
		{"list reordered", map[string]any{"tags": []any{"a", "b"}}, map[string]any{"tags": []any{"b", "a"}},
			[]FieldChange{{Field: "tags", Change: Changed, Old: []any{"a", "b"}, New: []any{"b", "a"}}}},
		{"from nothing", nil, map[string]any{"name": "x"},
			[]FieldChange{{Field: "name", Change: Added, New: "x"}}},
		{"null added is still added", map[string]any{}, map[string]any{"model": nil},
			[]FieldChange{{Field: "model", Change: Added}}},
		{"nested keys by path, sorted",
			map[string]any{"metadata": map[string]any{"owner": "a", "tier": 1, "gone": true}, "z": 1},
			map[string]any{"metadata": map[string]any{"owner": "b", "tier": 1, "new": "n"}, "a": 2},
			[]FieldChange{
				{Field: "a", Change: Added, New: 2},
				{Field: "metadata.gone", Change: Removed, Old: true},
				{Field: "metadata.new", Change: Added, New: "n"},
				{Field: "metadata.owner", Change: Changed, Old: "a", New: "b"},
				{Field: "z", Change: Removed, Old: 1},
			}},
		{"mapping becomes a scalar",
			map[string]any{"metadata": map[string]any{"v": "1"}}, map[string]any{"metadata": "none"},
			[]FieldChange{{Field: "metadata", Change: Changed, Old: map[string]any{"v": "1"}, New: "none"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Fields(tt.a, tt.b); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Fields =\n %#v\nwant\n %#v", got, tt.want)
			}
		})
	}
}

func file(path, content string, exec bool) layers.FileDigest {
	return layers.FileDigest{Path: path, Executable: exec, Digest: digest.FromString(content)}
}

func TestCompareDoesNotGuessAtUnparsableFrontmatter(t *testing.T) {
	a := &snapshot.Snapshot{Skills: map[string]*snapshot.Skill{"s": {
		Dir: "s", Files: []layers.FileDigest{file("SKILL.md", "good", false)},
		Frontmatter: map[string]any{"name": "s", "description": "d"},
	}}}
	b := &snapshot.Snapshot{Skills: map[string]*snapshot.Skill{"s": {
		Dir: "s", Files: []layers.FileDigest{file("SKILL.md", "bad", false)},
		FrontmatterErr: errors.New("line 2: mapping values are not allowed"),
	}}}
	res := Compare(a, b)
	if res.Identical() || len(res.Changed) != 1 {
		t.Fatalf("result = %+v", res)
	}
	// Not "name removed, description removed": the file is what changed.
	if c := res.Changed[0]; len(c.Frontmatter) != 0 || len(c.Files.Changed) != 1 || len(res.Notices) != 1 {
		t.Errorf("change = %+v, notices %q", c, res.Notices)
	}
}

func TestCompareFilesMerge(t *testing.T) {
	a := []layers.FileDigest{file("a", "1", false), file("b", "1", false), file("c", "1", true), file("e", "1", false)}
	b := []layers.FileDigest{file("b", "2", false), file("c", "1", false), file("d", "1", false), file("e", "1", false)}
	got := compareFiles(a, b)
	want := FileChanges{
		Added:   []string{"d"},
		Removed: []string{"a"},
		Changed: []FileChange{
			{Path: "b", OldDigest: digest.FromString("1"), NewDigest: digest.FromString("2"), OldMode: "644", NewMode: "644"},
			{Path: "c", OldDigest: digest.FromString("1"), NewDigest: digest.FromString("1"), OldMode: "755", NewMode: "644"},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("compareFiles =\n %+v\nwant\n %+v", got, want)
	}
	if !got.Changed[0].ContentChanged() || got.Changed[0].ModeChanged() || got.Changed[1].ContentChanged() || !got.Changed[1].ModeChanged() {
		t.Errorf("content/mode flags wrong: %+v", got.Changed)
	}
}
