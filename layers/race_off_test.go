//go:build !race

package layers

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = false
