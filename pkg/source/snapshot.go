package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/snapshot"
	"github.com/stax-dev/stax/pkg/stateful"
	"github.com/stax-dev/stax/pkg/target"
)

// Snapshot streams the skills layer of pkg through the safe layer reader,
// checking it against its digest and the source's MaxSize, and returns its
// skills' files and frontmatter. A failed download keeps the exit code of
// where it came from (3 for a registry); a layer that is unsafe, too
// large, corrupt or not what its digest says exits 6.
func (s *Source) Snapshot(ctx context.Context, pkg *artifact.Package) (*snapshot.Snapshot, error) {
	if pkg.Skills == nil {
		return snapshot.Empty(), nil
	}
	rc, err := pkg.OpenSkills(ctx, s)
	if err != nil {
		return nil, s.FetchError(err)
	}
	defer rc.Close()
	stream := &recordingReader{r: rc}
	snap, err := snapshot.Read(stream, layers.ReadOptions{Limits: s.opts.Limits, Digest: pkg.Skills.Digest})
	switch {
	case err == nil:
		return snap, nil
	case errors.Is(err, content.ErrMismatchedDigest):
		return nil, s.Explain(fmt.Errorf("read skills layer %s: %w", pkg.Skills.Digest, err))
	case stream.err != nil:
		return nil, s.FetchError(fmt.Errorf("read skills layer %s: %w", pkg.Skills.Digest, stream.err))
	}
	return nil, errdefs.With(layers.Class(err), fmt.Errorf("%s: read skills layer %s: %w", s.Name, pkg.Skills.Digest, err))
}

// FetchError says where a failed read of the source's content came from.
func (s *Source) FetchError(err error) error {
	if s.Kind == target.KindRemote {
		return s.Explain(err)
	}
	return errdefs.MarkLocal(fmt.Errorf("%s: %w", s.Name, err))
}

// recordingReader keeps the first error of the stream under a layer, so
// that a download that broke off is told apart from a bad archive: the
// layer reader reports both as a corrupt or truncated layer.
type recordingReader struct {
	r   io.Reader
	err error
}

func (r *recordingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && r.err == nil {
		r.err = err
	}
	return n, err
}

// Walk streams the skills layer of pkg through the safe layer reader,
// checked against its digest and the source's limits, calling fn for each
// entry. Nothing is extracted.
func (s *Source) Walk(ctx context.Context, pkg *artifact.Package, fn func(layers.Header, io.Reader) error) error {
	if pkg.Skills == nil {
		return nil
	}
	rc, err := pkg.OpenSkills(ctx, s)
	if err != nil {
		return s.FetchError(err)
	}
	defer rc.Close()
	err = layers.Walk(rc, layers.ReadOptions{Limits: s.opts.Limits, Digest: pkg.Skills.Digest}, fn)
	if errors.Is(err, content.ErrMismatchedDigest) {
		// Where the bytes came from says whose copy is corrupt.
		return s.Explain(fmt.Errorf("read skills layer %s: %w", pkg.Skills.Digest, err))
	}
	if err != nil {
		return errdefs.With(layers.Class(err), fmt.Errorf("%s: read skills layer %s: %w", s.Name, pkg.Skills.Digest, err))
	}
	return nil
}

// SkillFiles are the SKILL.md and the stateful siblings of one skill of a
// package, read from its layer.
type SkillFiles struct {
	SkillMD  []byte
	Siblings map[string][]byte
}

// ReadSkill reads the SKILL.md and stateful siblings of the skill in
// directory name of pkg. A package without that skill is an invalid
// argument, and the message lists the skills it has.
func (s *Source) ReadSkill(ctx context.Context, pkg *artifact.Package, name string) (*SkillFiles, error) {
	files := &SkillFiles{Siblings: map[string][]byte{}}
	err := s.Walk(ctx, pkg, func(h layers.Header, r io.Reader) error {
		dir, rest, nested := strings.Cut(h.Path, "/")
		if h.Dir || !nested || dir != name || (rest != skill.FileName && !stateful.IsSibling(rest)) {
			return nil
		}
		// The limits a skill's files are read with from a directory.
		limit := int64(stateful.MaxFileSize)
		if rest == skill.FileName {
			limit = skill.MaxFileSize
		}
		data, err := regularfile.ReadAll(r, h.Path, limit)
		if err != nil {
			return err
		}
		if rest == skill.FileName {
			files.SkillMD = data
		} else {
			files.Siblings[rest] = data
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if files.SkillMD == nil {
		var names []string
		for _, rec := range pkg.Config.Skills {
			names = append(names, rec.Path)
		}
		return nil, errdefs.Invalid(fmt.Errorf("%s has no skill %q; its skills: %s", s.Name, name, strings.Join(names, ", ")))
	}
	return files, nil
}
