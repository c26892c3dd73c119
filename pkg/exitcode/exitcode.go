// Package exitcode maps errors to the process exit codes of the stax
// specification, so that every command reports failures the same way.
package exitcode

import "errors"

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

// Error carries the exit code a failure should produce.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Wrap attaches an exit code to err. A nil err stays nil; an err that
// already carries a code keeps the innermost one, because the layer closest
// to the failure knows best what kind it was.
func Wrap(code int, err error) error {
	if err == nil {
		return nil
	}
	var coded *Error
	if errors.As(err, &coded) {
		return err
	}
	return &Error{Code: code, Err: err}
}

// Of returns the exit code for err: OK for nil, the attached code when there
// is one, and FileSystem otherwise, since an uncategorised failure is most
// often a local I/O problem.
func Of(err error) int {
	if err == nil {
		return OK
	}
	var coded *Error
	if errors.As(err, &coded) {
		return coded.Code
	}
	return FileSystem
}
