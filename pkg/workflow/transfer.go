package workflow

import (
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/transfer"
	"github.com/stax-dev/stax/pkg/validate"
)

// Transfer is what a job that copies one package or artifact (push, copy)
// moved, and where.
type Transfer struct {
	// Reference is the destination pinned to the digest copied.
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
	Notices []string `json:"notices"`
	// Warnings are what validation found likely to surprise in a package
	// built from a directory to be pushed; text output prints them as
	// the build ends, a line a kind.
	Warnings []validate.Diagnostic `json:"warnings,omitempty"`
	// Replaced is the digest the destination's tag named before this
	// transfer moved it; empty when the tag was new or named the package
	// already.
	Replaced string `json:"replaced,omitempty"`
	// Tag is the destination's tag; empty for a destination by digest.
	Tag string `json:"-"`
	// Destination is the destination as it was named, without the digest:
	// what a message about the transfer calls it.
	Destination string `json:"-"`
}

// newTransfer describes res, a copy to ref.
func newTransfer(ref reference.Reference, res *transfer.Result) Transfer {
	out := Transfer{
		Destination: ref.Familiar(),
		Digest:      res.Descriptor.Digest.String(),
		MediaType:   res.Descriptor.MediaType,
		Size:        res.Descriptor.Size,
		Copied:      res.Copied,
		Skipped:     res.Skipped,
		Notices:     []string{},
		Replaced:    res.Replaced.String(),
		Tag:         ref.Tag,
	}
	ref.Digest = res.Descriptor.Digest
	out.Reference = ref.String()
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
