// Package checkout turns a directory of someone else's skills, a
// repository checkout or a SUBDIR of one, into a stax package. It finds
// the skills where the ecosystem keeps them (a stax.yaml, a SKILL.md,
// skills/*, .claude/skills/*, .agents/skills/*, or a plugin of a Claude
// Code, Codex or Copilot marketplace), chooses among them by name, and
// builds them into a content store exactly as stax pack builds the same
// files, leniently: the content rules someone else's skills break are
// warnings (docs/sources.md).
//
// Everything read from the directory is hostile: names go through the one
// safe-name rule, paths stay in the checkout (files are opened through an
// os.Root), manifests are bounded. Nothing here fetches: a plugin of
// another repository is returned for the git layer to fetch.
package checkout

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/warning"
)

// Options say where the skills are.
type Options struct {
	// Root is the checkout: nothing outside it is read.
	Root string
	// Subdir is where in Root to look, slash-separated; "" for Root.
	Subdir string
	// Plugin, when set, is the plugin to take, NAME or NAME@MARKETPLACE.
	Plugin string
	// Repository is the repository's name (skills for
	// github.com/anthropics/skills): the name of the skill a SKILL.md at
	// the checkout's root is when its frontmatter names none usable, and
	// of the package (see BuildOptions).
	Repository string
	// RootSubdir is the SUBDIR of the repository Root holds, when Root is
	// not the repository's root: messages name it rather than the
	// repository.
	RootSubdir string
}

// Layout is where the skills were found.
type Layout string

const (
	LayoutProject Layout = "stax.yaml"
	LayoutSkill   Layout = "SKILL.md"
	LayoutFolders Layout = "*"
	LayoutSkills  Layout = "skills"
	LayoutClaude  Layout = ".claude/skills"
	LayoutAgents  Layout = ".agents/skills"
	LayoutPlugin  Layout = "plugin"
)

// Skill is one skill of the checkout.
type Skill struct {
	// Name is its skill directory name in the package.
	Name string
	// Dir is where it is, relative to the checkout.
	Dir string
}

// Source is what Find found: the skills of a checkout, or the repository
// of the plugin asked for.
type Source struct {
	Root   string
	Subdir string
	Layout Layout
	// Project is the stax.yaml package (LayoutProject).
	Project *staxyaml.Project
	// Skills are the skills found, by name.
	Skills []Skill
	// Plugin is the plugin taken (LayoutPlugin).
	Plugin *Plugin
	// Follow, when set, is the repository of a plugin that lives in
	// another one: fetch it and Find there, with Follow.Path as Subdir.
	// Skills is then empty.
	Follow *GitSource
	// Marketplaces are those of Subdir, whatever the layout; none when
	// one cannot be read and no plugin was asked for.
	Marketplaces []*Marketplace
	// Warnings are what Find noticed: the parts of a plugin stax does
	// not install.
	Warnings warning.List

	repository string
	rootSubdir string
	selected   bool
}

// Find finds the skills of opts.Subdir in the first layout that has any:
// the plugin asked for; a stax.yaml; a SKILL.md at Subdir (one skill);
// Subdir/skills/*/SKILL.md; Subdir/.claude/skills/*;
// Subdir/.agents/skills/*; Subdir/*/SKILL.md (a SUBDIR that is a folder of
// skills, such as github.com/anthropics/skills/skills).
func Find(opts Options) (*Source, error) {
	t, err := openTree(opts.Root)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	sub, err := join(".", cmp.Or(opts.Subdir, "."))
	if err != nil {
		return nil, errdefs.Invalid(fmt.Errorf("subdirectory: %w", err))
	}
	if !t.isDir(sub) {
		return nil, errdefs.Resolution(fmt.Errorf("%s is not a directory of the repository", sub))
	}
	src := &Source{Root: t.dir, Subdir: sub, repository: opts.Repository, rootSubdir: opts.RootSubdir}
	// A marketplace that cannot be read matters only to whoever asks for
	// a plugin the others do not have: the skills beside it are usable.
	src.Marketplaces, err = t.readMarketplaces(sub)
	if opts.Plugin != "" {
		return orNil(src, t.findPluginSkills(src, opts.Plugin, err))
	}
	if t.isFile(path.Join(sub, staxyaml.FileName)) {
		return orNil(src, t.findProject(src))
	}
	if t.isFile(path.Join(sub, skill.FileName)) {
		name := t.skillName(sub, opts.Repository)
		if err := layers.CheckName(name); err != nil {
			return nil, errdefs.Invalid(fmt.Errorf("skill %s: %w", sub, err))
		}
		src.Layout, src.Skills = LayoutSkill, []Skill{{Name: name, Dir: sub}}
		return src, nil
	}
	// A folder of skill folders comes last: a repository keeping its
	// skills in skills/ or .claude/skills often has other folders with a
	// SKILL.md beside them (a template, an example) that are not its
	// skills.
	for _, l := range []Layout{LayoutSkills, LayoutClaude, LayoutAgents, LayoutFolders} {
		dir := path.Join(sub, string(l))
		if l == LayoutFolders {
			dir = sub
		}
		if src.Skills, err = t.skillsIn(dir, ""); err != nil {
			return nil, err
		}
		if len(src.Skills) > 0 {
			src.Layout = l
			return orNil(src, src.sortSkills())
		}
	}
	if names := pluginNames(src.Marketplaces); len(names) > 0 {
		return nil, errdefs.Resolution(fmt.Errorf("%s holds no skills of its own but a plugin marketplace: choose a plugin (%s)", src.where(), listed(names)))
	}
	return nil, errdefs.Resolution(fmt.Errorf("%s holds no skills: looked for %s, %s, %s/*/%s, %s/*, %s/*, */%s and a plugin marketplace",
		src.where(), staxyaml.FileName, skill.FileName, LayoutSkills, skill.FileName, LayoutClaude, LayoutAgents, skill.FileName))
}

// orNil is src, or nil with err.
func orNil(src *Source, err error) (*Source, error) {
	if err != nil {
		return nil, err
	}
	return src, nil
}

// findPluginSkills takes the plugin spec names; unreadable is why a
// marketplace could not be read, the error when no other has the plugin.
func (t *tree) findPluginSkills(src *Source, spec string, unreadable error) error {
	p, err := findPlugin(src.Marketplaces, spec)
	if p == nil && unreadable != nil {
		return unreadable
	}
	if err != nil {
		return err
	}
	src.Layout, src.Plugin = LayoutPlugin, p
	switch {
	case p.Unsupported != "":
		return errdefs.Invalid(fmt.Errorf("plugin %s cannot be installed: %s", p.Name, p.Unsupported))
	case p.Remote != nil:
		src.Follow = p.Remote
		return nil
	}
	var ws []warning.Warning
	if src.Skills, ws, err = t.pluginSkills(p); err != nil {
		return err
	}
	src.Warnings = append(src.Warnings, ws...)
	if len(src.Skills) == 0 {
		return errdefs.Resolution(fmt.Errorf("plugin %s has no skills: stax installs skills only", p.Name))
	}
	return src.sortSkills()
}

// findProject opens the stax.yaml package at src.Subdir, whose skills
// directory must be in the checkout, and lists its skills.
func (t *tree) findProject(src *Source) error {
	p, err := staxyaml.Open(t.disk(src.Subdir))
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(t.dir, p.SkillsDir)
	if err != nil {
		return errdefs.Invalid(err)
	}
	dir, err := join(".", filepath.ToSlash(rel))
	if err != nil {
		return errdefs.Invalid(fmt.Errorf("%s: skills: %w", path.Join(src.Subdir, staxyaml.FileName), err))
	}
	// A missing skills directory is pack's to name; one the checkout's
	// os.Root cannot reach leads out of it.
	if _, err := t.fs.Stat(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errdefs.Invalid(fmt.Errorf("%s: skills: %s leads out of the repository", path.Join(src.Subdir, staxyaml.FileName), dir))
	}
	if err := t.checkPackageDirs(src.Subdir, p.Definition); err != nil {
		return err
	}
	src.Layout, src.Project = LayoutProject, p
	if src.Skills, err = t.skillsIn(dir, ""); err != nil {
		return err
	}
	if len(src.Skills) == 1 && src.Skills[0].Dir == dir {
		// The skills directory is itself a skill, which pack refuses as a
		// stray SKILL.md: list none, and let the build say it.
		src.Skills = nil
	}
	return src.sortSkills()
}

// checkPackageDirs refuses a package directory def declares (packages:
// ../shared) that is not in the checkout: a resolver builds it, and would
// read a directory of the user's machine into the package.
func (t *tree) checkPackageDirs(dir string, def *staxyaml.Definition) error {
	if def == nil {
		return nil
	}
	file := path.Join(dir, staxyaml.FileName)
	for _, d := range def.Packages {
		if d.Path == "" {
			continue
		}
		rel, err := join(dir, filepath.ToSlash(d.Path))
		if err == nil && !t.isDir(rel) {
			err = fmt.Errorf("%q is not a directory of the repository", d.Path)
		}
		if err != nil {
			return errdefs.Invalid(fmt.Errorf("%s: packages: %w", file, err))
		}
	}
	return nil
}

// skillName names the one skill at dir: its frontmatter's name when it is
// a usable one, else the directory's name, else (at the root) the
// repository's.
func (t *tree) skillName(dir, repository string) string {
	file := path.Join(dir, skill.FileName)
	if f, err := regularfile.OpenIn(t.fs, file); err == nil {
		defer f.Close()
		if data, err := regularfile.ReadAll(f, file, skill.MaxFileSize); err == nil {
			if doc, err := skill.Parse(data); err == nil && skill.ValidName(doc.Frontmatter.Name) == nil {
				return doc.Frontmatter.Name
			}
		}
	}
	if dir != "." {
		return path.Base(dir)
	}
	return staxyaml.NameFrom(cmp.Or(repository, "skill"))
}

func pluginNames(ms []*Marketplace) []string {
	var names []string
	for _, m := range ms {
		for _, p := range m.pluginNames() {
			names = append(names, p+"@"+termtext.Escape(m.Name))
		}
	}
	return names
}

// sortSkills orders src's skills by name, keeps one of a skill listed
// twice (a plugin's marketplace entry and its plugin.json may both list
// it), and refuses two skills of one name, which would be one directory
// of the package.
func (src *Source) sortSkills() error {
	slices.SortFunc(src.Skills, func(a, b Skill) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Dir, b.Dir))
	})
	src.Skills = slices.Compact(src.Skills)
	for i := 1; i < len(src.Skills); i++ {
		if a, b := src.Skills[i-1], src.Skills[i]; a.Name == b.Name {
			return errdefs.Invalid(fmt.Errorf("two skills are named %s: %s and %s; a package holds one directory of a name", b.Name, a.Dir, b.Dir))
		}
	}
	return nil
}
