package target

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/store"
)

// SoleManifest returns the digest of the one manifest or index an OCI
// layout's index.json lists, as ko and crane write a layout with no tag;
// ok is false when it lists none or several, and a tag must choose.
func SoleManifest(layout string) (d digest.Digest, ok bool, err error) {
	if err := store.CheckIndexFile(layout); err != nil {
		return "", false, err
	}
	f, err := os.Open(filepath.Join(layout, ocispec.ImageIndexFile))
	if err != nil {
		return "", false, errdefs.IO(fmt.Errorf("OCI layout %s: %w", layout, err))
	}
	defer f.Close()
	var index ocispec.Index
	data, err := io.ReadAll(io.LimitReader(f, store.MaxIndexSize+1))
	if err != nil {
		return "", false, errdefs.IO(fmt.Errorf("OCI layout %s: %w", layout, err))
	}
	if len(data) > store.MaxIndexSize {
		return "", false, errdefs.Invalid(fmt.Errorf("OCI layout %s: %s is over %d bytes", layout, ocispec.ImageIndexFile, store.MaxIndexSize))
	}
	if err := json.Unmarshal(data, &index); err != nil {
		return "", false, errdefs.Invalid(fmt.Errorf("OCI layout %s: %s: %w", layout, ocispec.ImageIndexFile, err))
	}
	if len(index.Manifests) != 1 {
		return "", false, nil
	}
	d = index.Manifests[0].Digest
	if err := d.Validate(); err != nil {
		return "", false, errdefs.Invalid(fmt.Errorf("OCI layout %s: %s lists digest %q: %w", layout, ocispec.ImageIndexFile, d, err))
	}
	return d, true, nil
}
