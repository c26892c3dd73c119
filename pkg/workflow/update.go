package workflow

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/semver"
	"github.com/stax-dev/stax/pkg/staxyaml"
)

// UpdateOptions say what Update updates; the rest are those of the
// install it makes (their Sources, Version, NoSave and Frozen are not
// used). DryRun computes the plan and changes nothing; false installs it.
type UpdateOptions struct {
	InstallOptions
	// Refs name the sources of install.sources to update: references
	// (whatever their tag, digest or range) or package directories. The
	// others stay at the digests stax.lock holds. None updates every
	// source.
	Refs []string
	// Latest first moves the range of each source updated, when it does
	// not allow the repository's highest release, to ^ that release,
	// rewriting stax.yaml; false keeps the ranges.
	Latest bool
	// To moves the one source Refs names to this version, lower or higher,
	// in its range or out of it: a range that does not allow it becomes
	// ^ it, as Latest moves one, and a source naming a tag names the tag
	// of the version instead, rewriting stax.yaml; stax.lock then keeps
	// the version, as it keeps any. Empty for the newest the range
	// allows.
	To string
}

// UpdateResult is the plan of an update and, unless it was a dry run or
// nothing was newer, the install that carried it out.
type UpdateResult struct {
	// Ranges are the ranges Latest moved.
	Ranges []RangeUpdate `json:"ranges"`
	// Packages are the packages whose digest changes, with their versions.
	Packages []PackageUpdate `json:"packages"`
	// Skills are the installed skills added, removed or changed.
	Skills []SkillUpdate `json:"skills"`
	// DryRun is set when nothing was changed on purpose.
	DryRun bool `json:"dryRun"`
	// Install is what was installed; nil for a dry run, or when nothing
	// was newer.
	Install *InstallResult `json:"install,omitempty"`
}

// Changed reports whether the plan changes anything.
func (r *UpdateResult) Changed() bool {
	return len(r.Ranges)+len(r.Packages)+len(r.Skills) > 0
}

// RangeUpdate is a source's range, before and after Latest moved it.
type RangeUpdate struct {
	Ref string `json:"ref"`
	Old string `json:"old"`
	New string `json:"new"`
}

// Kinds of change of a package or skill in an update's plan.
const (
	ChangeAdded   = "added"
	ChangeRemoved = "removed"
	ChangeUpdated = "updated"
	ChangeChanged = "changed"
)

// PackageUpdate is a package an update adds, removes or moves to another
// digest. A version that is not known is empty.
type PackageUpdate struct {
	Ref        string        `json:"ref"`
	Change     string        `json:"change"`
	OldVersion string        `json:"oldVersion,omitempty"`
	NewVersion string        `json:"newVersion,omitempty"`
	OldDigest  digest.Digest `json:"oldDigest,omitempty"`
	NewDigest  digest.Digest `json:"newDigest,omitempty"`
}

// SkillUpdate is an installed skill an update adds, removes or changes,
// and the package it comes from (for a removed one, came from).
type SkillUpdate struct {
	Path    string `json:"path"`
	Change  string `json:"change"`
	Package string `json:"package"`
}

// Update resolves the sources of install.sources again within their
// ranges — the tag a source names, or for one naming neither tag nor
// range the highest release — and compares the result with stax.lock.
// Unless DryRun, or nothing is newer, it then installs it as Install
// does, in one transaction with stax.lock (and stax.yaml, when Latest
// moved a range).
func Update(ctx context.Context, env *Env, opts UpdateOptions) (*UpdateResult, error) {
	if err := env.checkVerification(opts.Verify); err != nil {
		return nil, err
	}
	m, err := env.projectFileFor(ctx, opts.Where, opts.DryRun)
	if err != nil {
		return nil, err
	}
	defer m.close()
	if len(m.sources()) == 0 {
		if err := m.absent("update"); err != nil {
			return nil, err
		}
		return nil, errdefs.Invalid(fmt.Errorf("nothing to update: %s lists no install.sources", m.path))
	}
	old, err := readLock(m.dir)
	if err != nil {
		return nil, err
	}
	if opts.To != "" && (len(opts.Refs) != 1 || opts.Latest) {
		return nil, errdefs.Invalid(fmt.Errorf("--to %s moves one source, without --latest: name it (stax update SOURCE --to %s)", opts.To, opts.To))
	}
	selected, err := selectSources(env, m, opts.Refs)
	if err != nil {
		return nil, err
	}
	res := &UpdateResult{DryRun: opts.DryRun, Ranges: []RangeUpdate{}, Packages: []PackageUpdate{}, Skills: []SkillUpdate{}}
	env = env.rememberingTags()
	if opts.Latest {
		if res.Ranges, err = moveRanges(ctx, env, m, selected); err != nil {
			return nil, err
		}
	}
	var to *versionPin
	if opts.To != "" {
		if res.Ranges, to, err = moveTo(ctx, env, m, selected, opts.To); err != nil {
			return nil, err
		}
	}
	dryRun := opts.DryRun
	adjust := func(req *installRequest) {
		if old != nil {
			req.Pins, req.PinTags = lockedPins(old, m.sources(), selected)
			req.GitLocked = lockedCommits(old, req.Pins)
		}
		if to != nil && to.key != "" {
			if req.Pins == nil {
				req.Pins, req.PinTags = map[string]digest.Digest{}, map[string]string{}
			}
			req.Pins[to.key], req.PinTags[to.key] = to.digest, to.tag
		}
		req.Review = func(g *resolve.Graph, merged *merge.Result) (bool, error) {
			planned := lock.New(req.Sources, g, merged)
			res.Packages, res.Skills = packageUpdates(old, planned), skillUpdates(old, planned)
			return !dryRun && res.Changed(), nil
		}
	}
	// The update's own plan is its dry run.
	opts.NoSave, opts.Sources, opts.Version, opts.Frozen, opts.DryRun = false, nil, "", false, false
	res.Install, err = installSources(ctx, env, opts.InstallOptions, m, m.sources(), nil, adjust)
	return res, err
}

// selectSources are the packages of install.sources refs name, all of
// them for none.
func selectSources(env *Env, m *projectFile, refs []string) (map[string]bool, error) {
	selected := map[string]bool{}
	listed := map[string]bool{}
	for _, d := range m.sources() {
		listed[d.Package()] = true
	}
	if len(refs) == 0 {
		return listed, nil
	}
	decls, err := m.declarations(env, refs)
	if err != nil {
		return nil, err
	}
	for _, d := range decls {
		pkg := d.Package()
		if !listed[pkg] {
			return nil, m.notListed(d)
		}
		selected[pkg] = true
	}
	return selected, nil
}

// moveRanges gives each selected source with a range that does not allow
// its repository's highest release the range ^ that release, in the
// stax.yaml m will write.
func moveRanges(ctx context.Context, env *Env, m *projectFile, selected map[string]bool) ([]RangeUpdate, error) {
	var ranged []declaration.Declaration
	var repos []tagSource
	var gitRepos []gitsource.Reference
	decls, err := m.declared(m.sources(), nil)
	if err != nil {
		return nil, err
	}
	for _, d := range decls {
		if d.Range == nil || !selected[d.Package()] {
			continue
		}
		if d.Kind == declaration.Git {
			ranged = append(ranged, d)
			gitRepos = append(gitRepos, d.Git)
			continue
		}
		ranged = append(ranged, d)
		repos = append(repos, tagSourceOf(d, m.dir))
	}
	tags, err := listTags(ctx, env, repos)
	if err != nil {
		return nil, err
	}
	gitTags, err := listGitTags(ctx, env, gitRepos)
	if err != nil {
		return nil, err
	}
	moved := []RangeUpdate{}
	for _, d := range ranged {
		listed := tags[tagSourceOf(d, m.dir).key()]
		if d.Kind == declaration.Git {
			listed = gitTags[d.Git.SameRepository()]
		}
		latest, ok := semver.Highest(listed, nil)
		if !ok {
			continue
		}
		v, _ := semver.ParseTag(latest)
		if d.Range.Allows(v) {
			continue
		}
		to := staxyaml.Dependency{Ref: d.Written, Version: "^" + v.String(), Plugin: d.Plugin, Skills: d.Skills}
		if err := m.edit(func(data []byte) ([]byte, error) { return staxyaml.AddSource(data, to) }); err != nil {
			return nil, err
		}
		moved = append(moved, RangeUpdate{Ref: d.Written, Old: d.Range.String(), New: to.Version})
	}
	return moved, nil
}

// packageUpdates compare the packages of two locks, by package, whatever
// tag their references name.
func packageUpdates(old, planned *lock.Lock) []PackageUpdate {
	before := map[string][]lock.Package{}
	var order []string
	if old != nil {
		for _, p := range old.Packages {
			pkg := old.PackageOf(p)
			if before[pkg] == nil {
				order = append(order, pkg)
			}
			before[pkg] = append(before[pkg], p)
		}
	}
	updates := []PackageUpdate{}
	for _, p := range planned.Packages {
		pkg := planned.PackageOf(p)
		was := before[pkg]
		if len(was) == 0 {
			updates = append(updates, PackageUpdate{Ref: repositoryName(planned, p), Change: ChangeAdded, NewVersion: lockedVersion(planned, p), NewDigest: p.Digest})
			continue
		}
		before[pkg] = was[1:]
		if was[0].Digest != p.Digest {
			updates = append(updates, PackageUpdate{Ref: repositoryName(planned, p), Change: ChangeUpdated, OldVersion: lockedVersion(old, was[0]), NewVersion: lockedVersion(planned, p),
				OldDigest: was[0].Digest, NewDigest: p.Digest})
		}
	}
	for _, pkg := range order {
		for _, p := range before[pkg] {
			updates = append(updates, PackageUpdate{Ref: repositoryName(old, p), Change: ChangeRemoved, OldVersion: lockedVersion(old, p), OldDigest: p.Digest})
		}
	}
	return updates
}

// lockedSkill is a skill a lock records, and the package it came from.
type lockedSkill struct {
	digest digest.Digest
	pkg    string
}

func lockedSkills(l *lock.Lock) map[string]lockedSkill {
	skills := map[string]lockedSkill{}
	if l == nil {
		return skills
	}
	for _, p := range l.Packages {
		for _, s := range p.Skills {
			skills[s.Path] = lockedSkill{digest: s.Digest, pkg: repositoryName(l, p)}
		}
	}
	return skills
}

// skillUpdates compare the installed skills of two locks, by path.
func skillUpdates(old, planned *lock.Lock) []SkillUpdate {
	before, after := lockedSkills(old), lockedSkills(planned)
	updates := []SkillUpdate{}
	for path, s := range after {
		switch was, ok := before[path]; {
		case !ok:
			updates = append(updates, SkillUpdate{Path: path, Change: ChangeAdded, Package: s.pkg})
		case was.digest != s.digest:
			updates = append(updates, SkillUpdate{Path: path, Change: ChangeChanged, Package: s.pkg})
		}
	}
	for path, s := range before {
		if _, ok := after[path]; !ok {
			updates = append(updates, SkillUpdate{Path: path, Change: ChangeRemoved, Package: s.pkg})
		}
	}
	slices.SortFunc(updates, func(a, b SkillUpdate) int { return strings.Compare(a.Path, b.Path) })
	return updates
}

// repositoryName is how a plan names the package p of the lock l: its
// repository without tag or digest, or the directory.
func repositoryName(l *lock.Lock, p lock.Package) string {
	d, ok := l.Declaration(p)
	if !ok || d.Kind == declaration.Directory {
		return p.Ref
	}
	r := d.Ref
	r.Tag, r.Digest = "", ""
	return r.Familiar()
}
