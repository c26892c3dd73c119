package main

import (
	"context"
	"fmt"

	"github.com/stax-dev/stax/pkg/source"
)

// openArgument opens the package a command argument names with the
// command's build and remote flags: the one way inspect, resolve and the
// other readers get a package. A name that is both a directory and a
// reference is taken as the directory, with a warning.
func openArgument(ctx context.Context, streams *IOStreams, global *globalOptions, remote *remoteOptions, build *buildFlags, getenv func(string) string, arg string) (*source.Source, error) {
	buildOpts, err := build.options(getenv)
	if err != nil {
		return nil, err
	}
	opener, err := remote.opener(global)
	if err != nil {
		return nil, err
	}
	if dir, ambiguous := source.IsDirectory(arg); dir && ambiguous {
		fmt.Fprintf(streams.ErrOut, "warning: %s\n", source.AmbiguousWarning(arg))
	}
	return source.Open(ctx, arg, source.Options{Opener: opener, Build: buildOpts, MaxSize: buildOpts.MaxSize, Scope: remote.lookupScope()})
}
