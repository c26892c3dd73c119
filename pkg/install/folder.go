package install

import (
	"context"
	"fmt"
	"os"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// WriteFolder writes skills, each read from its Layer, into dir, an empty
// directory, as their packages hold them: a folder with no record, which
// no runtime reads (stax pull -o). It is the extraction an install
// stages skills with: each layer is read once, up to concurrency at once
// (0 is layers.ExtractWorkers()), only the entries of skills are written,
// and each skill must hash to its Digest. On an error, dir holds part of
// the skills: the caller stages it (see scratch.Stage).
func WriteFolder(ctx context.Context, dir string, skills []Skill, concurrency int) error {
	_, err := writeFolder(ctx, dir, skills, concurrency, false)
	return err
}

// WriteFolderFiles is WriteFolder, and says what it wrote of each skill,
// by its Path: the files, as a record holds them, hashed as they were
// written (stax mcp --package serves their digests without reading them
// again). Each skill's SkillFile keeps its SKILL.md, for the server to
// list the skills without reading them back.
func WriteFolderFiles(ctx context.Context, dir string, skills []Skill, concurrency int) (map[string]*InstalledSkill, error) {
	return writeFolder(ctx, dir, skills, concurrency, true)
}

func writeFolder(ctx context.Context, dir string, skills []Skill, concurrency int, keepSkillFile bool) (map[string]*InstalledSkill, error) {
	todo := make([]*staged, len(skills))
	for i := range skills {
		s := &skills[i]
		if err := layers.CheckName(s.Path); err != nil {
			return nil, errdefs.Precondition(fmt.Errorf("skill from %s: %w", s.Package, err))
		}
		if s.Layer == nil {
			return nil, fmt.Errorf("skill %s of %s: WriteFolder reads skills from their layer", s.Path, s.Package)
		}
		todo[i] = newStaged(s)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, errdefs.MarkLocal(err)
	}
	defer root.Close()
	// Once written, a skill is done: its files are kept, nothing else.
	// done is called under the stager's settling lock.
	out := make(map[string]*InstalledSkill, len(skills))
	st := &stager{folder: root, staging: ".", buf: make([]byte, stageBufferSize), asPackaged: true, keepSkillFile: keepSkillFile, done: func(sk *staged) error {
		s := sk.skill
		out[s.Path] = &InstalledSkill{Package: s.Package, PackageDigest: s.PackageDigest, PackageVersion: s.PackageVersion,
			Digest: s.Digest, Files: sk.files, Stat: sk.stat, SkillFile: sk.skillFile}
		sk.writing = nil
		return nil
	}}
	if err := st.stage(ctx, todo, concurrency); err != nil {
		return nil, err
	}
	return out, nil
}
