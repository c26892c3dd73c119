package main

import (
	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/pack"
)

// buildFlags are the flags that shape a package built from a directory
// and bound what a command reads: every command that builds or reads
// packages registers them here, so they mean the same everywhere.
type buildFlags struct {
	MaxSize  byteSize
	Symlinks symlinkMode
	Created  rfc3339
	Strict   bool
}

// addMaxSize registers --max-size; what says what it bounds.
func (b *buildFlags) addMaxSize(cmd *cobra.Command, what string) {
	addMaxSizeFlag(cmd, &b.MaxSize, what)
}

// addSymlinks registers --symlink-mode; when prefixes its help.
func (b *buildFlags) addSymlinks(cmd *cobra.Command, when string) {
	b.Symlinks = symlinkMode(layers.SymlinkReject)
	cmd.Flags().Var(&b.Symlinks, "symlink-mode", when+"what to do with symlinks: reject, or flatten (package the files they point to inside the package root)")
}

// addBuild registers --max-size, --symlink-mode and --created: the flags
// of every command that may build a package directory. when prefixes
// their help ("when building DIR: ").
func (b *buildFlags) addBuild(cmd *cobra.Command, what, when string) {
	b.addMaxSize(cmd, what)
	cmd.Flags().Var(&b.Created, "created", when+"creation time, RFC 3339 (default: SOURCE_DATE_EPOCH, else 1970-01-01T00:00:00Z)")
	b.addSymlinks(cmd, when)
}

// addStrict registers --strict.
func (b *buildFlags) addStrict(cmd *cobra.Command, when string) {
	addStrictFlag(cmd, &b.Strict, when)
}

// addStrictFlag registers --strict into strict; when prefixes its help.
func addStrictFlag(cmd *cobra.Command, strict *bool, when string) {
	cmd.Flags().BoolVar(strict, "strict", false, when+"treat validation warnings as errors")
}

// options are the pack options the flags and the environment ask for:
// the creation time is --created, else SOURCE_DATE_EPOCH, else the epoch.
func (b *buildFlags) options(getenv func(string) string) (pack.Options, error) {
	opts := pack.Options{Strict: b.Strict, Symlinks: layers.SymlinkMode(b.Symlinks), Limits: layers.Limits{MaxSize: b.MaxSize.Limit()}}
	if b.Created.t != nil {
		opts.Created = *b.Created.t
		return opts, nil
	}
	when, err := pack.SourceDate(getenv)
	opts.Created = when
	return opts, err
}

// limitFlags are --max-size and --max-files, which fill one
// layers.Limits.
type limitFlags struct {
	MaxSize  byteSize
	MaxFiles maxFilesFlag
}

// add registers --max-size (what says what it bounds) and --max-files.
func (l *limitFlags) add(cmd *cobra.Command, what string) {
	addMaxSizeFlag(cmd, &l.MaxSize, what)
	addMaxFilesFlag(cmd, &l.MaxFiles)
}

// limits are the limits the flags ask for.
func (l *limitFlags) limits() layers.Limits {
	return layers.Limits{MaxSize: l.MaxSize.Limit(), MaxFiles: l.MaxFiles.Limit()}
}

func addMaxFilesFlag(cmd *cobra.Command, value *maxFilesFlag) {
	*value = layers.DefaultMaxFiles
	cmd.Flags().Var(value, "max-files", "most files and directories a skills layer may hold; 0 for no limit")
}

// addMaxSizeFlag adds --max-size, the bound on what a command accepts,
// 64 MiB unless given.
func addMaxSizeFlag(cmd *cobra.Command, value *byteSize, what string) {
	*value = newByteSize("64MiB")
	cmd.Flags().Var(value, "max-size", "largest "+what+"; 0 for no limit")
}
