package workflow

import (
	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/resolve"
)

// Package is one package of a resolved graph, as jobs report it.
type Package struct {
	Reference string   `json:"reference"`
	Digest    string   `json:"digest"`
	Direct    bool     `json:"direct"`
	Skills    int      `json:"skills"`
	Notices   []string `json:"notices,omitempty"`
	// NotInstalled names the kinds of the package's layers that stax
	// does not install (rules, prompt, MCP server configs, ...).
	NotInstalled []string `json:"notInstalled,omitempty"`
}

// Skill is one skill of a merged set, with the package it came from.
type Skill struct {
	Name          string `json:"name"`
	Path          string `json:"path"`
	Version       string `json:"version,omitempty"`
	Digest        string `json:"digest"`
	Package       string `json:"package"`
	PackageDigest string `json:"packageDigest"`
}

// Packages describes the packages of g in layering order.
func Packages(g *resolve.Graph) []Package {
	direct := map[*resolve.Node]bool{}
	for _, n := range g.Direct {
		direct[n] = true
	}
	out := []Package{}
	for _, n := range g.Order {
		out = append(out, Package{
			Reference: n.Ref, Digest: n.Digest.String(), Direct: direct[n],
			Skills: len(n.Package.Config.Skills), Notices: n.Package.Notices,
			NotInstalled: n.Package.NotInstalledKinds(),
		})
	}
	return out
}

// Skills describes the winning skills of m.
func Skills(m *merge.Result) []Skill {
	out := []Skill{}
	for _, s := range m.Skills {
		out = append(out, Skill{
			Name: s.Name, Path: s.Path, Version: s.Version, Digest: s.Digest.String(),
			Package: s.From.Ref, PackageDigest: s.From.Digest.String(),
		})
	}
	return out
}

// Overrides says, one line each, which skill replaced which.
func Overrides(m *merge.Result) []string {
	out := []string{}
	for _, o := range m.Overrides {
		out = append(out, o.String())
	}
	return out
}
