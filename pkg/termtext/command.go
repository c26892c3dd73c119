package termtext

import "al.essio.dev/pkg/shellescape"

// Command is the command line of args as a hint prints it, for the user
// to paste into a shell: each argument quoted as a POSIX shell reads it
// back, so that a path with a space or a quote stays one argument, and
// one without is printed as it is. Printed on a terminal, the line still
// goes through Escape.
func Command(args ...string) string {
	return shellescape.QuoteCommand(args)
}
