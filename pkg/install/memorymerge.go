package install

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/bump"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/stateful"
)

// MergedFile is a file of an installed skill that the user had changed
// and an install merged with the new version's.
type MergedFile struct {
	Skill string `json:"skill"`
	File  string `json:"file"`
	// Kept is how many of the user's entries the merged file kept.
	Kept int `json:"kept"`
	// Fields are the frontmatter fields of the user's that the merged
	// file kept: in place of the new version's value, which had not
	// changed, or added, which it lacked.
	Fields []string `json:"fields,omitempty"`
}

// memoryMerge is a skill whose MEMORY.md an install merges: how it
// differs from the record, and the base of the merge of its frontmatter
// the record holds (nil, not known, in a record of an older stax).
type memoryMerge struct {
	drift Drift
	base  stateful.FieldBase
}

// mergeable reports whether a skill that differs from its record as d
// is one an install merges: only its MEMORY.md changed. The format asks
// users to add to MEMORY.md; every other change (EXAMPLES.md included,
// whose blocks carry no author or date to tell whose they are) stays the
// user's to settle.
func mergeable(d *Drift) bool {
	return !d.Missing && len(d.Added) == 0 && len(d.Removed) == 0 &&
		len(d.Changed) == 1 && d.Changed[0] == stateful.MemoryFile
}

// Refused reports whether a job takes a skill that differs from its
// record as d for the user's change, as compared decides: refused without
// --force, and moved to a backup with it. A skill that is gone is written
// again, or its removal done; one whose MEMORY.md alone changed is merged
// when a version of it is installed without --force (merging), and the
// user's otherwise.
func (d Drift) Refused(merging bool) bool {
	return !d.Missing && !(merging && mergeable(&d))
}

// Compared is how an install takes the skill name of its record, s, that
// the folder holds as d (nil: as recorded) when it writes the skill again
// or removes it (rewritten): one whose MEMORY.md holds the user's entries,
// merged into the package's by an update, is then a change of the user's
// to that file, though the folder holds it as recorded.
func (s *InstalledSkill) Compared(name string, d *Drift, rewritten bool) *Drift {
	if d == nil && rewritten && s.Memory.merged() {
		return &Drift{Skill: name, Added: []string{}, Removed: []string{}, Changed: []string{stateful.MemoryFile}, Merged: true}
	}
	return d
}

// memoryMerger merges, for the skills of plan.merges, the user's
// MEMORY.md in the folder into the one staged from the new version.
type memoryMerger struct{ p *pending }

func (m memoryMerger) wants(sk *staged) bool {
	_, ok := m.p.merges[sk.skill.Path]
	return ok
}

// merge runs once all of sk is staged in root. The merged file replaces
// the staged one, and its digest is what the record keeps, so verify
// --installed agrees with it. A merge that cannot complete (a conflict, a
// broken file on either side, a new version without MEMORY.md) fails the
// install before anything in the folder changed.
func (m memoryMerger) merge(sk *staged, root *os.Root) error {
	p, name := m.p, sk.skill.Path
	refuse := func() error {
		return errdefs.Precondition(&ModifiedError{Dir: p.opts.Dir, Skills: []Drift{p.merges[name].drift}})
	}
	if _, ok := sk.files[stateful.MemoryFile]; !ok {
		return refuse() // the new version has no MEMORY.md to keep the entries in
	}
	localPath := filepath.Join(name, stateful.MemoryFile)
	if info, err := p.folder.Lstat(localPath); err != nil || !info.Mode().IsRegular() {
		return refuse()
	}
	local, err := readSibling(p.folder, localPath)
	if err != nil {
		return err
	}
	upstream, err := readSibling(root, stateful.MemoryFile)
	if err != nil {
		return err
	}
	localName := filepath.Join(p.opts.Dir, localPath)
	merged, err := stateful.MergeMemory(
		stateful.MemorySide{Name: localName, Data: local},
		stateful.MemorySide{Name: stateful.MemoryFile + " of " + sk.skill.Package, Data: upstream},
		p.merges[name].base)
	if err != nil {
		return errdefs.Precondition(fmt.Errorf("merge your %s into skill %s's new version: %w", stateful.MemoryFile, name, err))
	}
	version := sk.version
	if version == "" {
		version = merged.Version
	}
	text := merged.Text
	if version != "" && merged.LastUpdated != "" {
		if text, err = bump.SetMemoryVersion(localName, text, version, merged.LastUpdated); err != nil {
			return errdefs.Precondition(fmt.Errorf("merge your %s into skill %s's new version: %w", stateful.MemoryFile, name, err))
		}
	}
	if int64(len(text)) > stateful.MaxFileSize {
		return errdefs.Precondition(fmt.Errorf("%s merged with skill %s's new version would be over the limit of %d bytes that render and the MCP server read of it; move old entries out of it, then install again",
			localName, name, stateful.MaxFileSize))
	}
	f, err := root.OpenFile(stateful.MemoryFile, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return errdefs.MarkLocal(err)
	}
	defer f.Close()
	if _, err := f.Write(text); err != nil {
		return errdefs.MarkLocal(err)
	}
	info, err := f.Stat()
	if err != nil {
		return errdefs.MarkLocal(err)
	}
	if len(merged.Kept)+len(merged.Fields) > 0 {
		if sk.memory == nil {
			sk.memory = &InstalledMemory{Fields: stateful.FieldDigests(upstream)}
		}
		sk.memory.Merged = true
	}
	sum := sha256.Sum256(text)
	sk.files[stateful.MemoryFile] = fileEntry(info.Mode(), digest.NewDigestFromBytes(digest.SHA256, sum[:]))
	sk.stat[stateful.MemoryFile] = statKey(info)
	p.result.Merged = append(p.result.Merged, MergedFile{Skill: name, File: stateful.MemoryFile, Kept: len(merged.Kept), Fields: merged.Fields})
	return errdefs.MarkLocal(f.Close())
}

// readSibling reads a stateful file of a skill, at most the size render
// reads of one.
func readSibling(in *os.Root, name string) ([]byte, error) {
	f, err := in.Open(name)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	defer f.Close()
	data, err := regularfile.ReadAll(f, name, stateful.MaxFileSize)
	if err != nil {
		return nil, errdefs.Precondition(err)
	}
	return data, nil
}
