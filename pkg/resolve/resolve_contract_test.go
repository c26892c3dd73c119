package resolve_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/target"
)

// resolveErr resolves sources of s and returns the error.
func resolveErr(t *testing.T, s graphSpec, sources ...string) error {
	t.Helper()
	root := t.TempDir()
	s.write(t, root)
	g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, sources...), root, resolve.Options{Source: cache.New(&target.Opener{StoreDir: t.TempDir()}, nil)})
	if err == nil {
		g.Close()
	}
	return err
}

func TestResolveRefusesCycles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		deps    map[string][]string
		sources []string
		cycle   string
	}{
		{"two packages", map[string][]string{"a": {"b"}, "b": {"a"}}, []string{"./a"}, "dependency cycle: ./a → ../b → ../a"},
		{"three packages", map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"b"}}, []string{"./a"}, "dependency cycle: ../b → ../c → ../b"},
		{"itself", map[string][]string{"a": {"a"}}, []string{"./a"}, "dependency cycle: ./a → ../a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := resolveErr(t, graphSpec{deps: tt.deps}, tt.sources...)
			if err == nil || !strings.Contains(err.Error(), tt.cycle) {
				t.Errorf("Resolve: %v, want %q", err, tt.cycle)
			}
		})
	}
	// A diamond visits one package twice, which is no cycle.
	if err := resolveErr(t, graphSpec{deps: map[string][]string{"top": {"l", "r"}, "l": {"base"}, "r": {"base"}}}, "./top"); err != nil {
		t.Errorf("diamond: %v", err)
	}
}

func TestResolveDepthLimit(t *testing.T) {
	t.Parallel()
	// chain(n) is n packages, each depending on the next.
	chain := func(n int) graphSpec {
		deps := map[string][]string{}
		for i := 0; i < n-1; i++ {
			deps[fmt.Sprintf("p%02d", i)] = []string{fmt.Sprintf("p%02d", i+1)}
		}
		return graphSpec{deps: deps}
	}
	if err := resolveErr(t, chain(resolve.MaxDepth), "./p00"); err != nil {
		t.Errorf("a chain of %d packages: %v", resolve.MaxDepth, err)
	}
	err := resolveErr(t, chain(resolve.MaxDepth+1), "./p00")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("packages nest deeper than %d: ./p00 → ../p01 →", resolve.MaxDepth)) ||
		!strings.HasSuffix(err.Error(), fmt.Sprintf("../p%02d", resolve.MaxDepth)) {
		t.Errorf("a chain of %d packages: %v, want the depth error with the whole path", resolve.MaxDepth+1, err)
	}
}

func TestResolveMissing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		decl, want string
	}{
		{"./nowhere", "no package directory at"},
		{"oci:" + filepath.Join(t.TempDir(), "no-layout") + ":1", "no OCI layout at"},
	}
	for _, tt := range tests {
		if err := resolveErr(t, graphSpec{}, tt.decl); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Resolve(%s): %v, want %q", tt.decl, err, tt.want)
		}
	}
}

// A tag that moved between the publishing of a package that depends on
// it and now resolves to two digests: the error names both, with the
// path to each, and says how to pin one.
func TestResolveConflictNamesBothDigests(t *testing.T) {
	t.Parallel()
	p := packagetest.New(t)
	old := p.Publish("base:1", "first")
	p.Publish("team:1", "team", p.Reg.Host+"/base:1")
	moved := p.Publish("base:1", "second")
	if old == moved {
		t.Fatal("the two base packages have one digest")
	}
	base := p.Reg.Host + "/base:1"

	_, err := p.Resolve(nil, "team:1", "base:1")
	if err == nil {
		t.Fatal("Resolve: no conflict")
	}
	for _, want := range []string{
		base + " resolves to two digests",
		old.String() + " via " + p.Reg.Host + "/team:1 → " + base + "@" + old.String(),
		moved.String() + " via " + base,
		"pin one of them in stax.yaml, e.g. " + base + "@" + old.String(),
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("conflict error lacks %q:\n%v", want, err)
		}
	}

	// The tag alone resolves to where it is now; pinned, to the pin.
	for _, tt := range []struct {
		pins map[string]digest.Digest
		want digest.Digest
	}{
		{nil, moved},
		{map[string]digest.Digest{base: old}, old},
	} {
		g, err := p.Resolve(tt.pins, "base:1")
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Root.Digest; got != tt.want {
			t.Errorf("pins %v: resolved to %s, want %s", tt.pins, got, tt.want)
		}
		g.Close()
	}
	// In dependency order, the dependency under its dependent.
	g, err := p.Resolve(nil, "team:1")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if len(g.Order) != 2 || g.Order[0].Digest != old || g.Order[1].Ref != p.Reg.Host+"/team:1" {
		t.Errorf("order %v, want base@old under team", g.Order)
	}
}
