package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/project"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/target"
)

// preparePublish makes a push build the package for publishing, so that
// its dependencies are recorded by reference only, and with
// --push-dependencies first publishes the package directories it depends
// on to the references stax.yaml names beside them.
func preparePublish(ctx context.Context, opts *pushOptions, opener *target.Opener, build *pack.Options) error {
	build.Publish = true
	if !opts.PushDependencies {
		return nil
	}
	if info, err := os.Stat(opts.Source); err != nil || !info.IsDir() {
		return errdefs.Invalid(fmt.Errorf("--push-dependencies builds a package directory, and %s is not one", opts.Source))
	}
	p, err := project.Open(opts.Source)
	if err != nil {
		return err
	}
	copyOpts, done := opts.Remote.transferOptions(opts.IO, opts.Global)
	copyOpts.MaxSize = build.MaxSize
	published, err := resolve.PublishDependencies(ctx, p, resolve.Options{Opener: opener, MaxSize: build.MaxSize, Build: *build}, copyOpts)
	done()
	for _, d := range published {
		if !opts.Global.json() {
			fmt.Fprintf(opts.IO.ErrOut, "Pushed dependency %s as %s@%s\n", d.Dir, d.Ref, d.Digest)
		}
	}
	return err
}

// checkPublishable refuses a stored package that depends on a directory
// (one built by pack in a source checkout): nobody could install it. A
// package built for the push was checked as it was built.
func checkPublishable(src *source.Source, pkg *artifact.Package) error {
	if src.Built != nil {
		return nil
	}
	return pack.CheckPublishable(src.Name, pkg.Config.Packages)
}

// pushSigner loads the key of push --sign before anything is pushed, so
// that a wrong key or password pushes nothing.
func pushSigner(opts *pushOptions) (*signature.KeySigner, error) {
	switch {
	case opts.Sign && opts.SignKey == "":
		return nil, errdefs.Invalid(errors.New("--sign needs --key KEY, the private key to sign with"))
	case !opts.Sign && opts.SignKey != "":
		return nil, errdefs.Invalid(errors.New("--key is the signing key of --sign: add --sign"))
	case !opts.Sign:
		return nil, nil
	}
	return loadSigner(opts.IO, opts.Global, opts.SignKey)
}
