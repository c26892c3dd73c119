package workflow

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/render"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/staxyaml"
)

// The SKILL argument of render, bump and show names a skill directory, or a
// skill by name inside a skills directory (--dir, else the skills
// directory of the package in the current directory). render also takes
// REF#name, a skill inside a package.

// packagedSeparator splits REF#name.
const packagedSeparator = "#"

// SkillDir finds the skill directory arg names: a directory holding a
// SKILL.md, or the name of a skill in skillsDir (empty: the skills
// directory of the package in the current directory).
func SkillDir(arg, skillsDir string) (string, error) {
	if hasSkillMD(arg) {
		return arg, nil
	}
	if arg == "." || arg == ".." || strings.ContainsAny(arg, `/\`) {
		if info, err := os.Stat(arg); err == nil && info.IsDir() {
			return "", errdefs.Invalid(fmt.Errorf("%s is not a skill directory: it has no %s", arg, skill.FileName))
		}
		return "", errdefs.Invalid(fmt.Errorf("%s: no such skill directory", arg))
	}
	skillsDir, err := SkillsDir(skillsDir)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(skillsDir, arg)
	if hasSkillMD(dir) {
		return dir, nil
	}
	names := SkillNames(skillsDir)
	hint := fmt.Sprintf("%s holds no skills", skillsDir)
	if len(names) > 0 {
		hint = fmt.Sprintf("skills in %s: %s", skillsDir, strings.Join(names, ", "))
	}
	return "", errdefs.Invalid(fmt.Errorf("no skill %q (%s); name a skill directory, or pass --dir", arg, hint))
}

// SkillsDir is dir, or when empty the skills directory of the package in
// the current directory.
func SkillsDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	p, err := staxyaml.Open(".")
	if err != nil {
		return "", err
	}
	return p.SkillsDir, nil
}

func hasSkillMD(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, skill.FileName))
	return err == nil && info.Mode().IsRegular()
}

// SkillNames lists the skill directories of a skills directory.
func SkillNames(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if hasSkillMD(filepath.Join(dir, e.Name())) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// skillFiles is the text of one skill: its SKILL.md and the stateful
// siblings at its top.
type skillFiles struct {
	SkillMD  []byte
	Siblings map[string][]byte
}

// readSkillDir reads SKILL.md and the siblings of a skill directory.
func readSkillDir(dir string) (*skillFiles, error) {
	s, err := render.ReadDir(dir)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	return &skillFiles{SkillMD: s.SkillMD, Siblings: s.Siblings}, nil
}

// splitPackaged splits REF#name; ok is false when arg has no "#".
func splitPackaged(arg string) (ref, name string, ok bool) {
	i := strings.LastIndex(arg, packagedSeparator)
	if i < 0 {
		return "", "", false
	}
	return arg[:i], arg[i+1:], true
}

// readPackagedSkill reads the SKILL.md and siblings of the skill in
// directory name of the package ref.
func (e *Env) readPackagedSkill(ctx context.Context, ref, name string, limits layers.Limits) (*skillFiles, error) {
	if name == "" || strings.Contains(name, "/") {
		return nil, errdefs.Invalid(fmt.Errorf("%s%s%s: name a skill directory after %s", ref, packagedSeparator, name, packagedSeparator))
	}
	// A skill to render is one already at hand: the local store or a layout.
	src, pkg, err := source.OpenPackage(ctx, ref, source.Options{Opener: e.Opener, Limits: limits, Scope: source.LocalOnly})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	files, err := src.ReadSkill(ctx, pkg, name)
	if err != nil {
		return nil, err
	}
	return &skillFiles{SkillMD: files.SkillMD, Siblings: files.Siblings}, nil
}
