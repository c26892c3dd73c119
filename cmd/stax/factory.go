package main

import (
	"fmt"

	"github.com/stax-dev/stax/pkg/mounts"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/workflow"
)

// factory holds what every command is built from: its streams, the
// global flags, and the environment it reads. Tests build one with their
// own streams and environment.
type factory struct {
	IO     *IOStreams
	Global *globalOptions
	// Getenv is the environment commands read, and Environ the same
	// whole, for the programs they run.
	Getenv  func(string) string
	Environ func() []string
}

func newFactory(streams *IOStreams, global *globalOptions) *factory {
	return &factory{IO: streams, Global: global, Getenv: global.getenv, Environ: global.environment}
}

// newEnv is the signature of factory.Env, which command options hold so
// that tests can hand a command another environment.
type newEnv func(remote *remoteOptions) (env *workflow.Env, finish func(), err error)

// Env builds the environment a job runs in from the global flags and
// remote, the registry flags of the command (nil for a command without
// them): the one place an opener is built, so that every command reads
// --oci-layout and the registry flags the same way. Call finish when the
// job is over and before printing its result: it waits for the progress
// bars and saves the record of where blobs were copied.
func (f *factory) Env(remote *remoteOptions) (*workflow.Env, func(), error) {
	if remote == nil {
		remote = &remoteOptions{}
	}
	opener, err := remote.opener(f.Global)
	if err != nil {
		return nil, nil, err
	}
	// Warnings quote registries, packages and files: escaped, as errors are.
	env := &workflow.Env{Opener: opener, Getenv: f.Getenv, Environ: f.Environ, Warnings: termtext.Writer{W: f.IO.ErrOut}, Concurrency: remote.Concurrency}
	finish := func() {}
	if !remote.transfers {
		return env, finish, nil
	}
	// A record that cannot be read or saved only costs uploads.
	record, err := mounts.LoadHomeFrom(f.Getenv)
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "warning: ignoring the record of where blobs are: %v\n", err)
	}
	env.Mounts = record
	save := func() {
		if err := record.Save(); err != nil {
			fmt.Fprintf(f.IO.ErrOut, "warning: could not record where blobs were copied, for later mounts: %v\n", err)
		}
	}
	if remote.NoProgress || !f.IO.ErrTTY {
		return env, save, nil
	}
	bars := newProgressBars(f.IO.ErrOut)
	env.Progress = bars
	return env, func() { bars.Wait(); save() }, nil
}
