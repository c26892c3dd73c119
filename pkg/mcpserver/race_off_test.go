//go:build !race

package mcpserver

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = false
