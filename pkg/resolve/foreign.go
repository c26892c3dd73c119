package resolve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"oras.land/oras-go/v2/errdef"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/snapshot"
	"github.com/stax-dev/stax/pkg/target"
)

// recordLayerSkills fills in the skill records of a package whose config
// lists none though it has a skills layer, as other stax writers' packages
// do: merging is keyed by those records, so they are read off the layer.
func recordLayerSkills(ctx context.Context, t *target.Target, pkg *artifact.Package, limits layers.Limits) error {
	if pkg.Skills == nil || len(pkg.Config.Skills) > 0 {
		return nil
	}
	rc, err := pkg.OpenSkills(ctx, t)
	if err != nil {
		return t.Explain(err)
	}
	defer rc.Close()
	snap, err := snapshot.Read(rc, layers.ReadOptions{Limits: limits, Digest: pkg.Skills.Digest})
	if err != nil {
		return errdefs.With(layers.Class(err), fmt.Errorf("read the skills layer %s of %s: %w", pkg.Skills.Digest, t.Name(), err))
	}
	pkg.Config.Skills = snap.Records()
	pkg.Notices = append(pkg.Notices, fmt.Sprintf("%s lists no skills in its config; %d read from its layer (%s)",
		t.Name(), len(snap.Skills), strings.Join(snap.Dirs(), ", ")))
	return nil
}

// missingDependency gives a dependency a registry does not have the class
// of a package that cannot be resolved: the registry answered, and what
// the depending package names is not there.
func missingDependency(err error) error {
	if errors.Is(err, errdef.ErrNotFound) {
		return errdefs.Reclassify(errdefs.Unresolved, err)
	}
	return err
}
