package target

import (
	"errors"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/pkg/store"
)

// SoleManifest returns the digest of the one manifest or index an OCI
// layout's index.json lists, as ko and crane write a layout with no tag;
// ok is false when it lists none or several, and a tag must choose.
func SoleManifest(layout string) (d digest.Digest, ok bool, err error) {
	var entries int
	errSeveral := errors.New("several manifests")
	err = store.ReadIndexFile(layout, func(desc ocispec.Descriptor) error {
		if entries++; entries > 1 {
			return errSeveral
		}
		d = desc.Digest
		return nil
	})
	switch {
	case errors.Is(err, errSeveral):
		return "", false, nil
	case err != nil:
		return "", false, err
	case entries != 1:
		return "", false, nil
	}
	return d, true, nil
}
