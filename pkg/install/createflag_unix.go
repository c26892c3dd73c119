//go:build unix

package install

import "syscall"

// createFlag is added to the flags a staged file is created with. A new
// regular file never blocks, and the non-blocking flag tells package os
// so: opened without it, os.File sets and clears it on every file it
// opens to try the poller, four fcntl calls for each file staged.
const createFlag = syscall.O_NONBLOCK
