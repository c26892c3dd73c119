package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// Beyond the loopback interface, Serve refuses to listen without a token,
// as an invalid argument that names the address, and serves nothing.
func TestServeBeyondLoopbackNeedsAToken(t *testing.T) {
	t.Parallel()
	rt, _ := agent.Lookup("claude-code")
	f := newFixture(t)
	var stderr bytes.Buffer
	err := Serve(context.Background(), ServeOptions{
		Options: Options{Runtime: rt, Project: f.project, Home: f.home},
		HTTP:    "0.0.0.0:0", Stderr: &stderr,
	})
	var listen *ListenError
	if !errors.As(err, &listen) || !errors.Is(err, ErrNoToken) || listen.Listening == nil || errdefs.Of(err) != errdefs.InvalidArgument {
		t.Fatalf("err = %v (%s): want a ListenError for the missing token, an invalid argument", err, errdefs.Of(err))
	}
	if strings.Contains(stderr.String(), "serving") {
		t.Errorf("stderr = %q: want nothing served", stderr.String())
	}
}

// An address that is not HOST:PORT is an invalid argument naming it.
func TestServeRefusesAnAddressWithoutAPort(t *testing.T) {
	t.Parallel()
	rt, _ := agent.Lookup("claude-code")
	f := newFixture(t)
	err := Serve(context.Background(), ServeOptions{Options: Options{Runtime: rt, Project: f.project, Home: f.home}, HTTP: "localhost"})
	var listen *ListenError
	if !errors.As(err, &listen) || listen.Addr != "localhost" || errdefs.Of(err) != errdefs.InvalidArgument {
		t.Fatalf("err = %v (%s): want a ListenError naming localhost, an invalid argument", err, errdefs.Of(err))
	}
}
