package registrytest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/opencontainers/go-digest"
)

// CorruptStoredBlob flips the bits of byte at of blob dgst where the
// registry keeps it on disk, as a failing disk or a tampering operator
// would: the registry then serves the altered bytes under the old digest
// and size, to every client, from every repository linking the blob. It
// needs WithFilesystem; a negative at counts from the end of the blob.
func (r *Registry) CorruptStoredBlob(t testing.TB, dgst digest.Digest, at int64) {
	t.Helper()
	if r.root == "" {
		t.Fatal("registrytest: CorruptStoredBlob needs WithFilesystem")
	}
	if err := dgst.Validate(); err != nil {
		t.Fatalf("registrytest: %v", err)
	}
	// distribution's layout: blobs/ALGORITHM/FIRST-TWO-HEX/HEX/data.
	path := filepath.Join(r.root, "docker", "registry", "v2", "blobs",
		dgst.Algorithm().String(), dgst.Encoded()[:2], dgst.Encoded(), "data")
	if err := flipByte(path, at); err != nil {
		t.Fatalf("registrytest: corrupting blob %s: %v", dgst, err)
	}
}

func flipByte(path string, at int64) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if at < 0 {
		at += int64(len(data))
	}
	if at < 0 || at >= int64(len(data)) {
		return fmt.Errorf("byte %d is outside its %d bytes", at, len(data))
	}
	data[at] ^= 0xff
	return os.WriteFile(path, data, 0o644)
}
