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
// not exist has none, and is not created.
func Tags(ctx context.Context, dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, ocispec.ImageIndexFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	s, err := OpenLocal(ctx, dir, ReadOnly)
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
