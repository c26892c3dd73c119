// Command stax packages AI-agent skills as OCI artifacts.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	// Root certificates for when the system has none, as in the container
	// image (make image), which holds no CA bundle: stax must still reach
	// registries over HTTPS there. Where the system has roots, they are used.
	_ "golang.org/x/crypto/x509roots/fallback"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Execute(ctx, os.Args[1:], SystemStreams())
	stop()
	os.Exit(code)
}
