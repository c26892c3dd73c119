// Package packagetest builds stax packages and publishes them to a real
// registry (internal/registrytest), for the tests of the packages that
// resolve, publish and mirror them.
package packagetest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// Publisher builds package directories and pushes them to a real registry.
type Publisher struct {
	t      *testing.T
	Reg    *registrytest.Registry
	Opener *target.Opener
}

// New starts a registry for t, and an opener with a store of its own.
func New(t *testing.T) *Publisher {
	client, err := registry.New(registry.Options{RegistryConfig: filepath.Join(t.TempDir(), "config.json")})
	if err != nil {
		t.Fatal(err)
	}
	return &Publisher{t: t, Reg: registrytest.New(t), Opener: &target.Opener{StoreDir: filepath.Join(t.TempDir(), "store"), Registry: client}}
}

// Publish writes a package with one skill saying body and the given
// dependencies, builds it for publishing and pushes it as repo:tag.
func (p *Publisher) Publish(repoTag, body string, deps ...string) digest.Digest {
	t, ctx := p.t, context.Background()
	t.Helper()
	dir := t.TempDir()
	def := "name: pkg\nversion: 1.0.0\n"
	if len(deps) > 0 {
		def += "packages:\n"
		for _, d := range deps {
			def += "  - " + d + "\n"
		}
	}
	filetest.WriteFile(t, filepath.Join(dir, staxyaml.FileName), def)
	// A skill name has no dots, which a version tag has.
	skill := "s-" + strings.NewReplacer("/", "-", ":", "-", ".", "-").Replace(repoTag)
	filetest.WriteFile(t, filepath.Join(dir, "skills", skill, "SKILL.md"),
		"---\nname: "+skill+"\ndescription: A skill. Use when testing resolution.\n---\n"+body+"\n")
	proj, err := staxyaml.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := store.OpenLayout(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res, err := pack.Project(ctx, proj, layout, resolve.Dependencies(resolve.Options{Source: cache.New(p.Opener, nil)}), pack.Options{Publish: true})
	if err != nil {
		t.Fatal(err)
	}
	src, err := p.Opener.Open(ctx, reference.Reference{Layout: layout.Dir, Digest: res.Descriptor.Digest}, store.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := p.Opener.Open(ctx, p.Ref(repoTag), store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := transfer.Copy(ctx, src, dst, transfer.Options{}); err != nil {
		t.Fatal(err)
	}
	return res.Descriptor.Digest
}

// Ref is repoTag on the registry.
func (p *Publisher) Ref(repoTag string) reference.Reference {
	ref, err := reference.Parse(p.Reg.Host + "/" + repoTag)
	if err != nil {
		p.t.Fatal(err)
	}
	return ref
}

// Resolve resolves repoTags on the registry, with pins.
func (p *Publisher) Resolve(pins map[string]digest.Digest, repoTags ...string) (*resolve.Graph, error) {
	decls := make([]string, len(repoTags))
	for i, rt := range repoTags {
		decls[i] = p.Reg.Host + "/" + rt
	}
	return resolve.Resolve(context.Background(), Declared(p.t, decls...), "", resolve.Options{Source: cache.New(p.Opener, nil), Pins: pins})
}

// Declared are written, declarations of the command line, parsed as
// resolving takes them; one that does not parse fails the test.
func Declared(t testing.TB, written ...string) []declaration.Declaration {
	t.Helper()
	decls, err := declaration.ParseAll(written, declaration.Where{})
	if err != nil {
		t.Fatal(err)
	}
	return decls
}
