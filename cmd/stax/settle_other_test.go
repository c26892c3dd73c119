//go:build !unix

package main

import "time"

func settle() {}

func cpuTime() time.Duration { return 0 }

func userTime() time.Duration { return 0 }
