package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/store"
)

// Output formats of --output.
const (
	outputText = "text"
	outputJSON = "json"
)

// globalOptions are the flags every command has.
type globalOptions struct {
	Output string
	// Layout replaces the local store with another OCI layout directory.
	Layout string
	// Debug is --debug: trace registry requests and responses on errOut.
	Debug bool
	// Verbose is --verbose: every warning, not a line per kind.
	Verbose bool
	// Quiet is --quiet: nothing on stderr but the error.
	Quiet bool
	// errOut is where opening a store warns of what it repaired.
	errOut io.Writer
	// clock times the waits of registry retries; nil is real time.
	clock registry.Clock
	// lookupEnv is the environment commands read; nil is the process's.
	// Tests give each run its own, so they need not change the process's
	// and can run in parallel.
	lookupEnv func(string) (string, bool)
	// environ is the same environment whole, for the programs commands
	// run (git); nil is the process's.
	environ func() []string
}

// debugEnv turns --debug on for commands run where their flags cannot be
// changed, such as a CI step.
const debugEnv = "STAX_DEBUG"

// debugFromEnvironment sets Debug from $STAX_DEBUG unless --debug was
// given (given is whether it was, as true or false).
func (g *globalOptions) debugFromEnvironment(given bool) error {
	value := g.getenv(debugEnv)
	if given || value == "" {
		return nil
	}
	on, err := strconv.ParseBool(value)
	if err != nil {
		return flagError(fmt.Errorf("%s=%q: want true or false (1 or 0)", debugEnv, value))
	}
	g.Debug = on
	return nil
}

// silence applies --quiet: warnings, notes and progress go nowhere, and
// executeIn prints the error to the stream it was given. --verbose, or
// --debug given as a flag, contradicts it; $STAX_DEBUG gives way to it.
func (g *globalOptions) silence(debugGiven bool, streams *IOStreams) error {
	if !g.Quiet {
		return nil
	}
	if g.Verbose || debugGiven && g.Debug {
		return flagError(fmt.Errorf("--quiet prints errors only: it cannot go with --verbose or --debug"))
	}
	g.Debug = false
	streams.ErrOut, streams.ErrTTY, g.errOut = io.Discard, false, io.Discard
	return nil
}

// trace is where registry requests are traced: stderr with --debug, else
// nowhere.
func (g *globalOptions) trace() io.Writer {
	if g.Debug {
		return g.errOut
	}
	return nil
}

func (g *globalOptions) json() bool { return g.Output == outputJSON }

// lookup is os.LookupEnv in the command's environment: it tells an empty
// variable from an unset one.
func (g *globalOptions) lookup(key string) (string, bool) {
	if g.lookupEnv == nil {
		return os.LookupEnv(key)
	}
	return g.lookupEnv(key)
}

// environment is os.Environ in the command's environment.
func (g *globalOptions) environment() []string {
	if g.environ == nil {
		return os.Environ()
	}
	return g.environ()
}

// getenv is os.Getenv in the command's environment.
func (g *globalOptions) getenv(key string) string {
	v, _ := g.lookup(key)
	return v
}

// storeDir is the local store, or the layout of --oci-layout.
func (g *globalOptions) storeDir() (string, error) {
	if g.Layout != "" {
		return g.Layout, nil
	}
	return store.DefaultDirFrom(g.getenv)
}
