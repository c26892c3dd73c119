package resolve

import (
	"context"
	"errors"
	"io"

	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/target"
)

// ReadLayer calls read with n's skills layer as t holds it, and returns
// nil only when read did and the whole layer matched its descriptor:
// what read left unread is read to check it.
func ReadLayer(ctx context.Context, n *Node, t *target.Target, read func(io.Reader) error) error {
	rc, err := n.Package.OpenSkills(ctx, t)
	if err != nil {
		return t.Explain(err)
	}
	defer rc.Close()
	if err := read(rc); err != nil {
		if _, rerr := io.Copy(io.Discard, rc); errors.Is(rerr, content.ErrMismatchedDigest) {
			err = rerr // the bytes are to blame for whatever read made of them
		}
		if errors.Is(err, content.ErrMismatchedDigest) {
			return t.Explain(err)
		}
		return err
	}
	if _, err := io.Copy(io.Discard, rc); err != nil {
		return t.Explain(err)
	}
	return nil
}
