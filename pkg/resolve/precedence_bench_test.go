package resolve

import (
	"fmt"
	"math/rand"
	"testing"
	"time"
)

// randomGraph builds a DAG of n packages, each depending on up to 4 later
// ones, under a consumer declaring the first 3.
func randomGraph(n int) *Graph {
	rng := rand.New(rand.NewSource(int64(n)))
	nodes := make([]*Node, n)
	for i := range nodes {
		nodes[i] = &Node{Ref: fmt.Sprintf("p%d", i)}
	}
	for i, node := range nodes {
		for k := 0; k < 4 && i+1 < n; k++ {
			node.Children = append(node.Children, nodes[i+1+rng.Intn(n-i-1)])
		}
	}
	return &Graph{Direct: nodes[:3]}
}

func timeLayOut(g *Graph, rounds int) time.Duration {
	start := time.Now()
	for range rounds {
		g.layOut()
	}
	return time.Since(start) / time.Duration(rounds)
}

// BenchmarkLayOut reports the time to order a graph per package, and its
// ratio to the same measure on a 64-package graph in the same process: the
// layout keeps one list per package, so the ratio grows with the size
// (quadratic at worst), and it must stay far from that for real graphs.
func BenchmarkLayOut(b *testing.B) {
	baseline := float64(timeLayOut(randomGraph(64), 200)) / 64
	for _, n := range []int{64, 512, 2048} {
		b.Run(fmt.Sprintf("%dpackages", n), func(b *testing.B) {
			g := randomGraph(n)
			for b.Loop() {
				g.layOut()
			}
			perPackage := float64(b.Elapsed()) / float64(b.N) / float64(n)
			b.ReportMetric(perPackage, "ns/package")
			b.ReportMetric(perPackage/baseline, "per-package/64-packages")
		})
	}
}
