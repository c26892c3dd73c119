// Package diff compares the skills of two packages: which skills one has
// and the other lacks, and within a skill both have, which files differ
// (by content digest and execute bit) and which frontmatter fields.
//
// Skills are matched by their top-level directory, the key merges and
// installs use, so a renamed directory is one skill removed and one added.
package diff

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/snapshot"
)

// Result is what differs from A to B. Slices are empty, never nil, so
// that their JSON is [] rather than null.
type Result struct {
	// Added are the skill directories only B has, sorted.
	Added []string `json:"added"`
	// Removed are the skill directories only A has, sorted.
	Removed []string `json:"removed"`
	// Changed are the skills both have with different files, sorted.
	Changed []SkillChange `json:"changed"`
	// Notices say what could not be compared, such as a SKILL.md whose
	// frontmatter does not parse.
	Notices []string `json:"notices"`
}

// Identical reports whether A and B hold the same skills, file for file.
func (r *Result) Identical() bool {
	return len(r.Added) == 0 && len(r.Removed) == 0 && len(r.Changed) == 0
}

// SkillChange is a skill whose files differ between A and B.
type SkillChange struct {
	Skill string `json:"skill"`
	// OldDigest and NewDigest are the skill's digests in A and B, as a
	// package config records them.
	OldDigest   digest.Digest `json:"oldDigest"`
	NewDigest   digest.Digest `json:"newDigest"`
	Files       FileChanges   `json:"files"`
	Frontmatter []FieldChange `json:"frontmatter"`
}

// FileChanges are the files of a skill that differ, with paths relative
// to the skill directory, each list sorted by path.
type FileChanges struct {
	Added   []string     `json:"added"`
	Removed []string     `json:"removed"`
	Changed []FileChange `json:"changed"`
}

// FileChange is a file both sides have with different content, a
// different execute bit, or both.
type FileChange struct {
	Path      string        `json:"path"`
	OldDigest digest.Digest `json:"oldDigest"`
	NewDigest digest.Digest `json:"newDigest"`
	// OldMode and NewMode are "644" or "755", as in the skill digest:
	// the execute bit is the only permission a layer keeps.
	OldMode string `json:"oldMode"`
	NewMode string `json:"newMode"`
}

// ContentChanged reports whether the bytes of the file differ.
func (c FileChange) ContentChanged() bool { return c.OldDigest != c.NewDigest }

// ModeChanged reports whether the execute bit differs.
func (c FileChange) ModeChanged() bool { return c.OldMode != c.NewMode }

// Change is how a field differs.
type Change string

const (
	Added   Change = "added"
	Removed Change = "removed"
	Changed Change = "changed"
)

// FieldChange is a frontmatter (or metadata) field that differs. Old is
// nil for an added field and New for a removed one; Change tells those
// apart from a field whose value is null.
type FieldChange struct {
	// Field is the field's name; a field inside a mapping both sides have
	// is named by its path, such as metadata.version.
	Field  string `json:"field"`
	Change Change `json:"change"`
	Old    any    `json:"old"`
	New    any    `json:"new"`
}

// Compare returns what differs from a to b.
func Compare(a, b *snapshot.Snapshot) *Result {
	res := &Result{Added: []string{}, Removed: []string{}, Changed: []SkillChange{}, Notices: []string{}}
	dirs := slices.Sorted(maps.Keys(a.Skills))
	for dir := range b.Skills {
		if _, ok := a.Skills[dir]; !ok {
			dirs = append(dirs, dir)
		}
	}
	slices.Sort(dirs)
	for _, dir := range dirs {
		sa, sb := a.Skills[dir], b.Skills[dir]
		switch {
		case sa == nil:
			res.Added = append(res.Added, dir)
		case sb == nil:
			res.Removed = append(res.Removed, dir)
		default:
			files := compareFiles(sa.Files, sb.Files)
			if len(files.Added)+len(files.Removed)+len(files.Changed) == 0 {
				continue
			}
			change := SkillChange{Skill: dir, OldDigest: sa.Digest(), NewDigest: sb.Digest(), Files: files, Frontmatter: []FieldChange{}}
			if notice := frontmatterNotice(dir, sa, sb); notice != "" {
				// Field by field would report every field of the side that
				// parses as added or removed, which is not what changed.
				res.Notices = append(res.Notices, notice)
			} else {
				change.Frontmatter = Fields(sa.Frontmatter, sb.Frontmatter)
			}
			res.Changed = append(res.Changed, change)
		}
	}
	return res
}

func frontmatterNotice(dir string, a, b *snapshot.Skill) string {
	switch {
	case a.FrontmatterErr != nil:
		return fmt.Sprintf("skill %s: frontmatter not compared: in A it does not parse: %v", dir, a.FrontmatterErr)
	case b.FrontmatterErr != nil:
		return fmt.Sprintf("skill %s: frontmatter not compared: in B it does not parse: %v", dir, b.FrontmatterErr)
	}
	return ""
}

// compareFiles merges two file lists sorted by path.
func compareFiles(a, b []layers.FileDigest) FileChanges {
	out := FileChanges{Added: []string{}, Removed: []string{}, Changed: []FileChange{}}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i].Path < b[j].Path):
			out.Removed = append(out.Removed, a[i].Path)
			i++
		case i == len(a) || b[j].Path < a[i].Path:
			out.Added = append(out.Added, b[j].Path)
			j++
		default:
			if a[i].Digest != b[j].Digest || a[i].Executable != b[j].Executable {
				out.Changed = append(out.Changed, FileChange{
					Path:      a[i].Path,
					OldDigest: a[i].Digest, NewDigest: b[j].Digest,
					OldMode: a[i].Mode(), NewMode: b[j].Mode(),
				})
			}
			i++
			j++
		}
	}
	return out
}

// Fields compares two mappings, as skill.Frontmatter.Fields returns them,
// key by key, descending into mappings both sides have so that a change
// deep inside one (metadata.version) is named rather than the whole
// mapping shown twice. A nil mapping has no fields. The changes are
// sorted by field.
func Fields(a, b map[string]any) []FieldChange {
	out := []FieldChange{}
	fields(&out, "", a, b)
	slices.SortFunc(out, func(x, y FieldChange) int { return cmp.Compare(x.Field, y.Field) })
	return out
}

func fields(out *[]FieldChange, prefix string, a, b map[string]any) {
	for k, va := range a {
		if _, ok := b[k]; !ok {
			*out = append(*out, FieldChange{Field: prefix + k, Change: Removed, Old: va})
		}
	}
	for k, vb := range b {
		va, ok := a[k]
		switch {
		case !ok:
			*out = append(*out, FieldChange{Field: prefix + k, Change: Added, New: vb})
		case reflect.DeepEqual(va, vb):
		default:
			ma, aMap := va.(map[string]any)
			mb, bMap := vb.(map[string]any)
			if aMap && bMap {
				fields(out, prefix+k+".", ma, mb)
				continue
			}
			*out = append(*out, FieldChange{Field: prefix + k, Change: Changed, Old: va, New: vb})
		}
	}
}
