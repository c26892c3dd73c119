package layers

import "runtime"

// maxExtractWorkers caps ExtractWorkers on machines with many CPUs: each
// worker holds its own buffers, decompressor and open files, and the
// file system's own locks leave little to gain past a few at once.
const maxExtractWorkers = 8

// ExtractWorkers is how many layers a command extracts at once unless
// told otherwise: one for each CPU Go may use (GOMAXPROCS), at most
// maxExtractWorkers. Extracting a layer is mostly inflating and hashing
// it, so more workers than CPUs would only take turns; fewer leave CPUs
// idle while one layer is read after another.
func ExtractWorkers() int {
	return max(1, min(runtime.GOMAXPROCS(0), maxExtractWorkers))
}
