package cache_test

import (
	"context"
	"testing"

	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/store"
)

// Packages closed start no fetch ahead: nothing would wait for it, and
// the local store it opened would stay locked.
func TestNoLayerIsFetchedAheadOnceClosed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := packagetest.New(t)
	p.Publish("solo:1", "solo")
	g, err := resolve.Resolve(ctx, packagetest.Declared(t, p.Reg.Host+"/solo:1"), "", resolve.Options{Source: cache.New(p.Opener, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	n := g.Root

	pkgs := cache.New(p.Opener, nil)
	if err := pkgs.Close(); err != nil {
		t.Fatal(err)
	}
	if done := pkgs.FetchLayer(ctx, n.Target, *n.Package.Skills); done != nil {
		<-done
		t.Error("a fetch ahead started once the packages were closed")
	}
	local, err := p.Opener.OpenLocal(ctx, reference.Reference{}, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if ok, err := local.Exists(ctx, *n.Package.Skills); ok || err != nil {
		t.Errorf("the layer was fetched into the store (%v)", err)
	}
}
