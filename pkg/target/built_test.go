package target_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/target"
)

// A package built into a temporary layout is read from it until the
// target is closed, which removes the layout; a build that fails leaves
// no layout behind.
func TestOpenBuiltLeavesNothing(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx := context.Background()
	o := &target.Opener{StoreDir: t.TempDir()}
	blob := []byte(`{"schemaVersion":2}`)
	desc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, blob)

	failed := errors.New("the build fails")
	if _, err := o.OpenBuilt(ctx, "test", func(content.Pusher) (ocispec.Descriptor, error) { return ocispec.Descriptor{}, failed }); !errors.Is(err, failed) {
		t.Fatalf("a failed build: %v, want its error", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("a failed build left %v", left)
	}

	built, err := o.OpenBuilt(ctx, "test", func(p content.Pusher) (ocispec.Descriptor, error) {
		return desc, p.Push(ctx, desc, bytes.NewReader(blob))
	})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := built.Exists(ctx, desc); !ok || err != nil {
		t.Errorf("the built package is not read from its layout (%v)", err)
	}
	if err := built.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("closing the built package left %v", left)
	}
}
