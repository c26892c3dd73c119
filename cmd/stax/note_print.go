package main

import (
	"fmt"
	"io"

	"github.com/stax-dev/stax/pkg/termtext"
)

// printNote writes a note of kind ("warning", "notice") to w, one line.
// Notes quote what packages, registries and overrides say, so every note
// goes through termtext.Escape here, the one place they are printed:
// nothing in a note can act on the terminal or forge a line.
func printNote(w io.Writer, kind, text string) {
	fmt.Fprintf(w, "%s: %s\n", kind, termtext.Escape(text))
}
