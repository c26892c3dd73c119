package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"
)

// WriteBlob stores, in the OCI layout at dir, the blob write produces:
// write streams it into a file of the layout's ingest directory and
// returns its digest (computed as it wrote), and the file is then renamed
// into place. A blob whose digest is only known once written needs no
// copy in a temporary directory, and no second write. A file a killed
// run leaves in ingest is removed by the next writer of the store.
func WriteBlob(dir string, write func(io.Writer) (digest.Digest, error)) error {
	ingest := filepath.Join(dir, "ingest")
	if err := os.MkdirAll(ingest, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(ingest, "stax-blob-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // fails once renamed
	d, err := write(f)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return err
	}
	if err := d.Validate(); err != nil {
		return fmt.Errorf("store blob: %w", err)
	}
	target := filepath.Join(dir, "blobs", d.Algorithm().String(), d.Encoded())
	if _, err := os.Stat(target); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, target)
}
