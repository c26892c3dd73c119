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

// What Ready waits for is waited for before anything is served, and its
// failure is Serve's, with its class: a client sent a request gets no
// answer from a server whose packages could not be stored.
func TestServeWaitsForReady(t *testing.T) {
	t.Parallel()
	rt, _ := agent.Lookup("claude-code")
	f := newFixture(t)
	stored := errdefs.With(errdefs.Unavailable, errors.New("storing the packages failed"))
	var stdout bytes.Buffer
	err := Serve(context.Background(), ServeOptions{
		Options: Options{Runtime: rt, Project: f.project, Home: f.home},
		Ready:   func() error { return stored },
		Stdin:   strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"), Stdout: &stdout,
	})
	if !errors.Is(err, stored) || errdefs.Of(err) != errdefs.Unavailable {
		t.Fatalf("err = %v (%s): want Ready's failure, unavailable", err, errdefs.Of(err))
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout = %q: want nothing served", stdout.String())
	}
	stdout.Reset()
	err = Serve(context.Background(), ServeOptions{
		Options: Options{Runtime: rt, Project: f.project, Home: f.home},
		Ready:   func() error { return nil },
		Stdin:   strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"), Stdout: &stdout,
	})
	if err != nil || !strings.Contains(stdout.String(), `"id":1`) {
		t.Fatalf("err = %v, stdout = %q: want the ping answered once Ready returned", err, stdout.String())
	}
}
