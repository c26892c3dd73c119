package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/pkg/exitcode"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/project"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
)

// source is a package a command reads.
type source struct {
	*target.Target
	Descriptor ocispec.Descriptor
	// Name is how the user named it: a reference, or a directory.
	Name string
	// Built is set when the package was built from a directory.
	Built *pack.Result
}

// sourceScope says where openSource may look for a reference.
type sourceScope int

const (
	// localOnly: the local store or an oci: layout (push's source).
	localOnly sourceScope = iota
	// localThenRemote: the local store, then the registry (inspect, resolve).
	localThenRemote
	// remoteOnly: the registry alone (--remote).
	remoteOnly
)

// openSource finds the package arg names: a package directory (built into
// a temporary layout exactly as pack would build it), an oci: layout, or a
// reference in the local store or a registry, as scope allows.
func openSource(ctx context.Context, opener *target.Opener, arg string, scope sourceScope, build pack.Options) (*source, error) {
	if !strings.HasPrefix(arg, reference.LayoutPrefix) {
		if info, err := os.Stat(arg); err == nil && info.IsDir() {
			return buildSource(ctx, opener, arg, build)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, exitcode.Wrap(exitcode.FileSystem, err)
		}
	}
	ref, err := reference.Parse(opener.BareTag(arg))
	if err != nil {
		return nil, exitcode.Wrap(exitcode.Validation, err)
	}
	if ref.Tag == "" && ref.Digest == "" {
		ref.Tag = "latest"
	}
	if ref.IsLayout() {
		if _, err := os.Stat(ref.Layout); err != nil {
			return nil, exitcode.Wrap(exitcode.Validation, fmt.Errorf("OCI layout %s: %w", ref.Layout, err))
		}
		return lookup(ctx, func() (*target.Target, error) { return opener.Open(ctx, ref) }, arg)
	}
	if scope == remoteOnly {
		return lookup(ctx, func() (*target.Target, error) { return opener.Open(ctx, ref) }, arg)
	}
	src, err := lookup(ctx, func() (*target.Target, error) { return opener.OpenLocal(ctx, ref, store.ReadOnly) }, arg)
	if err == nil || scope == localOnly || exitcode.Of(err) != exitcode.Validation {
		return src, err
	}
	remote, rerr := lookup(ctx, func() (*target.Target, error) { return opener.Open(ctx, ref) }, arg)
	if rerr != nil {
		return nil, fmt.Errorf("%s is not in the local store, and asking its registry failed: %w", ref.Familiar(), rerr)
	}
	return remote, nil
}

func lookup(ctx context.Context, open func() (*target.Target, error), name string) (*source, error) {
	t, err := open()
	if err != nil {
		return nil, err
	}
	desc, err := t.Lookup(ctx)
	if err != nil {
		t.Close()
		return nil, err
	}
	return &source{Target: t, Descriptor: desc, Name: name}, nil
}

// buildSource packs dir into a temporary layout that Close removes.
func buildSource(ctx context.Context, opener *target.Opener, dir string, build pack.Options) (*source, error) {
	p, err := project.Open(dir)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "stax-build-*")
	if err != nil {
		return nil, exitcode.Wrap(exitcode.FileSystem, err)
	}
	s, err := store.OpenLayout(ctx, tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	res, graph, err := resolve.BuildProject(ctx, p, s, resolve.Options{Opener: opener, MaxSize: build.MaxSize, Build: build})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	// The package is built and its dependencies recorded by digest; what
	// resolution opened to learn them is no longer needed.
	graph.Close()
	t, err := opener.Open(ctx, reference.Reference{Layout: tmp, Digest: res.Descriptor.Digest})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &source{
		Target:     target.WithCleanup(t, func() error { return os.RemoveAll(tmp) }),
		Descriptor: res.Descriptor,
		Name:       dir,
		Built:      res,
	}, nil
}
