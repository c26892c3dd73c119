package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/mcpserver"
)

// httpFlagError says what is wrong with --http in the words of the flags.
func httpFlagError(err error) error {
	var listen *mcpserver.ListenError
	switch {
	case !errors.As(err, &listen):
		return err
	case errors.Is(listen.Err, mcpserver.ErrNoToken):
		return errdefs.Invalid(fmt.Errorf("--http %s listens beyond this machine, where anyone who reaches %s could read the skills: "+
			"set a token in $%s or --token-file, or listen on 127.0.0.1", listen.Addr, listen.Listening, mcpTokenEnv))
	}
	return errdefs.With(errdefs.Of(err), fmt.Errorf("--http: %w", listen.Err))
}

// token is the bearer token of --http: the content of --token-file, or
// $STAX_MCP_TOKEN, without surrounding white space; "" for none, and for
// stdio, which has no use for one.
func (opts *mcpOptions) token() (string, error) {
	env := opts.Getenv(mcpTokenEnv)
	if opts.HTTP == "" && opts.TokenFile == "" {
		return "", nil
	}
	if opts.TokenFile == "" {
		if env == "" {
			return "", nil
		}
		token := strings.TrimSpace(env)
		if err := mcpserver.CheckToken(token); err != nil {
			return "", errdefs.Invalid(fmt.Errorf("$%s: %w", mcpTokenEnv, err))
		}
		return token, nil
	}
	if opts.HTTP == "" {
		return "", errdefs.Invalid(errors.New("--token-file is for --http: the stdio transport has no tokens"))
	}
	if env != "" {
		return "", errdefs.Invalid(fmt.Errorf("both $%s and --token-file are set: unset one", mcpTokenEnv))
	}
	data, err := regularfile.ReadFile(opts.TokenFile, maxTokenFileBytes)
	if errors.Is(err, regularfile.ErrTooLarge) {
		return "", fmt.Errorf("--token-file: %w; the file holds the token alone", err)
	}
	if err != nil {
		return "", errdefs.MarkLocal(fmt.Errorf("--token-file: %w", err))
	}
	token := strings.TrimSpace(string(data))
	if err := mcpserver.CheckToken(token); err != nil {
		return "", errdefs.Invalid(fmt.Errorf("--token-file %s: %w", opts.TokenFile, err))
	}
	return token, nil
}

// maxTokenFileBytes bounds what --token-file reads: a token and the white
// space around it.
const maxTokenFileBytes = 8 << 10
