package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the streams a command talks through, injected so commands
// run in tests without a shell: results go to Out, messages to ErrOut.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// ErrTTY reports whether ErrOut is a terminal, where progress may be drawn.
	ErrTTY bool
}

// SystemStreams are the process's standard streams.
func SystemStreams() *IOStreams {
	return &IOStreams{
		In:     os.Stdin,
		Out:    os.Stdout,
		ErrOut: os.Stderr,
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}
