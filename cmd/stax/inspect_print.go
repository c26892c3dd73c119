package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/workflow"
)

func writeInspect(opts *inspectOptions, res *workflow.InspectResult) error {
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, res)
	}
	for _, n := range res.Notices {
		printNote(opts.IO.ErrOut, "notice", n)
	}
	return printInspect(opts.IO.Out, res)
}

// printInspect shows a package as its manifest and config say. Whoever
// pushed it wrote them, so every string of theirs is escaped, the lines
// of the frontmatter too.
func printInspect(w io.Writer, r *workflow.InspectResult) error {
	esc := termtext.Escape
	ann := r.Manifest.Annotations
	fmt.Fprintf(w, "Reference:     %s (%s)\n", esc(r.Reference), r.Source)
	fmt.Fprintf(w, "Digest:        %s\n", r.Descriptor.Digest)
	fmt.Fprintf(w, "Artifact type: %s\n", esc(r.Manifest.ArtifactType))
	fmt.Fprintf(w, "Package:       %s %s\n", esc(r.Config.Name), esc(r.Config.Version))
	if r.Config.Description != "" {
		fmt.Fprintf(w, "Description:   %s\n", esc(r.Config.Description))
	}
	fmt.Fprintf(w, "Created:       %s\n", esc(ann[artifact.AnnotationCreated]))
	fmt.Fprintf(w, "Annotations:\n")
	for _, k := range sortedKeys(ann) {
		fmt.Fprintf(w, "  %s: %s\n", esc(k), esc(ann[k]))
	}
	fmt.Fprintf(w, "Config:        %s %s (%d bytes)\n", esc(r.Manifest.Config.MediaType), r.Manifest.Config.Digest, r.Manifest.Config.Size)
	fmt.Fprintf(w, "Layers:\n")
	for _, l := range r.Manifest.Layers {
		fmt.Fprintf(w, "  %s %s (%d bytes)\n", esc(l.MediaType), l.Digest, l.Size)
		for _, k := range sortedKeys(l.Annotations) {
			fmt.Fprintf(w, "    %s: %s\n", esc(k), esc(l.Annotations[k]))
		}
	}
	if len(r.NotInstalled) > 0 {
		fmt.Fprintf(w, "Not installed (stax installs skills only):\n")
		for _, l := range r.NotInstalled {
			fmt.Fprintf(w, "  %s  %s %s (%d bytes)\n", esc(l.Kind), esc(l.MediaType), l.Digest, l.Size)
		}
	}
	fmt.Fprintf(w, "Skills (%d):\n", len(r.Skills))
	for _, s := range r.Skills {
		state := "not checked (layer not downloaded)"
		if s.FromLayer {
			state = "read from the layer (the config lists no skills)"
		} else if s.Verified != nil && *s.Verified {
			state = "verified"
		} else if s.Verified != nil {
			state = "DIGEST MISMATCH"
		}
		fmt.Fprintf(w, "  %s", esc(s.Name))
		if s.Version != "" {
			fmt.Fprintf(w, " %s", esc(s.Version))
		}
		if s.Files > 0 {
			fmt.Fprintf(w, "  %s/  %s  %s  %s\n", esc(s.Path), plural(int64(s.Files), "file"), s.Digest, state)
		} else {
			fmt.Fprintf(w, "  %s/  %s  %s\n", esc(s.Path), s.Digest, state)
		}
		printSiblings(w, s.Stateful)
		if len(s.Frontmatter) > 0 {
			fm, err := frontmatterYAML(s.Frontmatter)
			if err != nil {
				return err
			}
			// yaml quotes controls but writes format characters
			// (bidirectional overrides, zero-width ones) as they are.
			for _, line := range strings.Split(strings.TrimRight(string(fm), "\n"), "\n") {
				fmt.Fprintf(w, "    %s\n", termtext.EscapeLines(line))
			}
		}
	}
	return nil
}

// frontmatterYAML is fm as YAML, a string that holds a tab written as a
// literal block: yaml double-quotes it otherwise, the tab written \t,
// where a tab is ordinary text, as in the SKILL.md it came from.
func frontmatterYAML(fm map[string]any) ([]byte, error) {
	var doc yaml.Node
	if err := doc.Encode(fm); err != nil {
		return nil, err
	}
	var literal func(n *yaml.Node)
	literal = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && strings.Contains(n.Value, "\t") {
			n.Style = yaml.LiteralStyle
		}
		for _, c := range n.Content {
			literal(c)
		}
	}
	literal(&doc)
	return yaml.Marshal(&doc)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
