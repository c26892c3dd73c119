package resolve

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/exitcode"
	"github.com/stax-dev/stax/pkg/target"
)

// recordLayerSkills fills in the skill records of a package whose config
// lists none though it has a skills layer, as other stax writers' packages
// do: merging is keyed by those records, so they are read off the layer.
func recordLayerSkills(ctx context.Context, t *target.Target, pkg *artifact.Package, maxSize int64) error {
	if pkg.Skills == nil || len(pkg.Config.Skills) > 0 {
		return nil
	}
	rc, err := t.Fetch(ctx, *pkg.Skills)
	if err != nil {
		return t.Explain(err)
	}
	defer rc.Close()
	var files []layers.FileDigest
	err = layers.Walk(rc, layers.ReadOptions{MaxSize: maxSize, Digest: pkg.Skills.Digest}, func(h layers.Header, r io.Reader) error {
		if h.Dir {
			return nil
		}
		hash := sha256.New()
		if _, err := io.Copy(hash, r); err != nil {
			return err
		}
		files = append(files, layers.FileDigest{Path: h.Path, Executable: h.Executable, Size: h.Size, Digest: digest.NewDigest(digest.SHA256, hash)})
		return nil
	})
	if err != nil {
		return exitcode.Wrap(exitcode.Materialization, fmt.Errorf("read the skills layer of %s: %w", t.Name(), err))
	}
	digests := layers.SkillDigests(files)
	for _, dir := range slices.Sorted(maps.Keys(digests)) {
		pkg.Config.Skills = append(pkg.Config.Skills, artifact.SkillRecord{Name: dir, Path: dir, Digest: digests[dir]})
	}
	pkg.Notices = append(pkg.Notices, fmt.Sprintf("%s lists no skills in its config; %d read from its layer (%s)",
		t.Name(), len(digests), strings.Join(slices.Sorted(maps.Keys(digests)), ", ")))
	return nil
}
