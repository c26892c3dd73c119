//go:build !unix

package install

// createFlag is added to the flags a staged file is created with (see
// createflag_unix.go).
const createFlag = 0
