package validate

import (
	"cmp"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/skill"
)

// skillDir is a top-level directory of the skills directory: one skill.
type skillDir struct {
	name string
	// entries are the files and directories below it.
	entries []layers.Entry
	skillMD *layers.Entry
	// hasProblems: some path below it cannot be packaged.
	hasProblems bool
	// skillMDProblem: SKILL.md itself cannot be packaged (a symlink, say),
	// or the directory itself cannot be read; that problem is reported
	// already and says more than "missing".
	skillMDProblem bool
}

// layout groups the tree by top-level directory, in layer order, and
// reports the regular files that sit at the top level.
func (v *validator) layout(tree *layers.Tree) []*skillDir {
	var dirs []*skillDir
	byName := map[string]*skillDir{}
	dir := func(name string) *skillDir {
		d, ok := byName[name]
		if !ok {
			d = &skillDir{name: name}
			byName[name] = d
			dirs = append(dirs, d)
		}
		return d
	}
	for i, e := range tree.Entries {
		top, rest, nested := strings.Cut(e.Path, "/")
		switch {
		case !nested && e.Dir:
			dir(top)
		case !nested:
			v.strayFile(e.Path)
		default:
			// Also reached when a scan lists files without their parent
			// directories: the directory still counts.
			d := dir(top)
			d.entries = append(d.entries, e)
			if rest == skill.FileName && !e.Dir {
				d.skillMD = &tree.Entries[i]
			}
		}
	}
	for _, p := range tree.Problems {
		top, rest, nested := strings.Cut(p.Path, "/")
		if !nested {
			// A directory that could not be read is listed, but empty.
			if d, ok := byName[top]; ok {
				d.hasProblems, d.skillMDProblem = true, true
			}
			continue
		}
		d := dir(top)
		d.hasProblems = true
		if rest == skill.FileName {
			d.skillMDProblem = true
		}
	}
	return dirs
}

func (v *validator) strayFile(rel string) {
	if rel == skill.FileName && v.opts.Only == "" && v.opts.Parts == nil {
		if abs, err := filepath.Abs(v.opts.Root); err == nil {
			// Its package, where it has one: the skills directory alone
			// would be packed without the package's stax.yaml.
			give := fmt.Sprintf("give the directory that holds it, %s, instead", filepath.Dir(abs))
			from := filepath.Dir(abs)
			if v.opts.Package != "" {
				give, from = fmt.Sprintf("give its package, %s, instead", v.opts.Package), v.opts.Package
			}
			v.errorf(rel, 0, CodeStrayFile,
				"%s is one skill (it holds %s), not a skills directory, which holds a directory per skill: %s "+
					"(stax install %s --skill %s installs this skill alone), or move the skill into a skills directory of its own",
				v.opts.Root, skill.FileName, give, from, filepath.Base(abs))
			return
		}
	}
	pkgRoot := v.opts.PackageRoot
	if pkgRoot == "" {
		pkgRoot = v.opts.Root
	}
	pattern := "/" + rel
	if r, err := filepath.Rel(pkgRoot, v.path(rel)); err == nil && filepath.IsLocal(r) {
		pattern = "/" + filepath.ToSlash(r)
	}
	v.errorf(rel, 0, CodeStrayFile,
		"file at the top level of the skills directory, where only skill directories belong; "+
			"move it into a skill directory, or add %q to %s to leave it out",
		pattern, filepath.Join(pkgRoot, layers.IgnoreFile))
}

// missingSkillMD explains a skill directory without SKILL.md, pointing at
// a near miss when there is one.
func (v *validator) missingSkillMD(d *skillDir) {
	for _, e := range d.entries {
		if path.Dir(e.Path) != d.name {
			continue
		}
		base := path.Base(e.Path)
		switch {
		case base == skill.FileName && e.Dir:
			v.errorf(d.name, 0, CodeSkillMDMissing,
				"%s is a directory; a skill's %s must be a file", skill.FileName, skill.FileName)
			return
		case strings.EqualFold(base, skill.FileName):
			v.errorf(d.name, 0, CodeSkillMDMissing,
				"skill directory has no %s, but has %s: rename it to %s (the name is case-sensitive)",
				skill.FileName, base, skill.FileName)
			return
		}
	}
	if nested := nestedSkill(d); nested != "" {
		v.holdsSkills(d, nested)
		return
	}
	v.errorf(d.name, 0, CodeSkillMDMissing,
		"skill directory has no %s; every top-level directory is a skill: add a %s, or move the directory out",
		skill.FileName, skill.FileName)
}

// nestedSkill is the first skill directory one level below d ("skills/
// review" of "skills"), as a package root without the stax.yaml that
// names its skills directory reads; empty when there is none.
func nestedSkill(d *skillDir) string {
	for _, e := range d.entries {
		if !e.Dir && path.Base(e.Path) == skill.FileName && path.Dir(path.Dir(e.Path)) == d.name {
			return path.Dir(e.Path)
		}
	}
	return ""
}

// holdsSkills explains a directory without SKILL.md that holds skills:
// it is a skills directory, which stax.yaml names. Where no stax.yaml
// can be (the package root is the directory checked), stax init writes
// one.
func (v *validator) holdsSkills(d *skillDir, nested string) {
	pkgRoot := cmp.Or(v.opts.PackageRoot, v.opts.Root)
	dir := d.name
	if r, err := filepath.Rel(pkgRoot, v.path(d.name)); err == nil && filepath.IsLocal(r) {
		dir = filepath.ToSlash(r)
	}
	init := ""
	if pkgRoot == v.opts.Root && v.opts.Only == "" && v.opts.Parts == nil {
		init = fmt.Sprintf(" (stax init %s --package --skills %s writes one)", v.opts.Root, dir)
	}
	v.errorf(d.name, 0, CodeSkillMDMissing,
		"skill directory has no %s, but holds skills (%s): it is a skills directory, not a skill; name it in stax.yaml with skills: %s%s",
		skill.FileName, nested, dir, init)
}
