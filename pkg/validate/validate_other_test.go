//go:build !unix

package validate

// specialFileCases is empty where FIFOs, sockets and devices cannot be made.
func specialFileCases() []validateCase { return nil }
