package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/stax-dev/stax/pkg/errdefs"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"
)

// Login checks cred against the registry at host and, only if the registry
// accepts it, saves it in the credential store under the name docker uses.
func (c *Client) Login(ctx context.Context, host string, cred auth.Credential) error {
	reg, err := c.Registry(host)
	if err != nil {
		return err
	}
	// A client of its own: the shared one would answer from its cache or
	// from credentials already saved, and prove nothing about these.
	check := *c.http
	check.Cache = auth.NewCache()
	check.Credential = recordingCredentials(c.secrets, auth.StaticCredential(reg.Reference.Registry, cred))
	reg.Client = &check
	if err := reg.Ping(ctx); err != nil {
		var resp *errcode.ErrorResponse
		if errors.As(err, &resp) && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
			return errdefs.MarkUnavailable(fmt.Errorf("%s did not accept the credentials for %s: check the user name and password or token (%w)", host, cred.Username, err))
		}
		return Explain(err, host, host)
	}
	if err := c.creds.Put(ctx, CredentialKey(host), cred); err != nil {
		return errdefs.MarkLocal(fmt.Errorf("save credentials for %s: %w", host, err))
	}
	return nil
}

// Logout removes the saved credentials of host, and reports whether there
// were any.
func (c *Client) Logout(ctx context.Context, host string) (bool, error) {
	key := CredentialKey(host)
	saved, err := c.creds.Get(ctx, key)
	if err != nil {
		return false, errdefs.MarkLocal(fmt.Errorf("read credentials for %s: %w", host, err))
	}
	if saved == auth.EmptyCredential {
		return false, nil
	}
	if err := c.creds.Delete(ctx, key); err != nil {
		return false, errdefs.MarkLocal(fmt.Errorf("remove credentials for %s: %w", host, err))
	}
	return true, nil
}
