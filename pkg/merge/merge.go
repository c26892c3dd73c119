// Package merge layers resolved packages into one set of skills. Skills
// are keyed by their top-level directory; a higher-precedence package's
// skill replaces the whole directory of a lower one, so no file of a losing
// skill survives beside the winner.
package merge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/stax-dev/stax/internal/inorder"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/hiddentext"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/scratch"
)

// Skill is a skill of the merged set and where it came from.
type Skill struct {
	// SkillRecord is the winning package's record of the skill, in its
	// config: not a copy, a merged set of thousands of skills holds
	// little more than the configs.
	*artifact.SkillRecord
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
		for i := range n.Package.Config.Skills {
			rec := &n.Package.Config.Skills[i]
			if prev, ok := winners[rec.Path]; ok {
				res.Overrides = append(res.Overrides, Override{Skill: rec.Path, Winner: n, Loser: prev.From})
			}
			winners[rec.Path] = Skill{SkillRecord: rec, From: n}
		}
	}
	res.Skills = make([]Skill, 0, len(winners))
	for _, s := range winners {
		res.Skills = append(res.Skills, s)
	}
	slices.SortFunc(res.Skills, func(a, b Skill) int { return strings.Compare(a.Path, b.Path) })
	return res
}

// stagingPrefix starts the name of the directory Materialize stages the
// skills in, beside dest.
const stagingPrefix = layers.StagingPrefix + "merge-"

// Options control Materialize.
type Options struct {
	// MaxSize bounds the uncompressed size of each layer; 0 means
	// layers.DefaultMaxSize, negative no limit.
	MaxSize int64
	// Layers reads the skills layers; nil reads each package's from its
	// Target.
	Layers Layers
	// BeforeCommit, when set, runs once every skill is staged, before dest
	// is touched: an error from it leaves dest as it was.
	BeforeCommit func() error
	// AllowHiddenText extracts skills that hold characters reviewers
	// cannot see (see package hiddentext); without it such a skill fails
	// the materialization as a failed precondition.
	AllowHiddenText bool
	// Concurrency is how many packages' layers are read and extracted at
	// once; 0 is layers.ExtractWorkers().
	Concurrency int
}

// Layers reads the skills layers of packages; Materialize reads several
// at once.
type Layers interface {
	// ReadLayer calls read with the stream of n's skills layer and
	// returns nil only when read did and the stream matched the layer's
	// size and digest, which may be known only once read has returned:
	// what read made of the stream is to be undone on any error.
	ReadLayer(ctx context.Context, n *resolve.Node, read func(io.Reader) error) error
}

// Materialize writes the merged skills into dest, which must not exist or
// be empty. Only the winning skills are extracted, each layer that has
// any is read once (up to opts.Concurrency at once), every one is checked
// against the digest its package's config records, and dest appears only
// when all of it is in place.
func (r *Result) Materialize(ctx context.Context, dest string, opts Options) error {
	read := opts.Layers
	if read == nil {
		read = targetLayers{}
	}
	// Staged beside dest, in a directory the next run removes should this
	// one be killed.
	return scratch.Stage(dest, stagingPrefix, func(out string) error {
		root, err := os.OpenRoot(out)
		if err != nil {
			return errdefs.IO(err)
		}
		defer root.Close()
		ropts := layers.ReadOptions{MaxSize: opts.MaxSize, MaxFiles: r.MaxFiles}
		if !opts.AllowHiddenText {
			ropts.Inspect = hiddentext.LayerGuard
		}
		workers := opts.Concurrency
		if workers < 1 {
			workers = layers.ExtractWorkers()
		}
		// The packages' winners are disjoint directories of root: their
		// layers are extracted at once, and the error is the first
		// package's in order that failed, as one after another.
		byPackage := r.byPackage()
		err = inorder.Concurrently(ctx, len(byPackage), workers, func(ctx context.Context, i int) error {
			return extractWinners(ctx, read, byPackage[i], root, ropts)
		})
		if err != nil {
			return err
		}
		if opts.BeforeCommit != nil {
			return opts.BeforeCommit()
		}
		return nil
	})
}

// winners are the skills one package won.
type winners struct {
	from   *resolve.Node
	skills []Skill
	paths  map[string]bool
}

// byPackage groups the merged skills by the package they come from, in
// the order of their first skill.
func (r *Result) byPackage() []*winners {
	var order []*winners
	index := map[*resolve.Node]*winners{}
	for _, s := range r.Skills {
		w := index[s.From]
		if w == nil {
			w = &winners{from: s.From, paths: map[string]bool{}}
			index[s.From] = w
			order = append(order, w)
		}
		w.skills, w.paths[s.Path] = append(w.skills, s), true
	}
	return order
}

// extractWinners extracts the skills w won from their package's layer into
// root, and checks each against its recorded digest.
func extractWinners(ctx context.Context, read Layers, w *winners, root *os.Root, opts layers.ReadOptions) error {
	n := w.from
	if n.Package.Skills == nil {
		return errdefs.Precondition(fmt.Errorf("%s lists skills but has no skills layer", n.Ref))
	}
	// Entries of a skill's directory; a file at the top of a layer belongs
	// to no skill.
	won := func(h layers.Header) bool {
		top, rest, _ := strings.Cut(h.Path, "/")
		return w.paths[top] && (h.Dir || rest != "")
	}
	// The digest, checked as the layer is read, tells a layer altered
	// since it was pushed from one pushed corrupt.
	opts.Digest = n.Package.Skills.Digest
	var files []layers.FileDigest
	err := read.ReadLayer(ctx, n, func(r io.Reader) error {
		var err error
		files, err = layers.ExtractTo(r, root, opts, won)
		return err
	})
	if err != nil {
		return errdefs.With(layers.Class(err), fmt.Errorf("extract %s (layer %s): %w", n.Ref, n.Package.Skills.Digest, err))
	}
	digests := layers.SkillDigests(files)
	for _, s := range w.skills {
		if got := digests[s.Path]; got != s.Digest {
			return errdefs.Corrupt(fmt.Errorf("skill %s of %s: its files hash to %s, but the package config records %s", s.Path, n.Ref, got, s.Digest))
		}
	}
	return nil
}

// targetLayers reads each package's layer from its Target.
type targetLayers struct{}

func (targetLayers) ReadLayer(ctx context.Context, n *resolve.Node, read func(io.Reader) error) error {
	return resolve.ReadLayer(ctx, n, n.Target, read)
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
