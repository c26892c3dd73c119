package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"

	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/hiddentext"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/resolve"
)

// layerReader reads packages' skills layers: it calls read with n's
// layer, and returns read's error, or why the layer could not be had.
// A layer that does not match its digest is explained (whose copy is
// corrupt, and the fix).
type layerReader interface {
	ReadLayer(ctx context.Context, n *resolve.Node, read func(io.Reader) error) error
}

// winnerSkills are the skills merged won, as install writes them, each
// read from its package's skills layer through layers, one install.Layer
// for each package: opened only when one of its skills must be written,
// bounded by limits, verified
// against its descriptor, size and digest, and, unless allowHidden,
// refused when a file holds characters reviewers cannot see (see package
// hiddentext). Install and pull -o write the winners through it alone.
func winnerSkills(merged *merge.Result, from layerReader, limits layers.Limits, allowHidden bool) []install.Skill {
	skills := make([]install.Skill, 0, len(merged.Skills))
	layerOf := map[*resolve.Node]*install.Layer{}
	for _, s := range merged.Skills {
		l := layerOf[s.From]
		if l == nil {
			l = nodeLayer(s.From, from, limits)
			if !allowHidden {
				l.Read.Inspect = hiddentext.LayerGuard
			}
			layerOf[s.From] = l
		}
		skills = append(skills, install.Skill{
			Path: s.Path, Layer: l,
			Package: lock.Key(s.From), PackageDigest: s.From.Digest, PackageVersion: s.From.Package.Config.Version, Digest: s.Digest,
		})
	}
	return skills
}

// nodeLayer is n's skills layer, read through from.
func nodeLayer(n *resolve.Node, from layerReader, limits layers.Limits) *install.Layer {
	l := &install.Layer{Name: n.Ref, Read: layers.ReadOptions{Limits: limits}}
	if n.Package.Skills != nil {
		l.Read.Digest = n.Package.Skills.Digest
	}
	l.Open = func(ctx context.Context, read func(io.Reader) error) error {
		if n.Package.Skills == nil {
			return errdefs.Precondition(fmt.Errorf("%s lists skills but has no skills layer", n.Ref))
		}
		return from.ReadLayer(ctx, n, read)
	}
	return l
}

// storedLayers reads each package's layer from where it is once storing
// (when not nil) has stored it: an OCI layout's store does not check
// what it serves, so the layer is verified as it is read, as pull
// verifies it.
type storedLayers struct {
	storing *cache.Storing
}

func (s storedLayers) ReadLayer(ctx context.Context, n *resolve.Node, read func(io.Reader) error) error {
	if s.storing != nil {
		if err := s.storing.Stored(ctx, n); err != nil {
			return err
		}
	}
	// n.Target is read after Stored: storing moves n to the local store,
	// and the layer is read, and explained, from where n is then.
	rc, err := n.Package.OpenSkills(ctx, n.Target)
	if err != nil {
		return n.Target.Explain(err)
	}
	defer rc.Close()
	err = read(rc)
	if errors.Is(err, content.ErrMismatchedDigest) {
		return n.Target.Explain(err)
	}
	return err
}

// namingLayers reads layers through from, and names the package and
// layer of one that could not be had, as install.Layer names one that
// failed once read: pull -o says "extract REF (layer DIGEST): " of
// either.
type namingLayers struct {
	from layerReader
}

func (l namingLayers) ReadLayer(ctx context.Context, n *resolve.Node, read func(io.Reader) error) error {
	var reading bool
	err := l.from.ReadLayer(ctx, n, func(r io.Reader) error {
		reading = true
		return read(r)
	})
	if err != nil && !reading && n.Package.Skills != nil {
		return errdefs.With(layers.Class(err), fmt.Errorf("extract %s (layer %s): %w", n.Ref, n.Package.Skills.Digest, err))
	}
	return err
}
