package resolve

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/target"
)

// A layer is fetched ahead only when the package's check would let it
// through: a manifest of something else, with two skills layers, or with
// layers over the size limit or of a negative or overflowing size, has
// nothing fetched.
func TestNothingIsFetchedAheadThatTheCheckRefuses(t *testing.T) {
	t.Parallel()
	layer := func(mediaType string, size int64) ocispec.Descriptor {
		return ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromString(mediaType + string(rune(size))), Size: size}
	}
	skills := func(size int64) ocispec.Descriptor { return layer(layers.MediaTypeSkills, size) }
	pkg := func(ls ...ocispec.Descriptor) ocispec.Manifest {
		return ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: artifact.ArtifactTypePackage,
			Config: ocispec.Descriptor{MediaType: artifact.MediaTypeConfig, Digest: digest.FromString("config"), Size: 6}, Layers: ls}
	}
	image := pkg(skills(10))
	image.ArtifactType, image.Config.MediaType = "", ocispec.MediaTypeImageConfig
	tests := map[string]ocispec.Manifest{
		"not a package":           image,
		"two skills layers":       pkg(skills(10), skills(11)),
		"over the limit":          pkg(skills(101)),
		"over the limit together": pkg(skills(60), layer("application/octet-stream", 60)),
		"negative size":           pkg(skills(-1)),
		"overflowing sizes":       pkg(skills(10), layer("application/octet-stream", math.MaxInt64)),
	}
	tests["a package within the limit (fetched)"] = pkg(skills(60), layer("application/octet-stream", 40))
	for name, m := range tests {
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		desc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, raw)
		held := holdBlobs(nil)
		if _, err := held.keep(desc, bytes.NewReader(raw)); err != nil {
			t.Fatal(err)
		}
		_, fetched := layerAhead(&looked{t: &target.Target{Kind: target.KindRemote}, desc: desc, held: held}, 100)
		if want := strings.HasSuffix(name, "(fetched)"); fetched != want {
			t.Errorf("%s: fetched ahead %v, want %v", name, fetched, want)
		}
	}
}
