package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/exitcode"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/project"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
)

// source is a package a command reads: where it is, and how to close it.
type source struct {
	// Name is how the user named it: a reference, or a directory.
	Name       string
	Storage    content.ReadOnlyStorage
	Descriptor ocispec.Descriptor
	close      func() error
}

func (s *source) Close() error { return s.close() }

// openSource finds the package arg names: an oci: layout reference, a
// package directory (built into a temporary layout, exactly as pack would
// build it), or a reference in the local store.
func openSource(ctx context.Context, global *globalOptions, arg string) (*source, error) {
	if !strings.HasPrefix(arg, reference.LayoutPrefix) {
		if info, err := os.Stat(arg); err == nil && info.IsDir() {
			return buildSource(ctx, arg)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, exitcode.Wrap(exitcode.FileSystem, err)
		}
	}
	ref, err := reference.Parse(arg)
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Validation, err)
	}
	if ref.Tag == "" && ref.Digest == "" {
		ref.Tag = "latest"
	}
	var s *store.Store
	if ref.IsLayout() {
		if _, err := os.Stat(ref.Layout); err != nil {
			return nil, exitcode.Wrap(exitcode.Validation, fmt.Errorf("OCI layout %s: %w", ref.Layout, err))
		}
		s, err = store.OpenLayout(ctx, ref.Layout)
	} else {
		s, err = global.openStore(ctx, store.ReadOnly)
	}
	if err != nil {
		return nil, err
	}
	desc, err := s.Resolve(ctx, ref)
	if err != nil {
		s.Close()
		return nil, err
	}
	return &source{Name: ref.Familiar(), Storage: s, Descriptor: desc, close: s.Close}, nil
}

func buildSource(ctx context.Context, dir string) (*source, error) {
	p, err := project.Open(dir)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "stax-inspect-*")
	if err != nil {
		return nil, exitcode.Wrap(exitcode.FileSystem, err)
	}
	cleanup := func() error { return os.RemoveAll(tmp) }
	s, err := store.OpenLayout(ctx, tmp)
	if err != nil {
		cleanup()
		return nil, err
	}
	res, err := pack.Build(ctx, s, pack.Options{Project: p})
	if err != nil {
		cleanup()
		return nil, err
	}
	return &source{Name: dir, Storage: s, Descriptor: res.Descriptor, close: cleanup}, nil
}
