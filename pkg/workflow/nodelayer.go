package workflow

import (
	"context"
	"fmt"
	"io"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/resolve"
)

// nodeLayer is n's skills layer as install reads it: opened only when
// one of n's winning skills must be written, once storing (when not nil)
// has stored n, bounded by maxSize and maxFiles (as in
// layers.ReadOptions) and verified against its descriptor, size and
// digest, as pull verifies it: an OCI layout's store does not check what
// it serves.
func nodeLayer(n *resolve.Node, storing *resolve.Storing, maxSize int64, maxFiles int) *install.Layer {
	l := &install.Layer{Name: n.Ref, Read: layers.ReadOptions{MaxSize: maxSize, MaxFiles: maxFiles}}
	// n.Target is read when a layer is explained, after Open: storing
	// moves n to the local store meanwhile, and the layer is read from
	// where n is then.
	l.Explain = func(err error) error { return n.Target.Explain(err) }
	if n.Package.Skills != nil {
		l.Read.Digest = n.Package.Skills.Digest
	}
	l.Open = func(ctx context.Context) (io.ReadCloser, error) {
		if n.Package.Skills == nil {
			return nil, errdefs.Precondition(fmt.Errorf("%s lists skills but has no skills layer", n.Ref))
		}
		if storing != nil {
			if err := storing.Stored(ctx, n); err != nil {
				return nil, err
			}
		}
		rc, err := n.Package.OpenSkills(ctx, n.Target)
		if err != nil {
			return nil, n.Target.Explain(err)
		}
		return rc, nil
	}
	return l
}
