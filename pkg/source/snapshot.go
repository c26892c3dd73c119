package source

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/snapshot"
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
	snap, err := snapshot.Read(stream, layers.ReadOptions{MaxSize: s.opts.MaxSize, MaxFiles: s.opts.MaxFiles, Digest: pkg.Skills.Digest})
	switch {
	case err == nil:
		return snap, nil
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
	return errdefs.IO(fmt.Errorf("%s: %w", s.Name, err))
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
