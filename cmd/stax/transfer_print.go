package main

import (
	"context"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// transferResult is what push, pull and copy print with --output json.
type transferResult struct {
	Reference string               `json:"reference"`
	Digest    string               `json:"digest"`
	MediaType string               `json:"mediaType"`
	Size      int64                `json:"size"`
	Layers    []ocispec.Descriptor `json:"layers"`
	Skills    int                  `json:"skills"`
	// Kind is "stax package", "image index" or "image manifest"; an
	// image (copy only) has no skills.
	Kind      string   `json:"kind"`
	Platforms []string `json:"platforms,omitempty"`
	// Copied and Skipped count blobs sent and blobs the destination had.
	Copied  int      `json:"copied"`
	Skipped int      `json:"skipped"`
	Output  string   `json:"output,omitempty"`
	Notices []string `json:"notices"`
}

func newTransferResult(ref reference.Reference, res *transfer.Result) transferResult {
	ref.Digest = res.Descriptor.Digest
	out := transferResult{
		Reference: ref.String(),
		Digest:    res.Descriptor.Digest.String(),
		MediaType: res.Descriptor.MediaType,
		Size:      res.Descriptor.Size,
		Copied:    res.Copied,
		Skipped:   res.Skipped,
		Notices:   []string{},
	}
	if res.Image != nil {
		out.Kind, out.Platforms = res.Image.Kind, res.Image.Platforms
		return out
	}
	out.Kind = transfer.KindPackage
	out.Notices = append(out.Notices, res.Package.Notices...)
	out.Layers = res.Package.Manifest.Layers
	out.Skills = len(res.Package.Config.Skills)
	return out
}

// describe says what a transfer moved: "3 skills", "image index, 2
// platforms" or "image manifest, application/vnd.oci.image.config.v1+json".
func (r transferResult) describe() string {
	switch {
	case r.Kind == transfer.KindPackage:
		return plural(int64(r.Skills), "skill")
	case len(r.Platforms) > 0:
		return r.Kind + ", " + plural(int64(len(r.Platforms)), "platform")
	}
	return r.Kind
}

// copyPackage runs a transfer with progress bars when stderr is a
// terminal. A destination without a tag or digest gets the package version.
func copyPackage(ctx context.Context, streams *IOStreams, global *globalOptions, remote *remoteOptions, src, dst *target.Target, opts transfer.Options) (*transfer.Result, error) {
	base, done := remote.transferOptions(streams, global)
	opts.Concurrency, opts.Progress, opts.Mounts = base.Concurrency, base.Progress, base.Mounts
	opts.TagVersion = dst.Ref.Tag == "" && dst.Ref.Digest == ""
	res, err := transfer.Copy(ctx, src, dst, opts)
	done()
	return res, err
}

func printTransfer(streams *IOStreams, global *globalOptions, verb string, ref reference.Reference, res *transfer.Result, output string) error {
	out := newTransferResult(ref, res)
	out.Output = output
	if global.json() {
		return writeJSON(streams.Out, out)
	}
	for _, n := range out.Notices {
		fmt.Fprintf(streams.ErrOut, "notice: %s\n", n)
	}
	fmt.Fprintf(streams.ErrOut, "%s %s (%s; %s copied, %d already there)\n", verb, ref.Familiar(), out.describe(), plural(int64(res.Copied), "blob"), res.Skipped)
	fmt.Fprintln(streams.Out, out.Reference)
	return nil
}

// printBuildNotes shows the diagnostics and notices of a package built on
// the fly.
func printBuildNotes(streams *IOStreams, global *globalOptions, built *pack.Result) {
	if global.json() {
		return
	}
	if built.Report != nil {
		for _, d := range built.Report.Warnings {
			printDiagnostic(streams.ErrOut, "warning", d)
		}
	}
	for _, n := range built.Notices {
		fmt.Fprintf(streams.ErrOut, "notice: %s\n", n)
	}
}
