// Command stax packages AI-agent skills as OCI artifacts.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Execute(ctx, os.Args[1:], SystemStreams())
	stop()
	os.Exit(code)
}
