package resolve_test

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/target"
)

// graphSpec declares package directories: each package's dependencies in
// declaration order, and the skills it holds.
type graphSpec struct {
	deps   map[string][]string
	skills map[string][]string
}

// write lays the packages out as sibling directories under root.
func (s graphSpec) write(t *testing.T, root string) {
	t.Helper()
	names := map[string]bool{}
	for n, deps := range s.deps {
		names[n] = true
		for _, d := range deps {
			names[d] = true
		}
	}
	for n := range s.skills {
		names[n] = true
	}
	for n := range names {
		var def strings.Builder
		fmt.Fprintf(&def, "name: %s\nversion: 1.0.0\n", n)
		if deps := s.deps[n]; len(deps) > 0 {
			def.WriteString("packages:\n")
			for _, d := range deps {
				fmt.Fprintf(&def, "  - ../%s\n", d)
			}
		}
		filetest.WriteFile(t, filepath.Join(root, n, "stax.yaml"), def.String())
		// Every package holds a skill of its own, so none is empty.
		skills := append([]string{"own-" + n}, s.skills[n]...)
		for _, sk := range skills {
			filetest.WriteFile(t, filepath.Join(root, n, "skills", sk, "SKILL.md"),
				"---\nname: "+sk+"\ndescription: The "+sk+" skill of "+n+". Use when testing precedence.\n---\nFrom "+n+".\n")
		}
	}
}

// resolveSpec resolves sources (package names) of s, built from directories.
func resolveSpec(t *testing.T, s graphSpec, sources ...string) *resolve.Graph {
	t.Helper()
	root := t.TempDir()
	s.write(t, root)
	decls := make([]string, len(sources))
	for i, src := range sources {
		decls[i] = "./" + src
	}
	g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, decls...), root, resolve.Options{Source: cache.New(&target.Opener{StoreDir: t.TempDir()}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// pkgName names a node by its package directory.
func pkgName(n *resolve.Node) string { return filepath.Base(n.Ref) }

func orderNames(g *resolve.Graph) []string {
	var out []string
	for _, n := range g.Order {
		out = append(out, pkgName(n))
	}
	return out
}

func TestPrecedenceInsideAPackage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		spec    graphSpec
		sources []string
		order   []string
		// winner is the package whose "shared" skill wins.
		winner    string
		overrides []string
	}{{
		// The reported case: top2 declares d2 then d1b; d1b depends on t.
		// t is transitive, so below both direct dependencies.
		name: "transitive below an earlier direct dependency",
		spec: graphSpec{
			deps:   map[string][]string{"top2": {"d2", "d1b"}, "d1b": {"t"}},
			skills: map[string][]string{"d2": {"shared"}, "t": {"shared"}},
		},
		sources:   []string{"top2"},
		order:     []string{"t", "d2", "d1b", "top2"},
		winner:    "d2",
		overrides: []string{"skill shared: ../d2 (direct, 1st) over ../t (transitive via ../d1b)"},
	}, {
		name: "chain",
		spec: graphSpec{
			deps:   map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"d"}},
			skills: map[string][]string{"c": {"shared"}, "d": {"shared"}},
		},
		sources:   []string{"a"},
		order:     []string{"d", "c", "b", "a"},
		winner:    "c",
		overrides: []string{"skill shared: ../c (transitive via ../b) over ../d (transitive via ../b → ../c)"},
	}, {
		name: "diamond",
		spec: graphSpec{
			deps:   map[string][]string{"top": {"left", "right"}, "left": {"base"}, "right": {"base"}},
			skills: map[string][]string{"base": {"shared"}, "left": {"shared"}},
		},
		sources:   []string{"top"},
		order:     []string{"base", "left", "right", "top"},
		winner:    "left",
		overrides: []string{"skill shared: ../left (direct, 1st) over ../base (transitive via ../left)"},
	}, {
		name: "a package overrides its own dependency",
		spec: graphSpec{
			deps:   map[string][]string{"team": {"org"}},
			skills: map[string][]string{"org": {"shared"}, "team": {"shared"}},
		},
		sources:   []string{"team"},
		order:     []string{"org", "team"},
		winner:    "team",
		overrides: []string{"skill shared: ./team (own content) over ../org (direct, 1st)"},
	}, {
		name: "the same skill at four depths",
		spec: graphSpec{
			deps:   map[string][]string{"p0": {"p1"}, "p1": {"p2"}, "p2": {"p3"}},
			skills: map[string][]string{"p0": {"shared"}, "p1": {"shared"}, "p2": {"shared"}, "p3": {"shared"}},
		},
		sources: []string{"p0"},
		order:   []string{"p3", "p2", "p1", "p0"},
		winner:  "p0",
		overrides: []string{
			"skill shared: ../p2 (transitive via ../p1) over ../p3 (transitive via ../p1 → ../p2)",
			"skill shared: ../p1 (direct, 1st) over ../p2 (transitive via ../p1)",
			"skill shared: ./p0 (own content) over ../p1 (direct, 1st)",
		},
	}, {
		// A later declaration wins even over a package that depends on it.
		name: "declaration order beats dependency order",
		spec: graphSpec{
			deps:   map[string][]string{"top": {"a", "b"}, "a": {"b"}},
			skills: map[string][]string{"a": {"shared"}, "b": {"shared"}},
		},
		sources:   []string{"top"},
		order:     []string{"a", "b", "top"},
		winner:    "b",
		overrides: []string{"skill shared: ../b (direct, 2nd) over ../a (direct, 1st)"},
	}, {
		name: "several sources: each one's dependencies below every source",
		spec: graphSpec{
			deps:   map[string][]string{"s1": {"x"}, "s2": {"y"}},
			skills: map[string][]string{"s1": {"shared"}, "y": {"shared"}},
		},
		sources:   []string{"s1", "s2"},
		order:     []string{"x", "y", "s1", "s2"},
		winner:    "s1",
		overrides: []string{"skill shared: ./s1 (direct, 1st) over ../y (transitive via ./s2)"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := resolveSpec(t, tt.spec, tt.sources...)
			if got := orderNames(g); !slices.Equal(got, tt.order) {
				t.Errorf("order, lowest first: %v, want %v", got, tt.order)
			}
			m := merge.Merge(g.Order)
			for _, s := range m.Skills {
				if s.Path == "shared" && pkgName(s.From) != tt.winner {
					t.Errorf("shared comes from %s, want %s", pkgName(s.From), tt.winner)
				}
			}
			var overrides []string
			for _, o := range m.Overrides {
				overrides = append(overrides, o.String())
			}
			if !slices.Equal(overrides, tt.overrides) {
				t.Errorf("overrides:\n%s\nwant\n%s", strings.Join(overrides, "\n"), strings.Join(tt.overrides, "\n"))
			}
		})
	}
}

// precedenceOracle states the layering rule as a comparison, independently
// of the resolver: under a consumer, its own content is highest; its direct
// dependencies come next, later declarations higher; any other package is
// lower, placed by the first direct dependency (in declaration order) it
// lies under, and between two under the same one, by that package's rule.
type precedenceOracle struct {
	deps map[string][]string
}

func (o precedenceOracle) reach(n string, into map[string]bool) {
	for _, d := range o.deps[n] {
		if !into[d] {
			into[d] = true
			o.reach(d, into)
		}
	}
}

// higher reports whether x outranks y under a consumer declaring direct;
// self is the consumer's own package, "" for a list of sources.
func (o precedenceOracle) higher(self string, direct []string, x, y string) bool {
	if self != "" && (x == self || y == self) {
		return x == self
	}
	ix, iy := slices.Index(direct, x), slices.Index(direct, y)
	switch {
	case ix >= 0 && iy >= 0:
		return ix > iy
	case ix >= 0 || iy >= 0:
		return ix >= 0
	}
	fx, fy := o.first(direct, x), o.first(direct, y)
	if fx != fy {
		return fx > fy
	}
	d := direct[fx]
	return o.higher(d, o.deps[d], x, y)
}

// first is the index of the first of direct that n lies under.
func (o precedenceOracle) first(direct []string, n string) int {
	for i, d := range direct {
		under := map[string]bool{}
		o.reach(d, under)
		if under[n] {
			return i
		}
	}
	panic(n + " is under no direct dependency")
}

// order lists every package of a resolution of sources, lowest first.
func (o precedenceOracle) order(sources []string) []string {
	self, direct := "", sources
	if len(sources) == 1 {
		self, direct = sources[0], o.deps[sources[0]]
	}
	all := map[string]bool{}
	for _, s := range sources {
		all[s] = true
		o.reach(s, all)
	}
	var out []string
	for n := range all {
		out = append(out, n)
	}
	slices.Sort(out)
	// Insertion sort: relies on the comparison alone, not on a sort
	// algorithm's assumptions about it.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && o.higher(self, direct, out[j-1], out[j]); j-- {
			out[j-1], out[j] = out[j], out[j-1]
		}
	}
	return out
}

// TestPrecedenceMatchesTheRule resolves random package graphs of up to 8
// packages, each holding the skill "shared", and checks the layering and
// the winner against the rule stated independently.
func TestPrecedenceMatchesTheRule(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(12))
	iterations := 60
	if testing.Short() {
		iterations = 15
	}
	for it := 0; it < iterations; it++ {
		n := 2 + rng.Intn(7)
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("p%d", i)
		}
		// Edges only from lower to higher numbers make a DAG; declaration
		// order is shuffled.
		spec := graphSpec{deps: map[string][]string{}, skills: map[string][]string{}}
		for i := 0; i < n; i++ {
			spec.skills[names[i]] = []string{"shared"}
			for j := i + 1; j < n; j++ {
				if rng.Intn(3) == 0 {
					spec.deps[names[i]] = append(spec.deps[names[i]], names[j])
				}
			}
			rng.Shuffle(len(spec.deps[names[i]]), func(a, b int) {
				spec.deps[names[i]][a], spec.deps[names[i]][b] = spec.deps[names[i]][b], spec.deps[names[i]][a]
			})
		}
		sources := []string{"p0"}
		if rng.Intn(3) == 0 {
			sources = nil
			for _, i := range rng.Perm(n)[:1+rng.Intn(min(3, n))] {
				sources = append(sources, names[i])
			}
		}
		want := precedenceOracle{deps: spec.deps}.order(sources)
		t.Run(fmt.Sprintf("%d", it), func(t *testing.T) {
			g := resolveSpec(t, spec, sources...)
			got := orderNames(g)
			if !slices.Equal(got, want) {
				t.Fatalf("graph %v from %v:\norder %v\nwant  %v", spec.deps, sources, got, want)
			}
			for _, s := range merge.Merge(g.Order).Skills {
				if s.Path == "shared" && pkgName(s.From) != want[len(want)-1] {
					t.Errorf("shared from %s, want %s", pkgName(s.From), want[len(want)-1])
				}
			}
			// Each standing names the rule that placed the package: a
			// transitive one via the first direct package it lies under.
			self, direct := "", sources
			if len(sources) == 1 {
				self, direct = sources[0], spec.deps[sources[0]]
			}
			o := precedenceOracle{deps: spec.deps}
			for _, n := range g.Order {
				name, st := pkgName(n), n.Standing
				switch {
				case name == self:
					if st.Kind != resolve.Own {
						t.Errorf("%s: %s, want own content", name, st)
					}
				case slices.Contains(direct, name):
					if st.Kind != resolve.Direct || direct[st.Index-1] != name {
						t.Errorf("%s: %s, want direct at %d", name, st, slices.Index(direct, name)+1)
					}
				default:
					if st.Kind != resolve.Transitive || filepath.Base(st.Via[0]) != direct[o.first(direct, name)] {
						t.Errorf("%s: %s, want transitive via %s", name, st, direct[o.first(direct, name)])
					}
				}
			}
		})
	}
}
