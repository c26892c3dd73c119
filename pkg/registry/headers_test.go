package registry_test

import (
	"context"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/memory"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
)

// A password can be a word a registry also uses in its URLs. The headers
// a client acts on, a redirect's Location and a challenge's realm, are
// followed as the registry sent them, whatever secrets they happen to
// hold: a pull succeeds.
func TestPullFollowsHeadersHoldingThePassword(t *testing.T) {
	t.Parallel()
	const user, password = "ci-bot", "storage"
	for _, tt := range []struct {
		name  string
		opts  []registrytest.Option
		repos []string
	}{
		// Blob GETs redirected to /storage/…, as to a blob store.
		{"redirect", []registrytest.Option{registrytest.WithBasicAuth(user, password), registrytest.WithBlobRedirect(password)}, []string{"team/skills"}},
		// The second repository's challenge comes after the password was
		// sent, and names the realm /storage/token.
		{"realm", []registrytest.Option{registrytest.WithTokenAuth(user, password), registrytest.WithTokenRealm("/" + password + "/token")}, []string{"team/skills", "team/tools"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := registrytest.New(t, tt.opts...)
			config := writeConfig(t, reg.Host, basicEntry(user, password))
			ctx := context.Background()
			for _, name := range tt.repos {
				pushArtifact(t, reg.Host+"/"+name+":1", config)
			}
			c, err := registry.New(registry.Options{RegistryConfig: config})
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range tt.repos {
				ref, err := reference.Parse(reg.Host + "/" + name + ":1")
				if err != nil {
					t.Fatal(err)
				}
				repo, err := c.Repository(ref)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := oras.Copy(ctx, repo, "1", memory.New(), "1", oras.DefaultCopyOptions); err != nil {
					t.Fatalf("pull %s: %v", name, registry.Explain(err, reg.Host, ref.String()))
				}
			}
		})
	}
}

// pushArtifact pushes a manifest with a config and a layer to ref, with a
// client of its own reading config.
func pushArtifact(t *testing.T, ref, config string) {
	t.Helper()
	c, err := registry.New(registry.Options{RegistryConfig: config})
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := reference.Parse(ref)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := c.Repository(parsed)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	layer, err := oras.PushBytes(ctx, repo, "application/vnd.test.layer", []byte("a layer of "+ref))
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "application/vnd.test.artifact",
		oras.PackManifestOptions{Layers: []ocispec.Descriptor{layer}})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag(ctx, manifest, parsed.Tag); err != nil {
		t.Fatal(err)
	}
}
