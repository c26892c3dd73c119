package artifact

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"

	"github.com/stax-dev/stax/layers"
)

// fetchLog is a store that records the digests fetched from it.
type fetchLog struct {
	*memory.Store
	fetched []digest.Digest
}

func (f *fetchLog) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	f.fetched = append(f.fetched, desc.Digest)
	return f.Store.Fetch(ctx, desc)
}

// packed packs a package of the skills records into a memory store.
func packed(t *testing.T, records []SkillRecord) (store *fetchLog, cfg *Config, manifest, config ocispec.Descriptor) {
	t.Helper()
	ctx := context.Background()
	store = &fetchLog{Store: memory.New()}
	layer := []byte("not read")
	layerDesc := content.NewDescriptorFromBytes(layers.MediaTypeSkills, layer)
	if err := store.Push(ctx, layerDesc, strings.NewReader(string(layer))); err != nil {
		t.Fatal(err)
	}
	cfg = &Config{SpecVersion: SpecVersion, Kind: KindPackage, Name: "p", Version: "1.0.0", Skills: records}
	manifest, config, err := PackManifest(ctx, store, cfg, []ocispec.Descriptor{layerDesc}, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return store, cfg, manifest, config
}

const someDigest = digest.Digest("sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")

// A package just built is vetted with the config it was built from: only
// its manifest is read back, and the package is what Fetch reads.
func TestFetchBuiltReadsOnlyTheManifest(t *testing.T) {
	store, cfg, manifest, config := packed(t, []SkillRecord{{Name: "a", Path: "a", Digest: someDigest}})
	ctx := context.Background()
	built, err := FetchBuilt(ctx, store, manifest, cfg, config)
	if err != nil {
		t.Fatal(err)
	}
	if len(store.fetched) != 1 || store.fetched[0] != manifest.Digest {
		t.Errorf("FetchBuilt read %v, want only the manifest %s", store.fetched, manifest.Digest)
	}
	if built.Config != cfg {
		t.Errorf("FetchBuilt decoded a config of its own")
	}
	read, err := Fetch(ctx, store, manifest)
	if err != nil {
		t.Fatal(err)
	}
	if built.Skills == nil || read.Skills == nil || built.Skills.Digest != read.Skills.Digest || built.Manifest.Config.Digest != read.Manifest.Config.Digest ||
		len(built.Config.Skills) != len(read.Config.Skills) || built.Config.Skills[0] != read.Config.Skills[0] {
		t.Errorf("FetchBuilt: %+v, Fetch: %+v", built, read)
	}
}

// FetchBuilt refuses what Fetch refuses of a config, and a config that is
// not the one the manifest names.
func TestFetchBuiltChecksTheConfig(t *testing.T) {
	ctx := context.Background()
	store, cfg, manifest, config := packed(t, []SkillRecord{{Name: "a", Path: "a", Digest: someDigest}})
	other := *cfg
	other.Name = "q"
	otherDesc := config
	otherDesc.Digest = digest.FromString("another config")
	if _, err := FetchBuilt(ctx, store, manifest, &other, otherDesc); !errors.Is(err, ErrInvalidPackage) || !strings.Contains(err.Error(), "not the one built") {
		t.Errorf("another config: %v", err)
	}

	for _, tt := range []struct {
		name    string
		records []SkillRecord
		want    string
	}{
		{"traversal", []SkillRecord{{Name: "a", Path: "../a", Digest: someDigest}}, "cannot be a skill directory name"},
		{"twice", []SkillRecord{{Name: "a", Path: "a", Digest: someDigest}, {Name: "a", Path: "a", Digest: someDigest}}, "listed twice"},
		{"bad digest", []SkillRecord{{Name: "a", Path: "a", Digest: "sha256:zz"}}, "digest"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store, cfg, manifest, config := packed(t, tt.records)
			_, fetchErr := Fetch(ctx, store, manifest)
			_, err := FetchBuilt(ctx, store, manifest, cfg, config)
			if !errors.Is(err, ErrInvalidPackage) || !strings.Contains(err.Error(), tt.want) || fetchErr == nil || err.Error() != fetchErr.Error() {
				t.Errorf("FetchBuilt: %v; Fetch: %v; want both to say %q", err, fetchErr, tt.want)
			}
		})
	}
}
