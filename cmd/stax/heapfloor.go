package main

import "github.com/spf13/cobra"

// The heap below which the binary does not collect garbage while less
// than half of it is live (see package heapfloor). A command's floor
// keeps the peaks of one at 5,000 skills under the 48 MiB
// docs/performance.md sets them. A server's is twice that: its start is
// a command's work and then some (every SKILL.md parsed, the index
// built), which the collector passed over five times at 1,000 skills
// where a pull of them collects twice, and it runs on, holding its index,
// whose memory goal is an RSS of 100 MiB at 5,000 skills; there half the
// floor is live, and the collector runs as without one.
const (
	commandHeapFloor = 16 << 20
	serverHeapFloor  = 32 << 20
)

// serverAnnotation marks a command that serves until it is stopped.
const serverAnnotation = "stax.dev/server"

// heapFloorOf is the heap floor of cmd.
func heapFloorOf(cmd *cobra.Command) uint64 {
	if cmd.Annotations[serverAnnotation] != "" {
		return serverHeapFloor
	}
	return commandHeapFloor
}
