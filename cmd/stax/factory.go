package main

// factory holds what every command is built from: its streams, the
// global flags, and the environment it reads. Tests build one with their
// own streams and environment.
type factory struct {
	IO     *IOStreams
	Global *globalOptions
	// Getenv is the environment commands read.
	Getenv func(string) string
}

func newFactory(streams *IOStreams, global *globalOptions) *factory {
	return &factory{IO: streams, Global: global, Getenv: global.getenv}
}
