package main

import (
	"bytes"
	"errors"
	"fmt"
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
	// Prompter asks the user at the terminal; it is nil when standard
	// input is not a terminal, so that a command never waits for an answer
	// no one can type and says which flags to pass instead.
	Prompter Prompter
}

// Prompter asks the user a question at a terminal.
type Prompter interface {
	// Input asks for a line, echoed as it is typed.
	Input(prompt string) (string, error)
	// Password asks for a secret, not echoed.
	Password(prompt string) (string, error)
}

// SystemStreams are the process's standard streams.
func SystemStreams() *IOStreams {
	streams := &IOStreams{
		In:     os.Stdin,
		Out:    os.Stdout,
		ErrOut: os.Stderr,
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
	if term.IsTerminal(int(os.Stdin.Fd())) {
		// Prompts go to stderr, so that stdout holds only results.
		streams.Prompter = terminalPrompter{in: os.Stdin, out: os.Stderr}
	}
	return streams
}

// terminalPrompter asks on the terminal in, showing prompts on out.
type terminalPrompter struct {
	in  *os.File
	out io.Writer
}

// maxAnswer bounds a line typed at a prompt.
const maxAnswer = 4096

func (p terminalPrompter) Input(prompt string) (string, error) {
	fmt.Fprint(p.out, prompt)
	// Read a byte at a time so that nothing typed after the line is
	// taken from the terminal before the next prompt reads it.
	var line []byte
	b := make([]byte, 1)
	for len(line) < maxAnswer {
		n, err := p.in.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				return string(bytes.TrimSuffix(line, []byte("\r"))), nil
			}
			line = append(line, b[0])
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				fmt.Fprintln(p.out)
				return string(line), nil
			}
			return "", err
		}
	}
	return "", fmt.Errorf("an answer of more than %d bytes", maxAnswer)
}

func (p terminalPrompter) Password(prompt string) (string, error) {
	fmt.Fprint(p.out, prompt)
	secret, err := term.ReadPassword(int(p.in.Fd()))
	// The newline the user typed was not echoed.
	fmt.Fprintln(p.out)
	return string(secret), err
}
