package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/diff"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/snapshot"
	"github.com/stax-dev/stax/pkg/source"
)

type diffOptions struct {
	IO       *IOStreams
	Global   *globalOptions
	Remote   remoteOptions
	A, B     string
	ExitCode bool
	Build    buildFlags
	Getenv   func(string) string
}

// diffResult is what diff prints with --output json.
type diffResult struct {
	// Identical says A and B hold the same skills, file for file; the
	// package metadata does not count.
	Identical bool     `json:"identical"`
	A         diffSide `json:"a"`
	B         diffSide `json:"b"`
	// Metadata compares the packages' own fields, for information.
	Metadata []diff.FieldChange `json:"metadata"`
	*diff.Result
}

// diffSide names one of the packages compared.
type diffSide struct {
	Reference string `json:"reference"`
	// Source is local, layout, remote, or directory for one built on the fly.
	Source  string        `json:"source"`
	Digest  digest.Digest `json:"digest"`
	Name    string        `json:"name"`
	Version string        `json:"version"`
}

func newDiffCmd(streams *IOStreams, global *globalOptions) *cobra.Command {
	opts := &diffOptions{IO: streams, Global: global, Getenv: getenv}
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Show which skills, files and frontmatter fields differ between two packages",
		Long: `Compare the skills of two packages. A and B are references in the local store
or a registry, OCI layouts (oci:PATH[:TAG|@DIGEST]), or package directories,
built on the fly exactly as pack builds them.

Skills are matched by their top-level directory. For each skill only one side
has, diff says so; for each skill both have with different content, it lists
the files added, removed and changed (by content digest and execute bit) and
the frontmatter fields added, removed and changed, with their values. The skills
layers are streamed through the safe layer reader, never extracted, and checked
against their digests. The package names and versions are compared too, for
information: they do not make two packages differ.

diff exits 0 whether or not the packages differ; with --exit-code it exits 1
when they differ. Errors keep their own exit codes either way.`,
		Example: `  stax diff acme/skills:1.0.0 acme/skills:1.1.0
  stax diff ghcr.io/acme/skills:1.0.0 .          # the published package against the working tree
  stax diff oci:./out:1.0.0 acme/skills:1.0.0 --exit-code
  stax diff a b --output json | jq '.changed[].frontmatter'`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.A, opts.B = args[0], args[1]
			return runDiff(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.ExitCode, "exit-code", false, "exit 1 when the packages differ, 0 when they hold the same skills")
	opts.Build.addBuild(cmd, "uncompressed skills layer to read or build", "when building a directory: ")
	opts.Remote.addFlags(cmd)
	opts.Remote.addRemoteOnlyFlag(cmd)
	return cmd
}

func runDiff(ctx context.Context, opts *diffOptions) error {
	// Built with pack's defaults (SOURCE_DATE_EPOCH included), so a
	// directory's digest is the one pack prints for it.
	build, err := opts.Build.options(opts.Getenv)
	if err != nil {
		return err
	}
	opener, err := opts.Remote.opener(opts.Global)
	if err != nil {
		return err
	}
	var sides [2]*diffInput
	for i, arg := range []string{opts.A, opts.B} {
		label := [2]string{"A", "B"}[i]
		if dir, ambiguous := source.IsDirectory(arg); dir && ambiguous {
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", source.AmbiguousWarning(arg))
		}
		src, err := source.Open(ctx, arg, source.Options{Opener: opener, Build: build, MaxSize: build.MaxSize, Scope: opts.Remote.lookupScope()})
		if err != nil {
			return err
		}
		defer src.Close()
		if src.Built != nil {
			printBuildNotes(opts.IO, opts.Global, src.Built)
		}
		pkg, err := src.Package(ctx)
		if err != nil {
			return err
		}
		sides[i] = &diffInput{label: label, src: src, pkg: pkg}
	}
	a, b := sides[0], sides[1]

	if err := readSnapshots(ctx, a, b); err != nil {
		return err
	}
	res := &diffResult{
		A: a.side(), B: b.side(),
		Metadata: diff.Fields(metadataFields(a.pkg.Config), metadataFields(b.pkg.Config)),
		Result:   diff.Compare(a.snap, b.snap),
	}
	res.Identical = res.Result.Identical()
	for _, in := range sides {
		for _, n := range in.pkg.Notices {
			res.Notices = append(res.Notices, in.label+": "+n)
		}
	}

	if opts.Global.json() {
		err = writeJSON(opts.IO.Out, res)
	} else {
		err = printDiff(opts.IO, res)
	}
	if err != nil {
		return err
	}
	if opts.ExitCode && !res.Identical {
		// The result is printed; only the exit code is left to say.
		return errdefs.Invalid(errReported)
	}
	return nil
}

// diffInput is one side of a diff as it is read.
type diffInput struct {
	// label is A or B, for notices.
	label string
	src   *source.Source
	pkg   *artifact.Package
	snap  *snapshot.Snapshot
}

func (in *diffInput) side() diffSide {
	kind := string(in.src.Kind)
	if in.src.Built != nil {
		kind = "directory"
	}
	return diffSide{
		Reference: in.src.Name, Source: kind, Digest: in.src.Descriptor.Digest,
		Name: in.pkg.Config.Name, Version: in.pkg.Config.Version,
	}
}

// readSnapshots reads both skills layers. Two layers with one digest hold
// the same bytes, so neither is downloaded: nothing in them can differ.
func readSnapshots(ctx context.Context, a, b *diffInput) error {
	if a.pkg.Skills != nil && b.pkg.Skills != nil && a.pkg.Skills.Digest == b.pkg.Skills.Digest {
		a.snap, b.snap = snapshot.Empty(), snapshot.Empty()
		return nil
	}
	for _, in := range []*diffInput{a, b} {
		var err error
		if in.snap, err = in.src.Snapshot(ctx, in.pkg); err != nil {
			return err
		}
	}
	return nil
}

// metadataFields are the fields of a package's config that stax.yaml sets,
// the empty ones left out so that absent and empty compare equal.
func metadataFields(c *artifact.Config) map[string]any {
	m := map[string]any{}
	for k, v := range map[string]string{
		"name": c.Name, "version": c.Version, "description": c.Description,
		"author": c.Author, "license": c.License,
	} {
		if v != "" {
			m[k] = v
		}
	}
	if len(c.Tags) > 0 {
		tags := make([]any, len(c.Tags))
		for i, t := range c.Tags {
			tags[i] = t
		}
		m["tags"] = tags
	}
	return m
}

// printDiff writes one line per difference, sorted: package fields first,
// then skills by directory, each changed skill followed by its files by
// path and its frontmatter fields by name. Nothing is written when A and B
// are the same in every respect; a summary goes to stderr.
func printDiff(streams *IOStreams, r *diffResult) error {
	var out strings.Builder
	for _, c := range r.Metadata {
		writeField(&out, "", "package", c)
	}
	// Added, removed and changed directories are disjoint, so sorting
	// their entries by directory gives one order.
	var skills []sortedLine
	for _, s := range r.Added {
		skills = append(skills, sortedLine{s, "+ skill " + s + "\n"})
	}
	for _, s := range r.Removed {
		skills = append(skills, sortedLine{s, "- skill " + s + "\n"})
	}
	for _, c := range r.Changed {
		skills = append(skills, sortedLine{c.Skill, skillChangeText(c)})
	}
	writeSorted(&out, "", skills)
	if _, err := io.WriteString(streams.Out, out.String()); err != nil {
		return err
	}
	for _, n := range r.Notices {
		fmt.Fprintf(streams.ErrOut, "notice: %s\n", n)
	}
	if r.Identical {
		fmt.Fprintf(streams.ErrOut, "%s and %s hold the same skills\n", r.A.Reference, r.B.Reference)
	} else {
		fmt.Fprintf(streams.ErrOut, "%s and %s differ: %s added, %d removed, %d changed\n",
			r.A.Reference, r.B.Reference, skillCount(len(r.Added)), len(r.Removed), len(r.Changed))
	}
	return nil
}

func skillCount(n int) string {
	if n == 1 {
		return "1 skill"
	}
	return fmt.Sprintf("%d skills", n)
}

// sortedLine is output text and the key it is sorted by.
type sortedLine struct{ key, text string }

func writeSorted(w io.Writer, indent string, lines []sortedLine) {
	slices.SortFunc(lines, func(x, y sortedLine) int { return strings.Compare(x.key, y.key) })
	for _, l := range lines {
		fmt.Fprintf(w, "%s%s", indent, l.text)
	}
}

func skillChangeText(c diff.SkillChange) string {
	var b strings.Builder
	fmt.Fprintf(&b, "~ skill %s\n", c.Skill)
	var files []sortedLine
	for _, p := range c.Files.Added {
		files = append(files, sortedLine{p, "+ file " + p + "\n"})
	}
	for _, p := range c.Files.Removed {
		files = append(files, sortedLine{p, "- file " + p + "\n"})
	}
	for _, f := range c.Files.Changed {
		var how string
		switch {
		case f.ModeChanged() && f.ContentChanged():
			how = fmt.Sprintf(" (content, and mode %s → %s)", f.OldMode, f.NewMode)
		case f.ModeChanged():
			how = fmt.Sprintf(" (mode %s → %s)", f.OldMode, f.NewMode)
		}
		files = append(files, sortedLine{f.Path, "~ file " + f.Path + how + "\n"})
	}
	writeSorted(&b, "    ", files)
	for _, fc := range c.Frontmatter {
		writeField(&b, "    ", "frontmatter", fc)
	}
	return b.String()
}

// writeField writes a field change with its values as JSON, so that a
// string is quoted, a list is one line, and a multi-line value stays on it.
func writeField(w io.Writer, indent, what string, c diff.FieldChange) {
	switch c.Change {
	case diff.Added:
		fmt.Fprintf(w, "%s+ %s %s: %s\n", indent, what, c.Field, jsonValue(c.New))
	case diff.Removed:
		fmt.Fprintf(w, "%s- %s %s: %s\n", indent, what, c.Field, jsonValue(c.Old))
	default:
		fmt.Fprintf(w, "%s~ %s %s: %s → %s\n", indent, what, c.Field, jsonValue(c.Old), jsonValue(c.New))
	}
}

func jsonValue(v any) string {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Fields hold only what JSON can encode; this is a safety net.
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
