package resolve

import "fmt"

// StandingKind is how a package relates to the consumer of a graph.
type StandingKind int

const (
	// Transitive packages are reached through a direct dependency: lowest.
	Transitive StandingKind = iota
	// Direct packages are declared by the consumer (or named as sources),
	// later declarations higher.
	Direct
	// Own is the consuming package's own content: highest.
	Own
)

// Standing is where a package sits in the layering, which is what decides
// the skills it overrides and loses.
type Standing struct {
	Kind StandingKind
	// Index is a direct package's 1-based declaration position.
	Index int
	// Via names, for a transitive package, the packages it was first
	// reached through, starting at a direct one.
	Via []string
}

func (s Standing) String() string {
	switch s.Kind {
	case Own:
		return "own content"
	case Direct:
		return "direct, " + ordinal(s.Index)
	}
	return "transitive via " + chain(s.Via)
}

func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// layOut orders the graph by precedence, lowest first, and gives each
// package its standing. The rule holds for the consumer and, recursively,
// inside every package: a package's transitive dependencies lowest, then its
// direct dependencies in declaration order (later higher), then its own
// content. So under a consumer, the packages below each direct dependency
// come first, laid out by the same rule and taken in declaration order; a
// package reached through several keeps its first place, which also keeps
// every dependency below its dependents among them.
func (g *Graph) layOut() {
	direct := g.Direct
	if g.Root != nil {
		direct = g.Root.Children
	}
	below := map[*Node][]*Node{}
	g.Order = layer(direct, below)
	if g.Root != nil {
		g.Order = append(g.Order, g.Root)
		g.Root.Standing = Standing{Kind: Own}
	}

	isDirect := map[*Node]bool{}
	for i, n := range direct {
		if !isDirect[n] {
			isDirect[n] = true
			n.Standing = Standing{Kind: Direct, Index: i + 1}
		}
	}
	// A transitive package is named by the first chain that reaches it,
	// depth first in declaration order: the one that gave it its place,
	// even when the chain passes through another direct package.
	named := map[*Node]bool{}
	var walk func(n *Node, via []string)
	walk = func(n *Node, via []string) {
		via = append(via, n.Ref)
		for _, c := range n.Children {
			if c == g.Root || named[c] {
				continue
			}
			if !isDirect[c] {
				named[c] = true
				c.Standing = Standing{Kind: Transitive, Via: append([]string(nil), via...)}
			}
			walk(c, via)
		}
	}
	for _, n := range direct {
		walk(n, nil)
	}
}

// layer lays out the packages under a consumer that declares direct,
// lowest first. below memoizes each package's own layout.
func layer(direct []*Node, below map[*Node][]*Node) []*Node {
	isDirect := map[*Node]bool{}
	for _, n := range direct {
		isDirect[n] = true
	}
	placed := map[*Node]bool{}
	var out []*Node
	for _, d := range direct {
		under, ok := below[d]
		if !ok {
			under = layer(d.Children, below)
			below[d] = under
		}
		for _, n := range under {
			if !isDirect[n] && !placed[n] {
				placed[n] = true
				out = append(out, n)
			}
		}
	}
	for _, d := range direct {
		if !placed[d] {
			placed[d] = true
			out = append(out, d)
		}
	}
	return out
}
