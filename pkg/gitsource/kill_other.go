//go:build !unix

package gitsource

import "os/exec"

// killAll leaves cancelling cmd as exec does it, killing cmd alone: a
// helper git started ends when it next writes to it.
func killAll(cmd *exec.Cmd) {}
