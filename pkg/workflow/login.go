package workflow

import (
	"context"

	"oras.land/oras-go/v2/registry/remote/auth"
)

// LoginOptions are the credentials Login checks and saves.
type LoginOptions struct {
	// Host is the registry, as docker login names it (docker.io,
	// ghcr.io, localhost:5000). Required.
	Host string
	// Username and Password are the credentials; a token goes in
	// Password. Both required: the caller asks for them, on a terminal or
	// from its flags, before the job runs.
	Username string
	Password string
}

// LoginResult is the registry Login saved credentials for. It never
// holds the password.
type LoginResult struct {
	Registry string `json:"registry"`
	Username string `json:"username"`
}

// Login checks the credentials against the registry and, if it accepts
// them, saves them in the Docker credential store the Env's registry
// client reads (its config file or the credential helper it names).
func Login(ctx context.Context, env *Env, opts LoginOptions) (*LoginResult, error) {
	cred := auth.Credential{Username: opts.Username, Password: opts.Password}
	if err := env.Opener.Registry.Login(ctx, opts.Host, cred); err != nil {
		return nil, err
	}
	return &LoginResult{Registry: opts.Host, Username: opts.Username}, nil
}

// LogoutOptions name the registry whose credentials Logout removes.
type LogoutOptions struct {
	// Host is the registry, as Login names it. Required.
	Host string
}

// LogoutResult says whether Logout removed anything.
type LogoutResult struct {
	Registry string `json:"registry"`
	// Removed is false when no credentials of the registry were saved.
	Removed bool `json:"removed"`
}

// Logout removes the saved credentials of a registry from the Docker
// credential store the Env's registry client reads. Credentials that were
// never saved are not an error: Removed says so.
func Logout(ctx context.Context, env *Env, opts LogoutOptions) (*LogoutResult, error) {
	removed, err := env.Opener.Registry.Logout(ctx, opts.Host)
	if err != nil {
		return nil, err
	}
	return &LogoutResult{Registry: opts.Host, Removed: removed}, nil
}
