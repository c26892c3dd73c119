package workflow

import (
	"context"

	"github.com/stax-dev/stax/pkg/install"
)

// UninstallOptions say which folders Uninstall empties of stax's skills.
type UninstallOptions struct {
	// Where are the folders to uninstall from.
	Where Folders
	// Force removes installed skills the user changed too, moving them to
	// a backup under .stax/backup; false refuses to.
	Force bool
	// Keep are skills to leave in place as the user's own, removed from
	// the install record; none keeps nothing.
	Keep []string
}

// UninstallResult is what Uninstall did in one folder.
type UninstallResult struct {
	Runtimes []string `json:"runtimes"`
	Dir      string   `json:"dir"`
	Removed  []string `json:"removed"`
	Kept     []string `json:"kept"`
	Backups  []string `json:"backups"`
}

// Uninstall removes from each folder the skills stax installed there, as
// its install record lists them, and only those. Notes on what it
// recovered or moved to a backup go to env.Warnings as each folder is
// done.
func Uninstall(ctx context.Context, env *Env, opts UninstallOptions) ([]UninstallResult, error) {
	placement, _, err := env.placeFor(opts.Where)
	if err != nil {
		return nil, err
	}
	lockDir, err := env.lockDir()
	if err != nil {
		return nil, err
	}
	out := []UninstallResult{}
	for _, t := range placement.Targets {
		res, err := install.Uninstall(ctx, install.Options{
			Dir: t.Dir, Root: placement.Root, LockDir: lockDir, Force: opts.Force, Keep: opts.Keep, Records: placement.Records,
		})
		if err != nil {
			return nil, err
		}
		env.noteInstall(res)
		out = append(out, UninstallResult{Runtimes: install.Names(t.Runtimes), Dir: t.Dir, Removed: res.Removed, Kept: res.Kept, Backups: res.Backups})
	}
	return out, nil
}

// PlanUninstall is the plan of Uninstall with the same options, computed
// without writing anything: per folder the skills it would remove and
// keep, and those the user changed, which it would refuse to remove
// without Force. An uninstall does not change stax.lock.
func PlanUninstall(ctx context.Context, env *Env, opts UninstallOptions) (*Plan, error) {
	placement, _, err := env.placeFor(opts.Where)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Targets: []PlanTarget{}, Packages: []PackageUpdate{}, Skills: []SkillUpdate{}}
	for _, t := range placement.Targets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pt, err := planUninstall(placement, t, opts.Keep)
		if err != nil {
			return nil, err
		}
		plan.Targets = append(plan.Targets, pt)
	}
	plan.userFiles(opts.Force)
	return plan, nil
}
