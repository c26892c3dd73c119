package workflow

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/merge"
)

// Plan is what an install, remove or uninstall would change, as its dry
// run computes it without writing anything: per folder, the skills it
// would install, update, remove and keep, and the change of stax.lock.
// The packages are resolved, but their layers are neither fetched nor
// checked against the trust policy: the install itself does that.
type Plan struct {
	Targets []PlanTarget `json:"targets"`
	// Lock is the stax.lock the job writes; empty when it writes none
	// (--frozen, --no-save, uninstall).
	Lock        string `json:"lock,omitempty"`
	LockChanged bool   `json:"lockChanged"`
	// Packages and Skills are the change of stax.lock, as update's plan
	// gives it.
	Packages []PackageUpdate `json:"packages"`
	Skills   []SkillUpdate   `json:"skills"`
	// Manifest is the stax.yaml the job would rewrite (sources saved or
	// removed); empty when it stays as it is.
	Manifest string `json:"manifest,omitempty"`
	// UserFiles are the skills of the user's the job would move to a
	// backup: those in Conflicts, with --force; none without, because the
	// job then refuses them (exit 5) instead.
	UserFiles []string `json:"userFiles"`
}

// PlanTarget is what a job would do in one folder.
type PlanTarget struct {
	Runtimes []string `json:"runtimes"`
	Dir      string   `json:"dir"`
	Install  []string `json:"install"`
	Update   []string `json:"update"`
	Remove   []string `json:"remove"`
	// Keep are skills left as they are: installed and unchanged, or, for
	// an uninstall, named by --keep.
	Keep []string `json:"keep"`
	// Conflicts are skills of the user's in the way (a skill directory
	// stax did not install) and installed skills the user changed, which
	// the job refuses to write again or remove without --force, and with
	// it moves to a backup, as install.Drift.Refused says.
	Conflicts []string `json:"conflicts"`
}

// planTarget compares the winners of an install with what the folder of
// t holds. A folder stax cannot read is reported by the install itself,
// so it plans as an empty one here. force is the install's --force, which
// does not merge a MEMORY.md the user changed.
func planTarget(p *install.Placement, t install.Folder, merged *merge.Result, force bool) (PlanTarget, error) {
	pt := newPlanTarget(t)
	rec, drifts, err := readFolder(p, t.Dir)
	if err != nil {
		return pt, err
	}
	winners := map[string]bool{}
	for _, s := range merged.Skills {
		winners[s.Path] = true
		was, ok := rec.Skills[s.Path]
		d := drifts[s.Path]
		switch {
		case !ok:
			pt.Install = append(pt.Install, s.Path)
			if _, err := os.Lstat(filepath.Join(t.Dir, s.Path)); err == nil {
				pt.Conflicts = append(pt.Conflicts, s.Path)
			}
			continue
		case was.Digest != s.Digest || d != nil || !p.HoldsPaths(t.Dir, s.Path, was):
			// A skill whose files are the same stays, whatever package
			// it now comes from: the install leaves its files as they
			// are. One that is not as recorded, or that holds the paths
			// of another place, is written again.
			pt.Update = append(pt.Update, s.Path)
			d = was.Compared(s.Path, d, true)
		default:
			pt.Keep = append(pt.Keep, s.Path)
		}
		if d != nil && d.Refused(!force) {
			pt.Conflicts = append(pt.Conflicts, s.Path)
		}
	}
	for name, was := range rec.Skills {
		if !winners[name] {
			pt.Remove = append(pt.Remove, name)
			if d := was.Compared(name, drifts[name], true); d != nil && d.Refused(false) {
				pt.Conflicts = append(pt.Conflicts, name)
			}
		}
	}
	pt.sort()
	return pt, nil
}

// planUninstall is what an uninstall would do in the folder of t.
func planUninstall(p *install.Placement, t install.Folder, keep []string) (PlanTarget, error) {
	pt := newPlanTarget(t)
	rec, drifts, err := readFolder(p, t.Dir)
	if err != nil {
		return pt, err
	}
	for name, was := range rec.Skills {
		if slices.Contains(keep, name) {
			pt.Keep = append(pt.Keep, name)
			continue
		}
		pt.Remove = append(pt.Remove, name)
		if d := was.Compared(name, drifts[name], true); d != nil && d.Refused(false) {
			pt.Conflicts = append(pt.Conflicts, name)
		}
	}
	pt.sort()
	return pt, nil
}

func newPlanTarget(t install.Folder) PlanTarget {
	return PlanTarget{
		Runtimes: install.Names(t.Runtimes), Dir: t.Dir,
		Install: []string{}, Update: []string{}, Remove: []string{}, Keep: []string{}, Conflicts: []string{},
	}
}

func (pt *PlanTarget) sort() {
	for _, names := range [][]string{pt.Install, pt.Update, pt.Remove, pt.Keep, pt.Conflicts} {
		slices.Sort(names)
	}
}

// readFolder reads the install record of the folder dir of p, and how
// the skills that are not as recorded differ, by name.
func readFolder(p *install.Placement, dir string) (*install.Record, map[string]*install.Drift, error) {
	recordDir, err := p.RecordDir(dir)
	if err != nil {
		return nil, nil, err
	}
	rec, err := install.ReadRecordIn(dir, recordDir)
	if err != nil {
		return nil, nil, err
	}
	drifts, err := install.CheckIn(dir, recordDir)
	if err != nil {
		return nil, nil, err
	}
	byName := make(map[string]*install.Drift, len(drifts))
	for i := range drifts {
		byName[drifts[i].Skill] = &drifts[i]
	}
	return rec, byName, nil
}

// userFiles are the skills of the user's a job would move to a backup.
func (p *Plan) userFiles(force bool) {
	p.UserFiles = []string{}
	if !force {
		return
	}
	for _, t := range p.Targets {
		for _, name := range t.Conflicts {
			p.UserFiles = append(p.UserFiles, filepath.Join(t.Dir, name))
		}
	}
}

// lockChange is the change a written stax.lock would make to old.
func (p *Plan) lockChange(path string, old, planned *lock.Lock) {
	p.Lock = path
	p.Packages, p.Skills = packageUpdates(old, planned), skillUpdates(old, planned)
	p.LockChanged = old == nil || len(p.Packages)+len(p.Skills) > 0
}
