package workflow

import (
	"context"
	"fmt"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
)

// isLocalTag reports whether text, which parsed as ref, is a name without
// a registry host: a tag of the local store, never a Docker Hub request.
func isLocalTag(text string, ref reference.Reference) bool {
	return !ref.IsLayout() && !reference.NamesHost(text)
}

// checkDestination refuses to publish to a name without a registry host:
// such a name is a tag of the local store, which pack writes, and the
// user who meant Docker Hub writes its host.
func checkDestination(text string, ref reference.Reference) error {
	if !isLocalTag(text, ref) {
		return nil
	}
	return errdefs.Invalid(fmt.Errorf("%s names no registry: a name without a registry host is a tag of the local store (stax pack -t %s writes one); write the registry's host, such as docker.io/%s for Docker Hub",
		text, text, text))
}

// openCopySource opens the source of a copy: a name without a registry
// host in the local store (with its nearest tags when it is not there),
// anything else where it names.
func (e *Env) openCopySource(ctx context.Context, text string, ref reference.Reference) (*target.Target, error) {
	if !isLocalTag(text, ref) {
		return e.Opener.Open(ctx, ref, store.ReadOnly)
	}
	t, err := e.Opener.OpenStored(ctx, ref)
	if err != nil {
		return nil, err
	}
	if _, err := t.Lookup(ctx); err != nil {
		t.Close()
		return nil, e.Opener.MissingLocalTag(ctx, ref, err)
	}
	return t, nil
}
