// Package exitcode maps the class of an error to the process exit code of
// the stax specification. Only the command root uses it: libraries attach
// classes (package errdefs), never codes.
package exitcode

import "github.com/stax-dev/stax/pkg/errdefs"

// The exit codes of the stax specification.
const (
	OK              = 0
	Validation      = 1 // invalid input or usage
	FileSystem      = 2 // local build or file-system error
	Registry        = 3 // registry or remote error
	Resolution      = 4 // package resolution
	Materialization = 5 // materialization or compatibility
	Verification    = 6 // signature or verification
)

var codes = map[errdefs.Class]int{
	errdefs.InvalidArgument:    Validation,
	errdefs.Local:              FileSystem,
	errdefs.Unavailable:        Registry,
	errdefs.Unresolved:         Resolution,
	errdefs.FailedPrecondition: Materialization,
	errdefs.DataLoss:           Verification,
}

// Of is the exit code of err, and whether a class claimed it: OK for nil;
// the code of its class; FileSystem, unclaimed, for an error no class
// claims (a bug: every failure should say what kind it is).
func Of(err error) (code int, claimed bool) {
	if err == nil {
		return OK, true
	}
	if code, ok := codes[errdefs.OfOrLocal(err)]; ok {
		return code, true
	}
	return FileSystem, false
}
