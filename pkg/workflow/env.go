// Package workflow holds stax's user jobs, one function each, from Init
// and Pack to Install and ServeMCP: every stax command but version, docs
// and completion is one call to one of them (docs/architecture.md lists
// them). Each takes an Env, what a job needs from its surroundings, and
// options whose zero values are documented (the few that need nothing of
// the surroundings take their options alone), and returns a result for a
// printer to render, so that a job runs the same way whoever asks for it.
package workflow

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// Env is what every job takes from its surroundings. A caller builds one
// per run (the stax command builds it from its flags); only Opener is
// required.
type Env struct {
	// Opener opens references: the local store (or the OCI layout that
	// stands in for it), other layouts and registries.
	Opener *target.Opener
	// Getenv reads the environment: the trust policy's location, among
	// others. Nil is os.Getenv.
	Getenv func(string) string
	// Environ is the same environment whole, for the programs a job runs:
	// git, for a git source, whose credential helpers, SSH keys and
	// settings are the user's. Nil is os.Environ.
	Environ func() []string
	// Warnings receives what a job notices without failing: ambiguous
	// arguments, overrides, case collisions, notices. Nil discards them.
	Warnings io.Writer
	// Progress is told about every blob transferred; nil draws nothing.
	Progress transfer.Progress
	// Concurrency is how many packages are looked up and fetched at once,
	// and blobs of each; 0 is transfer.DefaultConcurrency packages and
	// oras-go's default for blobs.
	Concurrency int
	// Mounts records which repositories hold which blobs, so that an
	// upload can mount a blob instead of sending it again; nil mounts only
	// within one registry.
	Mounts transfer.Mounts
	// LockDir holds the locks of the folders stax installs into; empty is
	// the default under the stax home (see store.LockDirFrom).
	LockDir string
}

func (e *Env) getenv(key string) string {
	if e.Getenv == nil {
		return os.Getenv(key)
	}
	return e.Getenv(key)
}

func (e *Env) warnings() io.Writer {
	if e.Warnings == nil {
		return io.Discard
	}
	return e.Warnings
}

// warnf writes one warning line.
func (e *Env) warnf(format string, args ...any) {
	fmt.Fprintf(e.warnings(), "warning: "+format+"\n", args...)
}

// transferOptions are the options of a transfer in this environment,
// bounded by maxSize.
func (e *Env) transferOptions(maxSize int64) transfer.Options {
	return transfer.Options{Concurrency: e.Concurrency, Progress: e.Progress, Mounts: e.Mounts, Limits: layers.Limits{MaxSize: maxSize}}
}

// copy copies the package or artifact of src to dst with this
// environment's concurrency, progress and mounts. A destination without a
// tag or digest is tagged with the package's version.
func (e *Env) copy(ctx context.Context, src, dst *target.Target, opts transfer.Options) (*transfer.Result, error) {
	base := e.transferOptions(opts.MaxSize)
	opts.Concurrency, opts.Progress, opts.Mounts = base.Concurrency, base.Progress, base.Mounts
	opts.TagVersion = dst.Ref.Tag == "" && dst.Ref.Digest == ""
	return transfer.Copy(ctx, src, dst, opts)
}
