package install

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// deadline bounds how long a test waits for a signal that a serial run
// never gives: reaching it fails the test rather than hanging it.
const deadline = 10 * time.Second

// gate is a rendezvous of layers: each layer opened through it waits
// until n of them are open at once.
type gate struct {
	mu   sync.Mutex
	open int
	n    int
	all  chan struct{}
}

func newGate(n int) *gate { return &gate{n: n, all: make(chan struct{})} }

// wrap makes l's Open wait at the gate.
func (g *gate) wrap(l *Layer) {
	open := l.Open
	l.Open = func(ctx context.Context, read func(io.Reader) error) error {
		g.mu.Lock()
		if g.open++; g.open == g.n {
			close(g.all)
		}
		g.mu.Unlock()
		select {
		case <-g.all:
			return open(ctx, read)
		case <-time.After(deadline):
			return errors.New("layers were opened one after another, never two at once")
		}
	}
}

// Layers are extracted at once: the install completes only if the two
// layers are open at the same time, and stages both.
func TestInstallExtractsLayersConcurrently(t *testing.T) {
	t.Parallel()
	la, da, _ := testLayer(t, map[string]string{"a": "a\n"})
	lb, db, _ := testLayer(t, map[string]string{"b": "b ${STAX_SKILL_DIR}\n"})
	la.Name, lb.Name = "pa", "pb"
	g := newGate(2)
	g.wrap(la)
	g.wrap(lb)
	dir, locks := filepath.Join(t.TempDir(), "skills"), t.TempDir()
	skills := []Skill{
		{Path: "a", Layer: la, Package: "pa", Digest: da["a"]},
		{Path: "b", Layer: lb, Package: "pb", Digest: db["b"]},
	}
	res, err := Install(context.Background(), skills, Options{Dir: dir, LockDir: locks, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Installed, []string{"a", "b"}) {
		t.Errorf("installed %v, want [a b]", res.Installed)
	}
	data, err := os.ReadFile(filepath.Join(dir, "b", "SKILL.md"))
	if err != nil || string(data) != "b "+filepath.Join(dir, "b")+"\n" {
		t.Errorf("b/SKILL.md = %q (%v)", data, err)
	}
}

// Of layers failing at once, the error reported is the first layer's, as
// a serial install reports it, even when a later layer fails first; and
// nothing is left in the folder.
func TestInstallReportsTheFirstLayersErrorWhenExtractingAtOnce(t *testing.T) {
	t.Parallel()
	first, second := errors.New("the first layer's failure"), errors.New("the third layer's failure")
	var ls []*Layer
	var skills []Skill
	for _, name := range []string{"a", "b", "c"} {
		l, d, _ := testLayer(t, map[string]string{name: name + "\n"})
		l.Name = "p" + name
		ls = append(ls, l)
		skills = append(skills, Skill{Path: name, Layer: l, Package: l.Name, Digest: d[name]})
	}
	thirdFailed := make(chan struct{})
	ls[0].Open = func(context.Context, func(io.Reader) error) error {
		select {
		case <-thirdFailed:
			return first
		case <-time.After(deadline):
			return errors.New("the third layer was not opened while the first was")
		}
	}
	ls[2].Open = func(context.Context, func(io.Reader) error) error {
		defer close(thirdFailed)
		return second
	}
	parent := t.TempDir()
	dir, locks := filepath.Join(parent, "skills"), t.TempDir()
	_, err := Install(context.Background(), skills, Options{Dir: dir, LockDir: locks, Concurrency: 3})
	if !errors.Is(err, first) {
		t.Fatalf("err = %v, want the first layer's", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("a failed install left %v", entries)
	}
}

// A layer that does not verify fails the install while the others are
// extracted beside it, and the staged skills of all of them are removed.
func TestInstallDiscardsEveryLayersSkillsWhenOneDoesNotVerify(t *testing.T) {
	t.Parallel()
	la, da, _ := testLayer(t, map[string]string{"a": "a\n"})
	lb, db, _ := testLayer(t, map[string]string{"b": "b\n"})
	la.Name, lb.Name = "pa", "pb"
	lb.Read.Digest = da["a"] // not the layer's
	g := newGate(2)
	g.wrap(la)
	g.wrap(lb)
	parent := t.TempDir()
	dir, locks := filepath.Join(parent, "skills"), t.TempDir()
	skills := []Skill{
		{Path: "a", Layer: la, Package: "pa", Digest: da["a"]},
		{Path: "b", Layer: lb, Package: "pb", Digest: db["b"]},
	}
	_, err := Install(context.Background(), skills, Options{Dir: dir, LockDir: locks, Concurrency: 2})
	if errdefs.Of(err) != errdefs.DataLoss {
		t.Fatalf("err = %v, want class %v", err, errdefs.DataLoss)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("a failed install left %v", entries)
	}
}

// Layers are extracted as they become ready, not in their order: with
// one worker, the first layer is ready only once the second has been
// opened, as when the second package is stored first; an install taking
// the layers in order would wait for the first for ever.
func TestInstallExtractsTheLayerReadyFirst(t *testing.T) {
	t.Parallel()
	la, da, _ := testLayer(t, map[string]string{"a": "a\n"})
	lb, db, _ := testLayer(t, map[string]string{"b": "b\n"})
	la.Name, lb.Name = "pa", "pb"
	opened := make(chan struct{})
	openB := lb.Open
	lb.Open = func(ctx context.Context, read func(io.Reader) error) error {
		close(opened)
		return openB(ctx, read)
	}
	// As an install's reader does, the first layer's Open waits for it
	// to be ready too.
	waitB := func(context.Context) error {
		select {
		case <-opened:
			return nil
		case <-time.After(deadline):
			return errors.New("the second layer was never extracted before the first was ready")
		}
	}
	openA := la.Open
	la.Open = func(ctx context.Context, read func(io.Reader) error) error {
		if err := waitB(ctx); err != nil {
			return err
		}
		return openA(ctx, read)
	}
	la.Ready = waitB
	lb.Ready = func(context.Context) error { return nil }
	dir, locks := filepath.Join(t.TempDir(), "skills"), t.TempDir()
	skills := []Skill{
		{Path: "a", Layer: la, Package: "pa", Digest: da["a"]},
		{Path: "b", Layer: lb, Package: "pb", Digest: db["b"]},
	}
	res, err := Install(context.Background(), skills, Options{Dir: dir, LockDir: locks, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Installed, []string{"a", "b"}) {
		t.Errorf("installed %v, want [a b]", res.Installed)
	}
}
