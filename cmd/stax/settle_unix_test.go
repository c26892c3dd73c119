//go:build unix

package main

import (
	"syscall"
	"time"
)

// settle has the file system write back what earlier iterations wrote,
// so that a timed command does not pay for the one before it.
func settle() { syscall.Sync() }

// cpuTime is the user and system time the process has used: on a
// machine shared with other jobs it varies less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// userTime is the user part of cpuTime: what stax computes, without the
// kernel's work on the file system, which varies most between runs.
func userTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano())
}
