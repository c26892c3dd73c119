package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Tags lists the tags of the local store at dir, sorted; a store that does
// not exist has none, and is not created. It reads the store as a layout,
// without its lock: a command writing into the store lists them to name
// the nearest to a mistyped one, and would wait for its own lock. The
// store replaces its index.json in one step, so the list is a whole one.
func Tags(ctx context.Context, dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, ocispec.ImageIndexFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	s, err := OpenLayoutReadOnly(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var tags []string
	err = s.Tags(ctx, "", func(page []string) error {
		tags = append(tags, page...)
		return nil
	})
	return tags, err
}
