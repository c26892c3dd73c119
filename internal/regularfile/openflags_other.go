//go:build !unix

package regularfile

// openFlags is empty where opening a file cannot block on a writer.
const openFlags = 0
