package target

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
)

// maxSuggestions bounds the tags a message about a missing one lists.
const maxSuggestions = 5

// OpenStored opens ref in the local store for reading without holding the
// store's lock, as an OCI layout is read: for a package read while the
// same command writes into the store (install, pull), which a shared lock
// held meanwhile would block. The store replaces its index.json in one
// step and never changes a blob, so such a reader sees a whole store.
func (o *Opener) OpenStored(ctx context.Context, ref reference.Reference) (*Target, error) {
	l, err := store.OpenLayoutReadOnly(ctx, o.StoreDir)
	if err != nil {
		why := fmt.Sprintf(" (%v)", err)
		if _, serr := os.Stat(o.StoreDir); errors.Is(serr, fs.ErrNotExist) {
			// Nothing was packed or pulled here yet: the tag is not
			// there, and the store's error, how to name an oci: layout,
			// is not the user's to read.
			why = fmt.Sprintf(": pack it with `stax pack -t %s`, or pull it", ref.Familiar())
		}
		return nil, errdefs.Invalid(fmt.Errorf("%s is not in the local store %s%s%s", ref.Familiar(), o.StoreDir, why, o.localTagHint(ctx, ref)))
	}
	return &Target{GraphTarget: l, Ref: ref, Kind: KindLocal, dir: l.Dir, close: l.Close, cache: o.Layout == "", packedHere: true}, nil
}

// OpenLocalTag opens ref, a name without a registry host, in the local
// store for reading, under the store's shared lock: a package built here
// (stax pack -t writes such a tag), which no registry has.
func (o *Opener) OpenLocalTag(ctx context.Context, ref reference.Reference) (*Target, error) {
	t, err := o.OpenLocal(ctx, ref, store.ReadOnly)
	if err != nil {
		return nil, err
	}
	t.packedHere = true
	return t, nil
}

// MissingLocalTag adds to err, the failure to find ref in the local store,
// the store's tags nearest to it and how to name a registry instead: a
// name without a registry host is a local tag, and a missing one is most
// likely mistyped.
func (o *Opener) MissingLocalTag(ctx context.Context, ref reference.Reference, err error) error {
	if errdefs.Of(err) != errdefs.InvalidArgument {
		return err
	}
	return fmt.Errorf("%w%s", err, o.localTagHint(ctx, ref))
}

func (o *Opener) localTagHint(ctx context.Context, ref reference.Reference) string {
	hint := "; a name without a registry host is a tag of the local store: write the host (docker.io/library/NAME for Docker Hub) to read a registry"
	tags, err := store.Tags(ctx, o.StoreDir)
	if err != nil {
		return hint
	}
	if near := store.Nearest(tags, store.Key(ref), maxSuggestions); len(near) > 0 {
		hint = "; the nearest local tags are " + strings.Join(near, ", ") + hint
	}
	return hint
}
