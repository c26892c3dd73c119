package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Tags lists the tags of the local store at dir, sorted; a store that does
// not exist has none, and is not created. It reads the store as a layout,
// without its lock: a command writing into the store lists them to name
// the nearest to a mistyped one, and would wait for its own lock. The
// store replaces its index.json in one step, so the list is a whole one;
// it is read an entry at a time, and no manifest is read.
func Tags(ctx context.Context, dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, ocispec.ImageIndexFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var tags []string
	err := ReadIndexFile(dir, func(desc ocispec.Descriptor) error {
		if ref := desc.Annotations[ocispec.AnnotationRefName]; ref != "" {
			tags = append(tags, ref)
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(tags)
	return slices.Compact(tags), nil
}
