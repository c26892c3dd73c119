package merge_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/resolve"
)

// deadline bounds how long a test waits for a signal that a serial run
// never gives: reaching it fails the test rather than hanging it.
const deadline = 10 * time.Second

// gatedLayers reads each package's layer from its target once every
// package in want is reading its own: it fails, after the deadline, when
// they are read one after another. fail, when set, is each package's
// failure instead, returned once the others are reading; last's failure
// is returned only once another package's was.
type gatedLayers struct {
	mu      sync.Mutex
	reading map[string]bool
	want    int
	all     chan struct{}
	fail    map[string]error
	last    string
	failed  chan struct{}
	once    sync.Once
}

func newGatedLayers(want int) *gatedLayers {
	return &gatedLayers{reading: map[string]bool{}, want: want, all: make(chan struct{}), failed: make(chan struct{})}
}

func (g *gatedLayers) ReadLayer(ctx context.Context, n *resolve.Node, read func(io.Reader) error) error {
	g.mu.Lock()
	g.reading[n.Ref] = true
	if len(g.reading) == g.want {
		close(g.all)
	}
	g.mu.Unlock()
	select {
	case <-g.all:
	case <-time.After(deadline):
		return errors.New("layers were read one after another, never all at once")
	}
	err := g.fail[n.Ref]
	switch {
	case err == nil:
	case n.Ref == g.last:
		select {
		case <-g.failed:
		case <-time.After(deadline):
			return errors.New("no other package failed while " + n.Ref + " was read")
		}
		return err
	default:
		defer g.once.Do(func() { close(g.failed) })
		return err
	}
	return resolve.ReadLayer(ctx, n, n.Target, read)
}

// The packages' layers are extracted at once, and every winning skill
// lands.
func TestMaterializeExtractsLayersConcurrently(t *testing.T) {
	t.Parallel()
	root := layered(t)
	g := resolveDirs(t, root, "./org", "./team")
	dest := filepath.Join(t.TempDir(), "skills")
	err := merge.Merge(g.Order).Materialize(context.Background(), dest, merge.Options{Layers: newGatedLayers(2), Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"org-own", "shared", "team-own"} {
		if _, err := os.Stat(filepath.Join(dest, want, "SKILL.md")); err != nil {
			t.Errorf("skill %s: %v", want, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dest, "shared", "references")); !os.IsNotExist(err) {
		t.Errorf("the losing package's file of shared landed (%v)", err)
	}
}

// Of layers failing at once, the error is the one a serial run reports:
// the first package's in order (org, whose skill org-own sorts first),
// though team's failed before it; and nothing lands beside or at dest.
func TestMaterializeReportsTheFirstPackagesErrorWhenExtractingAtOnce(t *testing.T) {
	t.Parallel()
	root := layered(t)
	g := resolveDirs(t, root, "./org", "./team")
	first, second := errors.New("org's failure"), errors.New("team's failure")
	layers := newGatedLayers(2)
	layers.fail = map[string]error{"./org": first, "./team": second}
	layers.last = "./org"
	parent := t.TempDir()
	dest := filepath.Join(parent, "skills")
	err := merge.Merge(g.Order).Materialize(context.Background(), dest, merge.Options{Layers: layers, Concurrency: 2})
	if !errors.Is(err, first) {
		t.Fatalf("err = %v, want org's", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("a failed merge left %v", entries)
	}
}
