package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/docker/go-units"
	"github.com/spf13/cobra"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
)

// byteSize is a size flag such as --max-size: 64MiB, 200MB, or 0 for no
// limit. It is checked as the flag is parsed.
type byteSize struct {
	text string
	n    int64
}

func newByteSize(text string) byteSize {
	n, _ := units.RAMInBytes(text)
	return byteSize{text: text, n: n}
}

func (b *byteSize) String() string { return b.text }
func (b *byteSize) Type() string   { return "size" }
func (b *byteSize) Set(s string) error {
	n, err := units.RAMInBytes(s)
	if err != nil || n < 0 {
		return fmt.Errorf("want a size such as 64MiB, 200MB or 0 for no limit")
	}
	b.text, b.n = s, n
	return nil
}

// Limit is the size as the libraries take it: negative for no limit.
func (b *byteSize) Limit() int64 {
	if b.n == 0 {
		return -1
	}
	return b.n
}

// symlinkMode is --symlink-mode.
type symlinkMode layers.SymlinkMode

func (m *symlinkMode) String() string { return string(*m) }
func (m *symlinkMode) Type() string   { return "mode" }
func (m *symlinkMode) Set(s string) error {
	switch v := layers.SymlinkMode(s); v {
	case layers.SymlinkReject, layers.SymlinkFlatten:
		*m = symlinkMode(v)
		return nil
	}
	return fmt.Errorf("want %q or %q", layers.SymlinkReject, layers.SymlinkFlatten)
}

// rfc3339 is a time flag such as --created.
type rfc3339 struct{ t *time.Time }

func (r *rfc3339) String() string {
	if r.t == nil {
		return ""
	}
	return r.t.Format(time.RFC3339)
}
func (r *rfc3339) Type() string { return "time" }
func (r *rfc3339) Set(s string) error {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("want RFC 3339, such as 2026-01-02T15:04:05Z")
	}
	r.t = &t
	return nil
}

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

// addSymlinks registers --symlink-mode.
func (b *buildFlags) addSymlinks(cmd *cobra.Command) {
	b.Symlinks = symlinkMode(layers.SymlinkReject)
	cmd.Flags().Var(&b.Symlinks, "symlink-mode", "what to do with symlinks: reject, or flatten (package the files they point to inside the package root)")
}

// addBuild registers --max-size, --symlink-mode and --created: the flags
// of every command that may build a package directory. when prefixes
// their help ("when building DIR: ").
func (b *buildFlags) addBuild(cmd *cobra.Command, what, when string) {
	b.addMaxSize(cmd, what)
	cmd.Flags().Var(&b.Created, "created", when+"creation time, RFC 3339 (default: SOURCE_DATE_EPOCH, else 1970-01-01T00:00:00Z)")
	b.addSymlinks(cmd)
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
	opts := pack.Options{Strict: b.Strict, Symlinks: layers.SymlinkMode(b.Symlinks), MaxSize: b.MaxSize.Limit()}
	if b.Created.t != nil {
		opts.Created = *b.Created.t
		return opts, nil
	}
	when, err := sourceDate(getenv)
	opts.Created = when
	return opts, err
}

// sourceDate is SOURCE_DATE_EPOCH, else zero (the epoch).
func sourceDate(getenv func(string) string) (time.Time, error) {
	env := getenv("SOURCE_DATE_EPOCH")
	if env == "" {
		return time.Time{}, nil
	}
	secs, err := strconv.ParseInt(env, 10, 64)
	if err != nil {
		return time.Time{}, errdefs.Invalid(fmt.Errorf("SOURCE_DATE_EPOCH=%q: want a number of seconds since the Unix epoch", env))
	}
	return time.Unix(secs, 0), nil
}

// maxFilesFlag is --max-files: the most entries (files and directories) a
// skills layer may hold.
type maxFilesFlag int

func (m *maxFilesFlag) String() string { return strconv.Itoa(int(*m)) }
func (m *maxFilesFlag) Type() string   { return "int" }
func (m *maxFilesFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("want a count, or 0 for no limit")
	}
	*m = maxFilesFlag(n)
	return nil
}

// Limit is the layers.ReadOptions.MaxFiles of the flag.
func (m *maxFilesFlag) Limit() int {
	if *m == 0 {
		return -1
	}
	return int(*m)
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
