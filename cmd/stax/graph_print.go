package main

import (
	"fmt"

	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/resolve"
)

// resolvedPackage is one package of a resolved graph, as commands print it.
type resolvedPackage struct {
	Reference string   `json:"reference"`
	Digest    string   `json:"digest"`
	Direct    bool     `json:"direct"`
	Skills    int      `json:"skills"`
	Notices   []string `json:"notices,omitempty"`
}

// mergedSkill is one skill of a merged set, with its provenance.
type mergedSkill struct {
	Name          string `json:"name"`
	Path          string `json:"path"`
	Version       string `json:"version,omitempty"`
	Digest        string `json:"digest"`
	Package       string `json:"package"`
	PackageDigest string `json:"packageDigest"`
}

// pinnedReference is ref pinned to dgst: ref@dgst, or ref itself when it
// names a digest already.
func pinnedReference(ref, dgst string) string {
	if parsed, err := reference.Parse(ref); err == nil && parsed.Digest != "" {
		return ref
	}
	return ref + "@" + dgst
}

func describeGraph(g *resolve.Graph) []resolvedPackage {
	direct := map[*resolve.Node]bool{}
	for _, n := range g.Direct {
		direct[n] = true
	}
	out := []resolvedPackage{}
	for _, n := range g.Order {
		out = append(out, resolvedPackage{
			Reference: n.Ref, Digest: n.Digest.String(), Direct: direct[n],
			Skills: len(n.Package.Config.Skills), Notices: n.Package.Notices,
		})
	}
	return out
}

func describeMerge(m *merge.Result) []mergedSkill {
	out := []mergedSkill{}
	for _, s := range m.Skills {
		out = append(out, mergedSkill{
			Name: s.Name, Path: s.Path, Version: s.Version, Digest: s.Digest.String(),
			Package: s.From.Ref, PackageDigest: s.From.Digest.String(),
		})
	}
	return out
}

func overrideLines(m *merge.Result) []string {
	out := []string{}
	for _, o := range m.Overrides {
		out = append(out, o.String())
	}
	return out
}

// printGraphNotes shows package notices and overrides on stderr.
func printGraphNotes(streams *IOStreams, out pullResult) {
	for _, p := range out.Packages {
		for _, n := range p.Notices {
			fmt.Fprintf(streams.ErrOut, "notice: %s\n", n)
		}
	}
	for _, o := range out.Overrides {
		fmt.Fprintf(streams.ErrOut, "warning: %s\n", o)
	}
}
