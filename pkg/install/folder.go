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
	todo := make([]*staged, len(skills))
	for i := range skills {
		s := &skills[i]
		if err := layers.CheckName(s.Path); err != nil {
			return errdefs.Precondition(fmt.Errorf("skill from %s: %w", s.Package, err))
		}
		if s.Layer == nil {
			return fmt.Errorf("skill %s of %s: WriteFolder reads skills from their layer", s.Path, s.Package)
		}
		todo[i] = newStaged(s)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return errdefs.MarkLocal(err)
	}
	defer root.Close()
	// Once written, a skill is done: nothing is recorded of it.
	st := &stager{folder: root, staging: ".", buf: make([]byte, stageBufferSize), asPackaged: true, done: func(sk *staged) error {
		sk.writing = nil
		return nil
	}}
	return st.stage(ctx, todo, concurrency)
}
