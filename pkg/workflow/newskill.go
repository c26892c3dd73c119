package workflow

import (
	"context"
	"errors"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/scaffold"
)

// NewSkillOptions say what skill NewSkill scaffolds and where.
type NewSkillOptions struct {
	// Name is the skill's name, and its folder's. Required.
	Name string
	// SkillsDir is the skills directory the skill's folder is made in;
	// empty is that of the package in the current directory.
	SkillsDir string
	// Stateful adds MEMORY.md, EXAMPLES.md and CALIBRATION.md; false
	// writes only SKILL.md.
	Stateful bool
}

// NewSkillResult is the skill NewSkill wrote.
type NewSkillResult struct {
	*scaffold.Result
	// SkillsDir is the skills directory it was made in, for the
	// validation a caller suggests next.
	SkillsDir string `json:"-"`
}

// NewSkill scaffolds a skill that validates as it is, dated today
// ($SOURCE_DATE_EPOCH when the Env has it). An existing folder is never
// touched.
func NewSkill(_ context.Context, env *Env, opts NewSkillOptions) (*NewSkillResult, error) {
	dir, err := SkillsDir(opts.SkillsDir)
	if err != nil {
		return nil, err
	}
	today, err := pack.SourceDate(env.getenv)
	if err != nil {
		return nil, err
	}
	res, err := scaffold.Skill(scaffold.Options{SkillsDir: dir, Name: opts.Name, Stateful: opts.Stateful, Today: today})
	switch {
	case errors.Is(err, scaffold.ErrInvalidName), errors.Is(err, scaffold.ErrExists):
		return nil, errdefs.Invalid(err)
	case err != nil:
		return nil, errdefs.MarkLocal(err)
	}
	return &NewSkillResult{Result: res, SkillsDir: dir}, nil
}
