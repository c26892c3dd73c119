package install

import (
	"context"
	"fmt"
	"os"
	"sync"

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
	_, err := writeFolder(ctx, dir, skills, concurrency, false, nil)
	return err
}

// WriteFolderFiles is WriteFolder, and says what it wrote of each skill,
// by its Path: the files, as a record holds them, hashed as they were
// written (stax mcp --package serves their digests without reading them
// again). Each skill's SkillFile keeps its SKILL.md, for the server to
// list the skills without reading them back.
//
// each, when set, is called with each skill as soon as all of it is
// written, with what the map returned holds of it, in the goroutine that
// extracted it and no lock held: the caller starts on a skill while the
// next are written, and hands long work on, as each holds up the
// extraction of its layer. It may change in, which WriteFolderFiles does
// not touch after; an error it returns ends the extraction. A nil each
// is none.
func WriteFolderFiles(ctx context.Context, dir string, skills []Skill, concurrency int, each func(path string, in *InstalledSkill) error) (map[string]*InstalledSkill, error) {
	return writeFolder(ctx, dir, skills, concurrency, true, each)
}

func writeFolder(ctx context.Context, dir string, skills []Skill, concurrency int, keepSkillFile bool, each func(string, *InstalledSkill) error) (map[string]*InstalledSkill, error) {
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
	// Nothing of the folder is shared but out: settled, not done, runs
	// each outside the stagers' settling lock.
	var mu sync.Mutex
	out := make(map[string]*InstalledSkill, len(skills))
	st := &stager{folder: root, staging: ".", buf: make([]byte, stageBufferSize), asPackaged: true, keepSkillFile: keepSkillFile, settled: func(sk *staged) error {
		s := sk.skill
		in := &InstalledSkill{Package: s.Package, PackageDigest: s.PackageDigest, PackageVersion: s.PackageVersion,
			Digest: s.Digest, Files: sk.files, Stat: sk.stat, SkillFile: sk.skillFile}
		sk.writing = nil
		mu.Lock()
		out[s.Path] = in
		mu.Unlock()
		if each == nil {
			return nil
		}
		return each(s.Path, in)
	}}
	if err := st.stage(ctx, todo, concurrency); err != nil {
		return nil, err
	}
	return out, nil
}
