package workflow

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/hiddentext"
	"github.com/stax-dev/stax/pkg/render"
	"github.com/stax-dev/stax/pkg/substitute"
)

// RenderOptions say which skill Render assembles, and how.
type RenderOptions struct {
	// Skill is a skill directory, a skill's name in SkillsDir, or REF#name,
	// a skill inside a package in the local store or a layout. Required.
	Skill string
	// SkillsDir is where a skill given by name is looked up; empty is the
	// skills directory of the package in the current directory.
	SkillsDir string
	// Arguments replace $ARGUMENTS.
	Arguments []string
	// Workspace is ${STAX_WORKSPACE}; empty is the current directory.
	Workspace string
	// SkillDir is ${STAX_SKILL_DIR}; empty is the skill's directory, and
	// the variable is left as written for REF#name.
	SkillDir string
	// Budget bounds the rendering; its zero value is render's default.
	Budget render.Budget
	// Limits bound the skills layer read for REF#name; the zero value is
	// the defaults.
	layers.Limits
	// AllowHiddenText renders files that hold hidden text; false refuses
	// them.
	AllowHiddenText bool
}

// RenderResult is a skill as an agent receives it.
type RenderResult struct {
	Skill string `json:"skill"`
	// Source is the skill directory, or REF#name.
	Source string `json:"source"`
	*render.Result
}

// Render assembles a skill the way a runtime loads a stateful skill: the
// stateful files in their load order, fitted to the budget, variables
// substituted. An installed stateful skill whose package the trust policy
// requires to verify is refused when its files differ from what the
// signature signs. On a refusal for the budget the result still names the
// skill, for the message.
func Render(ctx context.Context, env *Env, opts RenderOptions) (*RenderResult, error) {
	files, out, skillDir, err := env.loadRenderSkill(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := Admit(ctx, env, skillDir); err != nil {
		return nil, err
	}
	sub, err := substitutions(opts, skillDir)
	if err != nil {
		return nil, err
	}
	out.Result, err = render.Render(render.Skill{Name: out.Skill, SkillMD: files.SkillMD, Siblings: files.Siblings},
		render.Options{Budget: opts.Budget, Substitute: sub, AllowHiddenText: opts.AllowHiddenText})
	var hidden *hiddentext.Error
	if skillDir != "" && errors.As(err, &hidden) && hidden.Path != "" {
		hidden.Path = filepath.Join(out.Source, filepath.FromSlash(hidden.Path))
	}
	return out, err
}

// substitutions are the values of the variables of a skill in skillDir:
// the options', else the skill directory and the current directory.
func substitutions(opts RenderOptions, skillDir string) (substitute.Options, error) {
	sub := substitute.Options{Arguments: opts.Arguments, SkillDir: skillDir, Workspace: opts.Workspace}
	if opts.SkillDir != "" {
		sub.SkillDir = opts.SkillDir
	}
	if sub.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return sub, errdefs.MarkLocal(err)
		}
		sub.Workspace = wd
	}
	return sub, nil
}

// loadRenderSkill reads the skill opts names: its files, its name and
// where it came from, and its absolute directory ("" for a skill inside a
// package, which has no directory until it is installed).
func (e *Env) loadRenderSkill(ctx context.Context, opts RenderOptions) (*skillFiles, *RenderResult, string, error) {
	if ref, name, ok := splitPackaged(opts.Skill); ok {
		files, err := e.readPackagedSkill(ctx, ref, name, opts.Limits)
		return files, &RenderResult{Skill: name, Source: opts.Skill}, "", err
	}
	dir, err := SkillDir(opts.Skill, opts.SkillsDir)
	if err != nil {
		return nil, nil, "", err
	}
	files, err := readSkillDir(dir)
	if err != nil {
		return nil, nil, "", err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, "", errdefs.MarkLocal(err)
	}
	return files, &RenderResult{Skill: filepath.Base(abs), Source: dir}, abs, nil
}
