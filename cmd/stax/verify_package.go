package main

import (
	"context"
	"errors"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/workflow"
)

func runVerifyPackage(ctx context.Context, opts *verifyOptions) error {
	if opts.Installed {
		return errdefs.Invalid(errors.New("verify either a package REF or --installed, not both"))
	}
	env, finish, err := opts.Env(&opts.Remote)
	if err != nil {
		return err
	}
	res, err := workflow.Verify(ctx, env, workflow.VerifyOptions{
		Ref: opts.Ref, Local: opts.Local, Keys: opts.Keys, Policy: opts.Policy, Limits: layers.Limits{MaxSize: opts.MaxSize.Limit()},
		Identities: opts.Identity.identities(), TrustedRoot: opts.Identity.TrustedRoot,
	})
	finish()
	if res == nil {
		return err
	}
	return printVerifiedPackage(opts.IO, opts.Global, res, err)
}
