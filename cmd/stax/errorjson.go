package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/stax-dev/stax/pkg/termtext"
)

// jsonError is what --output json prints on stderr for a failure, inside
// {"error": …}. Code is one of errorCodes: scripts branch on it, so a code
// is never renamed.
type jsonError struct {
	Exit    int    `json:"exit"`
	Code    string `json:"code"`
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Hint    string `json:"hint,omitempty"`
}

// describeError is err as --output json reports it, exiting with exit.
func describeError(err error, exit int) jsonError {
	e := jsonError{Exit: exit, Code: exitClasses[exit], Message: err.Error()}
	for _, c := range errorCodes {
		if c.match(err) {
			e.Code, e.Hint = c.Code, c.Hint
			if c.where != nil {
				e.File, e.Line = c.where(err)
			}
			break
		}
	}
	return e
}

// printError writes err to w: one JSON object when asJSON, else an
// "Error: " line with every character a terminal would act on escaped
// (termtext.EscapeLines), since a message quotes what came from outside.
// JSON escapes them itself.
func printError(w io.Writer, err error, exit int, asJSON bool) {
	if !asJSON {
		fmt.Fprintf(w, "Error: %s\n", termtext.EscapeLines(err.Error()))
		return
	}
	// One line, so a log that interleaves stderr keeps it whole.
	line, merr := json.Marshal(map[string]jsonError{"error": describeError(err, exit)})
	if merr != nil {
		fmt.Fprintf(w, "Error: %s\n", termtext.EscapeLines(err.Error()))
		return
	}
	fmt.Fprintf(w, "%s\n", termtext.JSON(line))
}

// argsAskJSON reports whether args ask for --output json, for failures
// cobra finds before it parses flags (an unknown command).
func argsAskJSON(args []string) bool {
	for i, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--output=json", a == "--output" && i+1 < len(args) && args[i+1] == outputJSON:
			return true
		}
	}
	return false
}
