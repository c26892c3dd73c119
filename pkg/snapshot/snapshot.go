// Package snapshot reads what a package's skills hold: every file of each
// skill with its content digest and execute bit, and the frontmatter of
// each SKILL.md. It reads the skills layer as a stream through the safe
// layer reader, never extracting it, so it serves commands that look at a
// package (inspect) or compare two (diff) without touching the disk.
package snapshot

import (
	"bytes"
	"crypto/sha256"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

// maxFrontmatterRead bounds how much of a SKILL.md is kept in memory to
// find its frontmatter: the frontmatter sits at the top, and a layer may
// come from a hostile registry.
const maxFrontmatterRead = 1 << 20

// Snapshot is the content of a skills layer.
type Snapshot struct {
	// Skills are keyed by their top-level directory, the key installs and
	// merges use. Files at the top of the layer belong to no skill and are
	// left out, as layers.SkillDigests leaves them out.
	Skills map[string]*Skill
}

// Skill is one top-level directory of a skills layer.
type Skill struct {
	// Dir is the skill's top-level directory in the layer.
	Dir string
	// Files are sorted by path, relative to Dir.
	Files []layers.FileDigest
	// Frontmatter is the SKILL.md frontmatter as skill.Frontmatter.Fields
	// gives it; nil when the skill has no SKILL.md or it does not parse.
	Frontmatter map[string]any
	// FrontmatterErr says why a SKILL.md that is there has no Frontmatter.
	FrontmatterErr error
	// Version is the skill's version as written (top-level version, else
	// metadata.version); "" when it declares none.
	Version string
	// Stateful summarizes the skill's MEMORY.md, EXAMPLES.md and
	// CALIBRATION.md.
	Stateful stateful.Summary
}

// Digest is the skill's layers.TreeDigest, the digest a package config
// records for it.
func (s *Skill) Digest() digest.Digest { return layers.TreeDigest(s.Files) }

// Dirs returns the skill directories, sorted.
func (s *Snapshot) Dirs() []string {
	return slices.Sorted(maps.Keys(s.Skills))
}

// Empty is the snapshot of a package without a skills layer.
func Empty() *Snapshot { return &Snapshot{Skills: map[string]*Skill{}} }

// Read walks the tar+gzip skills layer r once, with the checks and limits
// of layers.Walk (opts.Digest, when set, is verified at the end), hashing
// every file and parsing each skill's SKILL.md. Its errors are those of
// layers.Walk, which wraps any error reading r.
func Read(r io.Reader, opts layers.ReadOptions) (*Snapshot, error) {
	snap := Empty()
	siblings := stateful.NewCollector()
	err := layers.Walk(r, opts, func(h layers.Header, content io.Reader) error {
		if h.Dir {
			return nil
		}
		dir, rel, inSkill := strings.Cut(h.Path, "/")
		isSkillFile := inSkill && rel == skill.FileName
		hash := sha256.New()
		var head bytes.Buffer
		w := io.Writer(hash)
		switch {
		case isSkillFile:
			w = io.MultiWriter(hash, &limitedBuffer{buf: &head, max: maxFrontmatterRead})
		case stateful.Wants(h.Path):
			// One byte past the limit, so the collector can refuse it.
			w = io.MultiWriter(hash, &limitedBuffer{buf: &head, max: stateful.MaxFileSize + 1})
		}
		if _, err := io.Copy(w, content); err != nil {
			return err
		}
		if stateful.Wants(h.Path) {
			if err := siblings.Add(h.Path, &head); err != nil {
				return err
			}
		}
		// Walk refuses a file at the top of the layer: every file is inside a skill.
		s := snap.Skills[dir]
		if s == nil {
			s = &Skill{Dir: dir}
			snap.Skills[dir] = s
		}
		s.Files = append(s.Files, layers.FileDigest{
			Path: rel, Executable: h.Executable, Size: h.Size, Digest: digest.NewDigest(digest.SHA256, hash),
		})
		if isSkillFile {
			s.Frontmatter, s.Version, s.FrontmatterErr = frontmatter(head.Bytes())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for dir, s := range snap.Skills {
		s.Stateful = siblings.Set(dir).Summary()
		// Layers from other writers need not be sorted.
		slices.SortFunc(s.Files, func(a, b layers.FileDigest) int { return strings.Compare(a.Path, b.Path) })
	}
	return snap, nil
}

func frontmatter(data []byte) (map[string]any, string, error) {
	doc, err := skill.Parse(data)
	if err != nil {
		return nil, "", err
	}
	fields, err := doc.Frontmatter.Fields()
	return fields, doc.Frontmatter.Version, err
}

// limitedBuffer keeps the first max bytes written and discards the rest.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// Records are the skill records of the snapshot, sorted by directory, for
// a package whose config lists none (as other stax writers' configs do):
// each is named by its SKILL.md frontmatter, else by its directory.
func (s *Snapshot) Records() []artifact.SkillRecord {
	records := make([]artifact.SkillRecord, 0, len(s.Skills))
	for _, dir := range s.Dirs() {
		sk := s.Skills[dir]
		rec := artifact.SkillRecord{Name: dir, Path: dir, Digest: sk.Digest()}
		if name, ok := sk.Frontmatter["name"].(string); ok {
			rec.Name = name
		}
		if desc, ok := sk.Frontmatter["description"].(string); ok {
			rec.Description = desc
		}
		records = append(records, rec)
	}
	return records
}
