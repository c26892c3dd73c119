package validate

import (
	"fmt"
	"io"
	"path"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/snapshot"
	"github.com/stax-dev/stax/pkg/stateful"
)

// Published is what a previously published package holds, as far as the
// release rule needs it (docs/stateful-skills.md): any change to MEMORY.md,
// EXAMPLES.md or CALIBRATION.md must raise the skill's version.
type Published struct {
	// Name says where the package came from (its reference), for messages.
	Name string
	// Files are the regular files of the skills layer, paths relative to
	// the layer root ("incident-postmortem/MEMORY.md").
	Files []layers.FileDigest
	// Versions maps each skill directory to the version its SKILL.md
	// declares ("" when it declares none).
	Versions map[string]string
}

// ReadPublished reads a skills layer through snapshot.Read, so with every
// check of the safe reader (and the digest check when opts.Digest is set).
// Nothing is extracted.
func ReadPublished(name string, r io.Reader, opts layers.ReadOptions) (*Published, error) {
	snap, err := snapshot.Read(r, opts)
	if err != nil {
		return nil, fmt.Errorf("read published skills of %s: %w", name, err)
	}
	return PublishedFrom(name, snap), nil
}

// PublishedFrom is what the versioning rule needs of a package snapshot.
func PublishedFrom(name string, snap *snapshot.Snapshot) *Published {
	pub := &Published{Name: name, Versions: map[string]string{}}
	for _, dir := range snap.Dirs() {
		s := snap.Skills[dir]
		pub.Versions[dir] = s.Version
		for _, f := range s.Files {
			f.Path = dir + "/" + f.Path
			pub.Files = append(pub.Files, f)
		}
	}
	return pub
}

// CheckAgainst compares each skill of the report with the same skill
// (same directory) in pub. A skill whose MEMORY.md, EXAMPLES.md or
// CALIBRATION.md was added, changed or removed while its version is not
// greater than the published one gets a CodeVersionNotBumped error that
// names the skill and the file and gives the stax bump command that fixes
// it. Skills new since pub are not checked. Valid is updated.
//
// Versions are compared as Semantic Versions; when either cannot be read
// as one, any change of the version text counts as a bump, since stax
// cannot order them.
//
// The error is for a local file that cannot be read to be hashed.
func (r *Report) CheckAgainst(pub *Published) error {
	published := map[string]digest.Digest{}
	for _, f := range pub.Files {
		published[f.Path] = f.Digest
	}
	for i, s := range r.Skills {
		old, ok := pub.Versions[s.Dir]
		if !ok || bumped(s.Version, old) {
			continue
		}
		for _, name := range stateful.Files {
			rel := s.Dir + "/" + name
			before, had := published[rel]
			e, has := r.siblings[rel]
			var change string
			switch {
			case !had && !has:
				continue
			case !had:
				change = "was added"
			case !has:
				change = "was removed"
			default:
				now, err := hashFile(e.Source)
				if err != nil {
					return fmt.Errorf("compare %s with %s: %w", rel, pub.Name, err)
				}
				if now == before {
					continue
				}
				change = "changed"
			}
			file, line := rel, 0
			if !has {
				file = s.Dir + "/" + skill.FileName
				line = r.lines[i].version
			}
			r.Errors = append(r.Errors, Diagnostic{
				File: r.path(file), Line: line, Code: CodeVersionNotBumped,
				Message: fmt.Sprintf("skill %s: %s %s since %s, but the skill's version %s is not greater than the published %s; "+
					"a change to %s needs at least a patch bump: run stax bump %s",
					s.Dir, name, change, pub.Name, versionText(s.Version), versionText(old), name, r.path(s.Dir)),
			})
		}
	}
	sortDiagnostics(r.Errors)
	r.Valid = len(r.Errors) == 0
	return nil
}

// path is the path the user would open for rel, as the validator names it.
func (r *Report) path(rel string) string {
	return r.opts.diskPath(path.Clean(rel))
}

// bumped reports whether version now is greater than version before.
func bumped(now, before string) bool {
	a, errA := semver.Parse(now)
	b, errB := semver.Parse(before)
	if errA != nil || errB != nil {
		return now != before && now != ""
	}
	return semver.Compare(a, b) > 0
}

func versionText(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

func hashFile(name string) (digest.Digest, error) {
	f, err := regularfile.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return digest.SHA256.FromReader(f)
}
