package store

import (
	"context"
	"io"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// fetchNothing fails the test if anything is fetched.
type fetchNothing struct{ t *testing.T }

func (f fetchNothing) Fetch(context.Context, ocispec.Descriptor) (io.ReadCloser, error) {
	f.t.Error("fetched a manifest over the size any stax manifest has")
	return nil, io.EOF
}

// A hostile layout's index may name a manifest of gigabytes: the graph of
// referrers does not read it, and takes it to refer to nothing.
func TestPredecessorsSkipAManifestOverTheLimit(t *testing.T) {
	t.Parallel()
	huge := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromString("huge"), Size: 8 << 30}
	g, err := buildPredecessors(context.Background(), fetchNothing{t}, []ocispec.Descriptor{huge})
	if err != nil || len(g.successors[huge.Digest]) != 0 {
		t.Errorf("a manifest over the limit: %v, successors %v", err, g.successors[huge.Digest])
	}
}
