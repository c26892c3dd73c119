package main

import (
	"fmt"
	"io"
	"time"

	"github.com/docker/go-units"
	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/transfer"
)

// remoteOptions are the flags of every command that talks to registries.
type remoteOptions struct {
	PlainHTTP      optionalBool
	Insecure       bool
	CAFile         string
	RegistryConfig string
	Concurrency    int
	NoProgress     bool
	// RemoteOnly skips the local store when reading a package.
	RemoteOnly bool
	// Offline reads a package from the local store only (addOfflineFlag).
	Offline bool
	// registryFirst is set on commands that ask the registry for a
	// registry reference (addOfflineFlag).
	registryFirst bool
	// Timeout is how long a registry may stay silent.
	Timeout time.Duration
	// ChunkSize is --chunk-size, for commands that upload.
	ChunkSize string
	// messages is where waits are announced: the command's stderr.
	messages func() io.Writer
	// transfers is set on commands that copy blobs (addTransferFlags).
	transfers bool
}

// addFlags adds the flags that say how to reach registries and with which
// credentials: those of every command that may talk to one.
func (r *remoteOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	plain := f.VarPF(&r.PlainHTTP, "plain-http", "", "use HTTP instead of HTTPS (automatic for localhost, 127.0.0.0/8 and [::1]; --plain-http=false forces HTTPS there)")
	plain.NoOptDefVal = "true"
	f.BoolVar(&r.Insecure, "insecure", false, "skip TLS certificate verification")
	f.StringVar(&r.CAFile, "ca-file", "", "PEM file of CA certificates to trust")
	f.StringVar(&r.RegistryConfig, "registry-config", "", "Docker config file holding credentials (default $DOCKER_CONFIG/config.json, else ~/.docker/config.json)")
	f.DurationVar(&r.Timeout, "timeout", registry.DefaultTimeout, "how long a registry may stay silent (connecting, before answering, mid-transfer) before the request fails; 0 for no limit")
	r.messages = cmd.ErrOrStderr
}

// addTransferFlags adds the flags of commands that copy blobs between the
// store, layouts and registries (see factory.Env).
func (r *remoteOptions) addTransferFlags(cmd *cobra.Command) {
	r.transfers = true
	f := cmd.Flags()
	f.IntVar(&r.Concurrency, "concurrency", transfer.DefaultConcurrency, "packages to look up and fetch at once, and blobs of each")
	f.BoolVar(&r.NoProgress, "no-progress", false, "never draw progress bars (they are drawn only when stderr is a terminal)")
}

// addUploadFlags adds the flags of commands that upload blobs.
func (r *remoteOptions) addUploadFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.ChunkSize, "chunk-size", "", "upload blobs in PATCH chunks of at most this size (such as 5MiB), for registries or proxies that limit one request; default: one request per blob")
}

// addRemoteOnlyFlag adds --remote to a command that reads a package from
// the local store first.
func (r *remoteOptions) addRemoteOnlyFlag(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&r.RemoteOnly, "remote", false, "read from the registry even if the local store has the reference")
}

// addOfflineFlag adds --offline to a command that reads a package the
// way oras, crane and helm do: a registry reference is the registry's to
// resolve, and --offline reads the local store instead. --remote, which
// asked the registry before that was the default, is still accepted.
func (r *remoteOptions) addOfflineFlag(cmd *cobra.Command) {
	r.registryFirst = true
	f := cmd.Flags()
	f.BoolVar(&r.Offline, "offline", false, "read the local store only, never a registry")
	f.BoolVar(&r.RemoteOnly, "remote", false, "ask the registry (the default for a registry reference; kept for scripts)")
	_ = f.MarkHidden("remote")
	cmd.MarkFlagsMutuallyExclusive("offline", "remote")
}

// lookupScope is where a command reading a package looks for it.
func (r *remoteOptions) lookupScope() source.Scope {
	switch {
	case r.Offline:
		return source.LocalOnly
	case r.RemoteOnly, r.registryFirst:
		return source.RemoteOnly
	}
	return source.LocalThenRemote
}

// client builds the registry client of one command.
func (r *remoteOptions) client(global *globalOptions) (*registry.Client, error) {
	var chunk int64
	if r.ChunkSize != "" {
		n, err := units.RAMInBytes(r.ChunkSize)
		if err != nil || n <= 0 {
			return nil, errdefs.Invalid(fmt.Errorf("--chunk-size %q: want a size such as 5MiB", r.ChunkSize))
		}
		chunk = n
	}
	timeout := r.Timeout
	if timeout == 0 && r.messages != nil { // --timeout 0: no limit
		timeout = -1
	}
	var onWait registry.WaitFunc
	if r.messages != nil {
		out := r.messages()
		onWait = func(host string, wait time.Duration, reason string) {
			fmt.Fprintf(out, "%s asks to wait %s before retrying (%s); waiting\n", host, wait.Round(100*time.Millisecond), reason)
		}
	}
	return registry.New(registry.Options{
		PlainHTTP:      r.PlainHTTP.value(),
		Insecure:       r.Insecure,
		CAFile:         r.CAFile,
		RegistryConfig: r.RegistryConfig,
		UserAgent:      "stax/" + buildVersion(),
		Timeout:        timeout,
		OnWait:         onWait,
		ChunkSize:      chunk,
		Trace:          global.trace(),
		Clock:          global.clock,
		BeforeTLS:      trustFallbackRoots,
	})
}

// opener builds the target opener of one command.
func (r *remoteOptions) opener(global *globalOptions) (*target.Opener, error) {
	client, err := r.client(global)
	if err != nil {
		return nil, err
	}
	dir, err := global.storeDir()
	if err != nil {
		return nil, err
	}
	lockDir, err := store.LockDirFrom(global.getenv)
	if err != nil {
		return nil, err
	}
	o := &target.Opener{StoreDir: dir, Layout: global.Layout, Registry: client, Warnings: termtext.Writer{W: global.errOut}, LockDir: lockDir}
	if !global.json() {
		// With --output json a failure is the one thing on stderr.
		o.Notes = o.Warnings
	}
	return o, nil
}
