package registry

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/termtext"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"
)

// Explain turns a failure talking to host into an error that says what
// happened and how to fix it, with the registry exit code. target names
// what was being accessed (a reference or a repository).
func Explain(err error, host, target string) error {
	if err == nil {
		return nil
	}
	if m := Mismatch(err); m != nil {
		// Whoever noticed it may have classified it already, inside the
		// copy that wraps it in its own words: it is said here, once.
		return errdefs.Reclassify(errdefs.DataLoss, fmt.Errorf(
			"%s: the registry's copy of a blob is corrupt, its content does not match its digest (%w); nothing was kept. A registry keeps the copy it stored of a digest, so pushing the package again does not replace it: ask the operator of %s to repair the blob (a proxy between you and it can alter blobs too)",
			target, m, host))
	}
	if errdefs.Of(err) != errdefs.Unclassified || errors.Is(err, context.Canceled) {
		return err
	}
	class := errdefs.Unavailable
	if errors.Is(err, errdef.ErrInvalidDigest) || sizeMismatch(err) {
		class = errdefs.DataLoss
	}
	return errdefs.With(class, explain(outsideText{err}, host, target))
}

// outsideText is an error whose text holds what a registry or the network
// wrote (an ErrorResponse quotes the registry's message), so its Error is
// escaped (termtext.Escape) before it joins stax's message: a line feed in
// it cannot forge a line of the "Error:" output, and JSON quotes it as
// the text does. errors.Is and errors.As see the error itself.
type outsideText struct{ err error }

func (e outsideText) Error() string { return termtext.Escape(e.err.Error()) }
func (e outsideText) Unwrap() error { return e.err }

// Mismatch is nil unless err is content whose bytes are not those its
// digest names (oras-go's content.ErrMismatchedDigest, which stax's
// verifying readers, store and layer reader match too). Then it is the
// error of err's chain closest to the mismatch that still says which
// blob it was, in the words of whoever noticed it, without those of the
// copies around it (oras-go's "failed to perform "Push" on destination:
// failed to ingest: copy failed").
func Mismatch(err error) error {
	if !errors.Is(err, content.ErrMismatchedDigest) {
		return nil
	}
	for {
		next := errors.Unwrap(err)
		if next == nil || next == content.ErrMismatchedDigest || !errors.Is(next, content.ErrMismatchedDigest) {
			return err
		}
		err = next
	}
}

func explain(err error, host, target string) error {
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) {
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			return fmt.Errorf("authentication required for %s: run `stax login %s` (%w)", host, host, err)
		case http.StatusForbidden:
			if resp.Method != http.MethodGet && resp.Method != http.MethodHead {
				return fmt.Errorf("the credentials for %s lack push access to %s: ask for write access, or log in as a user who has it (for GHCR, a token with write:packages) (%w)", host, target, err)
			}
			return fmt.Errorf("access to %s denied by %s: the credentials lack permission for it (for GHCR, a token with read:packages to pull, write:packages to push) (%w)", target, host, err)
		case http.StatusNotFound:
			return fmt.Errorf("%s not found on %s: check the repository and tag (%w)", target, host, err)
		case http.StatusTooManyRequests:
			return fmt.Errorf("%s is rate-limiting requests and retries did not get through: wait, or log in for a higher limit (%w)", host, err)
		case http.StatusBadRequest:
			// What a TLS server answers to plain HTTP, which stax speaks
			// to loopback hosts unless told otherwise.
			if resp.URL != nil && resp.URL.Scheme == "http" {
				return fmt.Errorf("registry %s refused a plain-HTTP request for %s: if it serves HTTPS, pass --plain-http=false (%w)", host, target, err)
			}
		}
		return fmt.Errorf("registry %s refused the request for %s: %w", host, target, err)
	}
	var stall *StallError
	if errors.As(err, &stall) {
		return fmt.Errorf("registry %s stopped answering (%w): check the network, or pass a longer --timeout", host, stall)
	}
	var read *ReadError
	if errors.As(err, &read) {
		return fmt.Errorf("the connection to %s kept breaking (%w): check the network, and try again", host, read)
	}
	switch {
	case errors.Is(err, auth.ErrBasicCredentialNotFound):
		return fmt.Errorf("authentication required for %s: run `stax login %s` (%w)", host, host, err)
	case errors.Is(err, errdef.ErrNotFound):
		return fmt.Errorf("%s not found on %s: check the repository and tag (%w)", target, host, err)
	case errors.Is(err, errdef.ErrInvalidDigest):
		return fmt.Errorf("content from %s does not match its digest (%w): the registry or something between it and you altered a blob; nothing was kept", host, err)
	case sizeMismatch(err):
		return fmt.Errorf("content from %s is not the size its descriptor gives (%w): the registry or something between it and you altered it; nothing was kept", host, err)
	case errors.Is(err, errdef.ErrSizeExceedsLimit):
		return fmt.Errorf("content from %s is larger than allowed (%w)", host, err)
	}
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	if errors.As(err, &unknownCA) || errors.As(err, &hostname) {
		return fmt.Errorf("the TLS certificate of %s is not trusted: pass --ca-file with its CA, or --insecure to skip verification (%w)", host, err)
	}
	if strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") {
		return fmt.Errorf("%s serves plain HTTP: pass --plain-http (%w)", host, err)
	}
	var netErr net.Error
	var opErr *net.OpError
	if errors.As(err, &opErr) || errors.As(err, &netErr) {
		return fmt.Errorf("cannot reach %s: %w", host, err)
	}
	return fmt.Errorf("registry %s: %w", host, err)
}

// sizeMismatch reports whether err is oras-go refusing content a registry
// served whole but of another size than its descriptor gives: content
// that is not what was asked for, like a digest mismatch. oras-go has a
// sentinel error for a body longer than the descriptor only; it words the
// others, a Content-Length that differs and a body that ends before the
// size (a clean end: a connection that breaks is read again, and reported
// as a ReadError), without one.
func sizeMismatch(err error) bool {
	var read *ReadError
	var stall *StallError
	if errors.As(err, &read) || errors.As(err, &stall) {
		return false // the network's doing, whatever oras-go made of it
	}
	if errors.Is(err, content.ErrTrailingData) {
		return true
	}
	// A connection that broke is a ReadError or a StallError by now (see
	// above): a body that still ends early ended cleanly, short of its size,
	// however oras-go wrapped it (content.ReadAll, or the copy into a store).
	return strings.Contains(err.Error(), ": mismatch Content-Length") || errors.Is(err, io.ErrUnexpectedEOF)
}
