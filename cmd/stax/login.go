package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/stax-dev/stax/pkg/errdefs"
	"oras.land/oras-go/v2/registry/remote/auth"
)

type loginOptions struct {
	IO            *IOStreams
	Global        *globalOptions
	Remote        remoteOptions
	Host          string
	Username      string
	Password      string
	PasswordStdin bool
}

type loginResult struct {
	Registry string `json:"registry"`
	Username string `json:"username"`
}

func newLoginCmd(f *factory, runF func(context.Context, *loginOptions) error) *cobra.Command {
	opts := &loginOptions{IO: f.IO, Global: f.Global}
	cmd := &cobra.Command{
		Use:   "login [HOST]",
		Short: "Save registry credentials after checking them against the registry",
		Long: `Check a username and password (or token) against the registry at HOST
(default docker.io) and, if it accepts them, save them in the Docker
credential store: ~/.docker/config.json or $DOCKER_CONFIG/config.json, or
the credential helper it names (credsStore, credHelpers). The file is
written with mode 0600. Credentials are never printed.`,
		Example: `  echo "$GITHUB_TOKEN" | stax login ghcr.io -u "$GITHUB_ACTOR" --password-stdin
  stax login localhost:5000 -u ci --password-stdin < token.txt`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Host = "docker.io"
			if len(args) == 1 {
				opts.Host = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runLogin(cmd.Context(), opts)
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&opts.Username, "username", "u", "", "user name")
	flags.StringVarP(&opts.Password, "password", "p", "", "password or token (prefer --password-stdin: a flag shows in the process list and shell history)")
	flags.BoolVar(&opts.PasswordStdin, "password-stdin", false, "read the password or token from standard input")
	opts.Remote.addFlags(cmd)
	return cmd
}

func runLogin(ctx context.Context, opts *loginOptions) error {
	if opts.Username == "" {
		return errdefs.Invalid(fmt.Errorf("give a user name with -u"))
	}
	password := opts.Password
	switch {
	case opts.PasswordStdin && password != "":
		return errdefs.Invalid(fmt.Errorf("--password and --password-stdin are exclusive"))
	case opts.PasswordStdin:
		data, err := io.ReadAll(io.LimitReader(opts.IO.In, 1<<20))
		if err != nil {
			return errdefs.IO(fmt.Errorf("read password from stdin: %w", err))
		}
		password = strings.TrimRight(string(data), "\r\n")
	case password != "":
		fmt.Fprintln(opts.IO.ErrOut, "warning: --password is visible to other users of this machine; use --password-stdin")
	}
	if password == "" {
		return errdefs.Invalid(fmt.Errorf("no password: pipe it to --password-stdin"))
	}
	client, err := opts.Remote.client(opts.Global)
	if err != nil {
		return err
	}
	if err := client.Login(ctx, opts.Host, auth.Credential{Username: opts.Username, Password: password}); err != nil {
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, loginResult{Registry: opts.Host, Username: opts.Username})
	}
	fmt.Fprintf(opts.IO.ErrOut, "Login to %s succeeded\n", opts.Host)
	return nil
}

type logoutResult struct {
	Registry string `json:"registry"`
	// Removed is false when no credentials of the registry were saved.
	Removed bool `json:"removed"`
}

type logoutOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Remote remoteOptions
	Host   string
}

func newLogoutCmd(f *factory, runF func(context.Context, *logoutOptions) error) *cobra.Command {
	opts := &logoutOptions{IO: f.IO, Global: f.Global}
	cmd := &cobra.Command{
		Use:     "logout [HOST]",
		Short:   "Remove saved registry credentials",
		Example: "  stax logout ghcr.io",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Host = "docker.io"
			if len(args) == 1 {
				opts.Host = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runLogout(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Remote.RegistryConfig, "registry-config", "", "Docker config file holding credentials")
	return cmd
}

func runLogout(ctx context.Context, opts *logoutOptions) error {
	client, err := opts.Remote.client(opts.Global)
	if err != nil {
		return err
	}
	removed, err := client.Logout(ctx, opts.Host)
	if err != nil {
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, logoutResult{Registry: opts.Host, Removed: removed})
	}
	if !removed {
		fmt.Fprintf(opts.IO.ErrOut, "No credentials of %s were saved\n", opts.Host)
		return nil
	}
	fmt.Fprintf(opts.IO.ErrOut, "Removed the credentials of %s\n", opts.Host)
	return nil
}
