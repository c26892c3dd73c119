package workflow

import (
	"context"

	"github.com/stax-dev/stax/pkg/bump"
	"github.com/stax-dev/stax/pkg/pack"
)

// BumpOptions say which skill Bump raises the version of, and how far.
type BumpOptions struct {
	// Skill is a skill directory, or the name of a skill in SkillsDir.
	// Required.
	Skill string
	// SkillsDir is where a Skill given by name is looked up; empty is the
	// skills directory of the package in the current directory.
	SkillsDir string
	// Part is the part of the version raised; empty is bump.Patch.
	Part bump.Part
	// DryRun says what would change without writing.
	DryRun bool
}

// BumpResult is what Bump changed, or with DryRun would change.
type BumpResult struct {
	*bump.Result
	DryRun bool `json:"dryRun"`
}

// Bump raises the version of a skill's SKILL.md and sets MEMORY.md's to
// the same, with its lastUpdated set to today ($SOURCE_DATE_EPOCH when
// the Env has it).
func Bump(_ context.Context, env *Env, opts BumpOptions) (*BumpResult, error) {
	dir, err := SkillDir(opts.Skill, opts.SkillsDir)
	if err != nil {
		return nil, err
	}
	today, err := pack.SourceDate(env.getenv)
	if err != nil {
		return nil, err
	}
	res, err := bump.Skill(bump.Options{Dir: dir, Part: opts.Part, DryRun: opts.DryRun, Today: today})
	if err != nil {
		return nil, err
	}
	return &BumpResult{Result: res, DryRun: opts.DryRun}, nil
}
