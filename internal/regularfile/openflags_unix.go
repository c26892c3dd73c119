//go:build unix

package regularfile

import "syscall"

// openFlags opens without blocking: opening a named pipe for reading
// otherwise waits for a writer, before there is a descriptor to check. A
// regular file reads the same either way.
const openFlags = syscall.O_NONBLOCK
