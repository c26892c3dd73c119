//go:build unix

package main

import "syscall"

// settle has the file system write back what earlier iterations wrote,
// so that a timed command does not pay for the one before it.
func settle() { syscall.Sync() }
