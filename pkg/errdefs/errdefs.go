// Package errdefs holds the few classes every failure of stax falls in, in
// the manner of containerd/errdefs: libraries attach a class to the errors
// they return, and only the command root turns a class into an exit code.
// A class never changes an error's message.
package errdefs

import (
	"context"
	"errors"
	"io/fs"
	"os"
)

// Class is a kind of failure.
type Class int

// The classes. Unclassified is the zero value: an error no class claims.
const (
	Unclassified Class = iota
	// InvalidArgument: the input or the usage is wrong (a flag, a
	// reference, skills that do not validate).
	InvalidArgument
	// Local: the local file system or build failed.
	Local
	// Unavailable: a registry or other remote failed or refused.
	Unavailable
	// Unresolved: packages could not be resolved (a missing dependency, a
	// cycle, a lock that does not match).
	Unresolved
	// FailedPrecondition: the state on disk forbids materializing (a
	// conflict, a layer stax refuses to extract, a limit crossed).
	FailedPrecondition
	// DataLoss: content is not what its digest or signature says.
	DataLoss
)

var names = [...]string{"unclassified", "invalid argument", "local", "unavailable", "unresolved", "failed precondition", "data loss"}

func (c Class) String() string {
	if c < 0 || int(c) >= len(names) {
		return "unknown"
	}
	return names[c]
}

// classified attaches a class to an error without changing its message.
type classified struct {
	class Class
	err   error
}

func (e *classified) Error() string { return e.err.Error() }
func (e *classified) Unwrap() error { return e.err }

// Classifier is implemented by error types that know their class.
type Classifier interface{ Class() Class }

// With attaches class to err. A nil err stays nil; an err that already has
// a class keeps it, because the layer closest to the failure knows best
// what kind it was.
func With(class Class, err error) error {
	if err == nil || Of(err) != Unclassified {
		return err
	}
	return &classified{class: class, err: err}
}

// Reclassify attaches class to err whatever class it had: for a caller
// that knows better, such as a frozen install, where any failure to fetch
// is a failure to resolve.
func Reclassify(class Class, err error) error {
	if err == nil {
		return nil
	}
	return &classified{class: class, err: err}
}

// Invalid marks err as an invalid argument (With).
func Invalid(err error) error { return With(InvalidArgument, err) }

// MarkLocal marks err as a failure of the local file system (With).
func MarkLocal(err error) error { return With(Local, err) }

// MarkUnavailable marks err as a registry failure (With).
func MarkUnavailable(err error) error { return With(Unavailable, err) }

// Resolution marks err as a failure to resolve packages (With).
func Resolution(err error) error { return With(Unresolved, err) }

// Precondition marks err as a refusal to materialize (With).
func Precondition(err error) error { return With(FailedPrecondition, err) }

// MarkDataLoss marks err as content that does not verify (With).
func MarkDataLoss(err error) error { return With(DataLoss, err) }

// Of is the class of err: the outermost class attached to it, else the
// class its error types claim, else Unclassified.
func Of(err error) Class {
	if err == nil {
		return Unclassified
	}
	var c *classified
	if errors.As(err, &c) {
		return c.class
	}
	var claimer Classifier
	if errors.As(err, &claimer) {
		return claimer.Class()
	}
	return Unclassified
}

// OfOrLocal is Of, with the errors of the standard library that only the
// local machine produces taken as Local: a file-system operation that
// failed, and a run that was stopped. A command root uses it; a library
// attaching a class uses With, which does not look at those.
func OfOrLocal(err error) Class {
	if c := Of(err); c != Unclassified {
		return c
	}
	var pathErr *fs.PathError
	var linkErr *os.LinkError
	if errors.As(err, &pathErr) || errors.As(err, &linkErr) || errors.Is(err, context.Canceled) {
		return Local
	}
	return Unclassified
}
