// Package merge layers resolved packages into one set of skills. Skills
// are keyed by their top-level directory; a higher-precedence package's
// skill replaces the whole directory of a lower one, so no file of a losing
// skill survives beside the winner.
package merge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/scratch"
)

// Skill is a skill of the merged set and where it came from.
type Skill struct {
	artifact.SkillRecord
	// From is the package that won the skill's directory.
	From *resolve.Node
}

// Override records a skill directory a package took from a lower one; its
// text names each side's standing, the rule that decided it.
type Override struct {
	Skill  string
	Winner *resolve.Node
	Loser  *resolve.Node
}

func (o Override) String() string {
	return fmt.Sprintf("skill %s: %s (%s) over %s (%s)", o.Skill, o.Winner.Ref, o.Winner.Standing, o.Loser.Ref, o.Loser.Standing)
}

// Result is a merged set of skills.
type Result struct {
	// Skills are sorted by directory.
	Skills []Skill
	// Overrides are in the order they happened.
	Overrides []Override
	// MaxFiles bounds the entries of each layer Materialize extracts; see
	// layers.ReadOptions.
	MaxFiles int
}

// Merge layers the packages of order, lowest precedence first.
func Merge(order []*resolve.Node) *Result {
	winners := map[string]Skill{}
	res := &Result{}
	for _, n := range order {
		for _, rec := range n.Package.Config.Skills {
			if prev, ok := winners[rec.Path]; ok {
				res.Overrides = append(res.Overrides, Override{Skill: rec.Path, Winner: n, Loser: prev.From})
			}
			winners[rec.Path] = Skill{SkillRecord: rec, From: n}
		}
	}
	for _, s := range winners {
		res.Skills = append(res.Skills, s)
	}
	slices.SortFunc(res.Skills, func(a, b Skill) int { return strings.Compare(a.Path, b.Path) })
	return res
}

// stagingPrefix starts the name of the directory Materialize stages the
// skills in, beside dest.
const stagingPrefix = layers.StagingPrefix + "merge-"

// Materialize writes the merged skills into dest, which must not exist or
// be empty. Each contributing package's layer is extracted once, every
// winning skill is checked against the digest its package's config records,
// and dest appears only when all of it is in place.
func (r *Result) Materialize(ctx context.Context, dest string, maxSize int64) error {
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return errdefs.IO(err)
	}
	// The staging directory is locked while this run lives, so the next
	// run beside dest removes it if this one is killed, and only then.
	staging, release, err := scratch.DirIn(parent, stagingPrefix)
	if err != nil {
		return errdefs.IO(fmt.Errorf("stage %s: %w", dest, err))
	}
	defer release()

	out := filepath.Join(staging, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		return errdefs.IO(err)
	}
	extracted := map[*resolve.Node]string{}
	digests := map[*resolve.Node]map[string]digest.Digest{}
	for _, s := range r.Skills {
		dir, ok := extracted[s.From]
		if !ok {
			dir = filepath.Join(staging, fmt.Sprintf("pkg%d", len(extracted)))
			files, err := extractLayer(ctx, s.From, dir, maxSize, r.MaxFiles)
			if err != nil {
				return err
			}
			extracted[s.From], digests[s.From] = dir, layers.SkillDigests(files)
		}
		if got := digests[s.From][s.Path]; got != s.Digest {
			return errdefs.Corrupt(fmt.Errorf("skill %s of %s: its files hash to %s, but the package config records %s", s.Path, s.From.Ref, got, s.Digest))
		}
		if err := os.Rename(filepath.Join(dir, s.Path), filepath.Join(out, s.Path)); err != nil {
			return errdefs.IO(fmt.Errorf("stage skill %s: %w", s.Path, err))
		}
	}
	if err := removeEmptyDir(dest); err != nil {
		return err
	}
	if err := os.Rename(out, dest); err != nil {
		return errdefs.IO(fmt.Errorf("move the skills into %s: %w", dest, err))
	}
	return nil
}

func extractLayer(ctx context.Context, n *resolve.Node, dir string, maxSize int64, maxFiles int) ([]layers.FileDigest, error) {
	layer := n.Package.Skills
	if layer == nil {
		return nil, errdefs.Precondition(fmt.Errorf("%s lists skills but has no skills layer", n.Ref))
	}
	rc, err := n.Package.OpenSkills(ctx, n.Target)
	if err != nil {
		return nil, n.Target.Explain(err)
	}
	defer rc.Close()
	files, err := layers.Extract(rc, dir, layers.ReadOptions{MaxSize: maxSize, MaxFiles: maxFiles, Digest: layer.Digest})
	if err != nil {
		return nil, errdefs.With(layers.Class(err), fmt.Errorf("extract %s (layer %s): %w", n.Ref, layer.Digest, err))
	}
	return files, nil
}

// removeEmptyDir makes way for dest: nothing there, or an empty directory.
// Anything else belongs to someone and stays.
func removeEmptyDir(dest string) error {
	info, err := os.Lstat(dest)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return errdefs.IO(err)
	}
	if !info.IsDir() || os.Remove(dest) != nil {
		return errdefs.Precondition(fmt.Errorf("%s exists and is not an empty directory: stax writes only into a new or empty one", dest))
	}
	return nil
}

// Paths are the directories of the merged skills, in order.
func (r *Result) Paths() []string {
	paths := make([]string, len(r.Skills))
	for i, s := range r.Skills {
		paths[i] = s.Path
	}
	return paths
}

// CaseWarnings names the merged skills whose directory names differ only
// in letter case: on macOS and Windows one would overwrite the other.
func (r *Result) CaseWarnings() []string {
	out := []string{}
	for _, c := range layers.CaseCollisions(r.Paths()) {
		out = append(out, fmt.Sprintf("skills %s and %s differ only in letter case: on macOS and Windows one overwrites the other", c[0], c[1]))
	}
	return out
}

// CaseError is CaseWarnings as one error, for callers that refuse to
// materialize such a set; nil when no names collide.
func (r *Result) CaseError() error {
	warnings := r.CaseWarnings()
	if len(warnings) == 0 {
		return nil
	}
	return errdefs.Precondition(errors.New(strings.Join(warnings, "; ")))
}
