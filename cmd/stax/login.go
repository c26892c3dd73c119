package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/workflow"
)

type loginOptions struct {
	IO            *IOStreams
	Global        *globalOptions
	Env           newEnv
	Remote        remoteOptions
	Host          string
	Username      string
	Password      string
	PasswordStdin bool
}

func newLoginCmd(f *factory, runF func(context.Context, *loginOptions) error) *cobra.Command {
	opts := &loginOptions{IO: f.IO, Global: f.Global, Env: f.Env}
	cmd := &cobra.Command{
		Use:   "login [HOST]",
		Short: "Save registry credentials after checking them against the registry",
		Long: `Check a username and password (or token) against the registry at HOST
(default docker.io) and, if it accepts them, save them in the Docker
credential store: ~/.docker/config.json or $DOCKER_CONFIG/config.json, or
the credential helper it names (credsStore, credHelpers). The file is
written with mode 0600. Credentials are never printed.

On a terminal, a user name or password not given by the flags is asked
for (the password without echo); elsewhere pass --username and pipe the
password to --password-stdin.`,
		Example: `  stax login ghcr.io                  # asks for the user name and password
  echo "$GITHUB_TOKEN" | stax login ghcr.io -u "$GITHUB_ACTOR" --password-stdin
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
	username, password, err := loginCredentials(opts)
	if err != nil {
		return err
	}
	env, _, err := opts.Env(&opts.Remote) // nothing is transferred: nothing to finish
	if err != nil {
		return err
	}
	res, err := workflow.Login(ctx, env, workflow.LoginOptions{Host: opts.Host, Username: username, Password: password})
	if err != nil {
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, res)
	}
	fmt.Fprintf(opts.IO.ErrOut, "Login to %s succeeded\n", res.Registry)
	return nil
}

// loginCredentials are the user name and password of a login: from the
// flags and standard input, else asked on the terminal as docker login and
// oras login ask. Without a terminal, a missing one is a usage error naming
// the flags that give it.
func loginCredentials(opts *loginOptions) (username, password string, err error) {
	username, password = opts.Username, opts.Password
	if opts.PasswordStdin {
		switch {
		case password != "":
			return "", "", flagError(errors.New("--password and --password-stdin are exclusive"))
		case username == "":
			// Standard input holds the password: the user name cannot be asked.
			return "", "", flagError(errors.New("--password-stdin needs the user name in --username (-u)"))
		}
		data, err := io.ReadAll(io.LimitReader(opts.IO.In, 1<<20))
		if err != nil {
			return "", "", errdefs.MarkLocal(fmt.Errorf("read password from stdin: %w", err))
		}
		if password = strings.TrimRight(string(data), "\r\n"); password == "" {
			return "", "", errdefs.Invalid(errors.New("standard input held no password for --password-stdin"))
		}
		return username, password, nil
	}
	if password != "" {
		fmt.Fprintln(opts.IO.ErrOut, "warning: --password is visible to other users of this machine; use --password-stdin")
	}
	prompt := opts.IO.Prompter
	if prompt == nil && (username == "" || password == "") {
		return "", "", flagError(errors.New("stax login needs a user name and a password, and there is no terminal to ask on: pass --username (-u) USER and pipe the password or token to --password-stdin"))
	}
	if username == "" {
		if username, err = prompt.Input("Username: "); err != nil {
			return "", "", errdefs.MarkLocal(fmt.Errorf("read the user name: %w", err))
		}
		if username = strings.TrimSpace(username); username == "" {
			return "", "", errdefs.Invalid(errors.New("no user name given"))
		}
	}
	if password == "" {
		if password, err = prompt.Password("Password: "); err != nil {
			return "", "", errdefs.MarkLocal(fmt.Errorf("read the password: %w", err))
		}
		if password == "" {
			return "", "", errdefs.Invalid(errors.New("no password given"))
		}
	}
	return username, password, nil
}

type logoutOptions struct {
	IO     *IOStreams
	Global *globalOptions
	Env    newEnv
	Remote remoteOptions
	Host   string
}

func newLogoutCmd(f *factory, runF func(context.Context, *logoutOptions) error) *cobra.Command {
	opts := &logoutOptions{IO: f.IO, Global: f.Global, Env: f.Env}
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
	env, _, err := opts.Env(&opts.Remote) // nothing is transferred: nothing to finish
	if err != nil {
		return err
	}
	res, err := workflow.Logout(ctx, env, workflow.LogoutOptions{Host: opts.Host})
	if err != nil {
		return err
	}
	if opts.Global.json() {
		return writeJSON(opts.IO.Out, res)
	}
	if !res.Removed {
		fmt.Fprintf(opts.IO.ErrOut, "No credentials of %s were saved\n", opts.Host)
		return nil
	}
	fmt.Fprintf(opts.IO.ErrOut, "Removed the credentials of %s\n", opts.Host)
	return nil
}
