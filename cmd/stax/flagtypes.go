package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/docker/go-units"

	"github.com/stax-dev/stax/layers"
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

// optionalBool is a boolean flag that remembers whether it was given, so
// that --plain-http=false can override the loopback default.
type optionalBool struct{ set, v bool }

func (b *optionalBool) String() string { return strconv.FormatBool(b.v) }
func (b *optionalBool) Type() string   { return "bool" }
func (b *optionalBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.set, b.v = true, v
	return nil
}

// value is nil when the flag was not given.
func (b *optionalBool) value() *bool {
	if !b.set {
		return nil
	}
	return &b.v
}
