// Package merge layers resolved packages into one set of skills. Skills
// are keyed by their top-level directory; a higher-precedence package's
// skill replaces the whole directory of a lower one, so no file of a losing
// skill survives beside the winner.
package merge

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/resolve"
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
