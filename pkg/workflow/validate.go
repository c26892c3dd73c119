package workflow

import (
	"context"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/bumprule"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/validate"
)

// ValidateOptions say what Validate checks.
type ValidateOptions struct {
	// Dir is a package directory (with stax.yaml) or a bare skills
	// directory. Required.
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
	// MaxSize bounds the skills layer of Against; 0 is
	// layers.DefaultMaxSize, negative no limit.
	MaxSize int64
	// Scope is where Against is looked up; the zero value is the local
	// store, then the registry.
	Scope source.Scope
}

// Validate checks the skills of a directory against the stax and Agent
// Skills specifications and, with Against, against a published release.
// What it finds is in the report, which says whether the skills are valid;
// the error is for a validation that could not run.
func Validate(ctx context.Context, env *Env, opts ValidateOptions) (*validate.Report, error) {
	p, err := staxyaml.Open(opts.Dir)
	if err != nil {
		return nil, err
	}
	report, err := validate.Dir(validate.Options{Root: p.SkillsDir, PackageRoot: p.Root, Strict: opts.Strict, Symlinks: opts.Symlinks})
	if err != nil {
		return nil, errdefs.IO(err)
	}
	if opts.Against != "" {
		sourceOpts := source.Options{Opener: env.Opener, MaxSize: opts.MaxSize, Scope: opts.Scope}
		if err := bumprule.Against(ctx, opts.Against, sourceOpts, report); err != nil {
			return nil, err
		}
	}
	return report, nil
}
