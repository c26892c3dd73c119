package cache_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/internal/registrytest"
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

// A layer fetched ahead is asked for while the local store is being
// opened for writing, not once it is: opening it may wait (for another
// stax holding its lock, or, on a first run, for the store to be made
// and synced), and the request's round trip overlaps that wait. Here the
// test holds the store's lock, and the layer's request must still reach
// the registry; the fetch then stores the layer once the lock is let go.
func TestALayerIsAskedForWhileTheStoreIsOpened(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := packagetest.New(t)
	p.Publish("solo:1", "solo")
	g, err := resolve.Resolve(ctx, packagetest.Declared(t, p.Reg.Host+"/solo:1"), "", resolve.Options{Source: cache.New(p.Opener, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	n := g.Root
	layer := *n.Package.Skills

	asked := make(chan struct{})
	var once sync.Once
	p.Reg.AddFaults(registrytest.Rewrite(http.MethodGet, "/blobs/"+layer.Digest.String()+"$", func(_ *http.Request, _ int, _ http.Header, body []byte) []byte {
		once.Do(func() { close(asked) })
		return body
	}))
	holder, err := p.Opener.OpenLocal(ctx, reference.Reference{}, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := cache.New(p.Opener, nil)
	defer pkgs.Close()
	done := pkgs.FetchLayer(ctx, n.Target, layer)
	if done == nil {
		t.Fatal("no fetch ahead was started")
	}
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("the layer was not asked for while the store's lock was held")
	}
	holder.Close()
	<-done
	if err := pkgs.Close(); err != nil { // lets go of the store
		t.Fatal(err)
	}
	local, err := p.Opener.OpenLocal(ctx, reference.Reference{}, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if ok, err := local.Exists(ctx, layer); !ok || err != nil {
		t.Errorf("the layer was not stored once the lock was let go (%v)", err)
	}
}
