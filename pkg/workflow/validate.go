package workflow

import (
	"context"
	"os"
	"path/filepath"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/bumprule"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/validate"
)

// ValidateOptions say what Validate checks.
type ValidateOptions struct {
	// Dir is a package directory (with stax.yaml), a bare skills
	// directory, or one skill directory (with SKILL.md). Required.
	Dir string
	// Strict makes warnings errors; false reports them as warnings.
	Strict bool
	// Symlinks is what a symlink in a skill is: the zero value refuses
	// it.
	Symlinks layers.SymlinkMode
	// Against is a published package whose skills must not have changed
	// MEMORY.md, EXAMPLES.md or CALIBRATION.md without a version bump;
	// empty compares with nothing, and the job then needs no Opener.
	Against string
	// Limits bound the skills layer of Against; the zero value is the
	// defaults.
	layers.Limits
	// Scope is where Against is looked up; the zero value is the local
	// store, then the registry.
	Scope source.Scope
}

// Validate checks the skills of a directory against the stax and Agent
// Skills specifications and, with Against, against a published release.
// What it finds is in the report, which says whether the skills are valid;
// the error is for a validation that could not run.
func Validate(ctx context.Context, env *Env, opts ValidateOptions) (*validate.Report, error) {
	vopts, project, err := validateTarget(opts.Dir)
	if err != nil {
		return nil, err
	}
	vopts.Strict, vopts.Symlinks = opts.Strict, opts.Symlinks
	var report *validate.Report
	if project != nil {
		// A package's skills, checked as pack checks them.
		report, err = pack.ValidateSkills(project, vopts)
		if err == nil && report == nil {
			report = &validate.Report{Valid: true, Skills: []validate.Skill{}, Errors: []validate.Diagnostic{}, Warnings: []validate.Diagnostic{}}
		}
	} else {
		report, err = validate.Dir(vopts)
		err = errdefs.MarkLocal(err)
	}
	if err != nil {
		return nil, err
	}
	if opts.Against != "" {
		sourceOpts := source.Options{Opener: env.Opener, Limits: opts.Limits, Scope: opts.Scope}
		if err := bumprule.Against(ctx, opts.Against, sourceOpts, report); err != nil {
			return nil, err
		}
	}
	return report, nil
}

// validateTarget is what validating dir checks: the skills of the package
// or skills directory dir, or, when dir holds a SKILL.md and no stax.yaml, that one skill
// as its skills directory sees it: its folder's name is its name, and
// the .staxignore that applies is the package's, or else the skills
// directory's.
func validateTarget(dir string) (validate.Options, *staxyaml.Project, error) {
	if filepath.Base(dir) == skill.FileName && hasSkillMD(filepath.Dir(dir)) {
		// A skill's SKILL.md, as a linter is given a file: that skill.
		dir = filepath.Dir(dir)
	}
	if _, err := os.Stat(filepath.Join(dir, staxyaml.FileName)); err == nil || !hasSkillMD(dir) {
		p, err := staxyaml.Open(dir)
		if err != nil {
			return validate.Options{}, nil, err
		}
		if p.Definition == nil {
			// The skills directory of the package above is checked as
			// that package checks it, with its .staxignore.
			pkg, err := staxyaml.PackageOfSkillsDir(dir)
			if err != nil {
				return validate.Options{}, nil, err
			}
			if pkg != nil {
				p = pkg
			}
		}
		return validate.Options{Root: p.SkillsDir, PackageRoot: p.Root}, p, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return validate.Options{}, nil, errdefs.MarkLocal(err)
	}
	// Messages name files as the user named the skill, unless that was
	// "." or "..", which have no name.
	skill := filepath.Clean(dir)
	if base := filepath.Base(skill); base == "." || base == ".." {
		skill = abs
	}
	skillsDir := filepath.Dir(skill)
	opts := validate.Options{Root: skillsDir, PackageRoot: skillsDir, Only: filepath.Base(abs)}
	for _, root := range []string{filepath.Dir(abs), filepath.Dir(filepath.Dir(abs))} {
		p, err := staxyaml.Open(root)
		if err != nil {
			return validate.Options{}, nil, err
		}
		if p.Definition != nil && p.SkillsDir == filepath.Dir(abs) {
			opts.PackageRoot = p.Root
			break
		}
	}
	return opts, nil, nil
}
