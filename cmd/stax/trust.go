package main

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/spf13/cobra"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/project"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/trust"
)

// verifyFlags are the signature checks of the commands that bring packages
// in (pull, install, copy): the trust policy, overridden by the flags.
type verifyFlags struct {
	Mode string
	Keys []string
}

func (v *verifyFlags) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&v.Mode, "verify", "", "signature check: none, warn or require (default: the trust policy's, else none)")
	f.StringArrayVar(&v.Keys, "key", nil, "trusted public key file, replacing the trust policy's (repeatable)")
}

// check applies the trust policy ($STAX_HOME/trust.yaml, then project's
// section, then the flags) to pkgs, before anything is written. A package
// that must verify and does not fails the command with exit code 6.
func (v *verifyFlags) check(ctx context.Context, streams *IOStreams, pkgs []trust.Package, project *trust.Policy, require map[digest.Digest]bool, maxSize int64) ([]trust.Outcome, error) {
	home, err := store.Home()
	if err != nil {
		return nil, err
	}
	policy, err := trust.Load(filepath.Join(home, trust.FileName))
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	opts := trust.Options{Policy: trust.Merge(policy, project), Keys: v.Keys, Require: require, Warnings: streams.ErrOut, MaxSize: maxSize}
	if v.Mode != "" {
		if opts.Mode, err = trust.ParseMode(v.Mode); err != nil {
			return nil, errdefs.Invalid(err)
		}
	}
	out, err := trust.Check(ctx, pkgs, opts)
	switch {
	case errors.Is(err, signature.ErrNotVerified):
		return nil, errdefs.Corrupt(err)
	case err != nil:
		return nil, errdefs.Invalid(err)
	}
	return out, nil
}

// graphPackages are the packages of g that came from a registry or an OCI
// layout; one built from a directory has no signature to check.
func graphPackages(g *resolve.Graph) []trust.Package {
	var out []trust.Package
	for _, n := range g.Order {
		if n.Dir != "" {
			continue
		}
		out = append(out, trust.Package{Ref: scopeName(n.Ref), Target: n.Target, Descriptor: n.Package.Descriptor})
	}
	return out
}

// checkTarget applies the trust policy to the package t names, for copy.
func (v *verifyFlags) checkTarget(ctx context.Context, streams *IOStreams, t *target.Target, maxSize int64) error {
	desc, err := t.Lookup(ctx)
	if err != nil {
		return err
	}
	_, err = v.check(ctx, streams, []trust.Package{{Ref: t.Ref.String(), Target: t, Descriptor: desc}}, nil, nil, maxSize)
	return err
}

// scopeName is the full reference trust scopes match, e.g.
// docker.io/acme/skills:1.0.0 for acme/skills:1.0.0.
func scopeName(ref string) string {
	if r, err := reference.Parse(ref); err == nil {
		return r.String()
	}
	return ref
}

// verifiedSigners are the packages a trusted signature verified, by
// digest, with their signer.
func verifiedSigners(outcomes []trust.Outcome) map[digest.Digest]string {
	out := map[digest.Digest]string{}
	for _, o := range outcomes {
		if o.Verified != nil {
			out[o.Digest] = o.Verified.Signer
		}
	}
	return out
}

// projectTrust is the trust section of stax.yaml in dir, its key paths
// relative to dir; nil when there is none.
func projectTrust(def *project.Definition, dir string) *trust.Policy {
	if def == nil || def.Trust == nil {
		return nil
	}
	p := *def.Trust
	p.Dir = dir
	return &p
}

// refuseUnverified applies install.Admit with the user's trust policy,
// for render, show and mcp.
func refuseUnverified(ctx context.Context, skillDir string) error {
	if skillDir == "" {
		return nil
	}
	home, err := store.Home()
	if err != nil {
		return err
	}
	policy, err := trust.Load(filepath.Join(home, trust.FileName))
	if err != nil {
		return errdefs.Invalid(err)
	}
	opener, err := (&remoteOptions{}).opener(&globalOptions{})
	if err != nil {
		return err
	}
	return install.Admit(ctx, skillDir, policy, packageSource(opener))
}

// packageSource opens packages by reference and digest in registries and
// OCI layouts, where their signatures are.
func packageSource(opener *target.Opener) trust.Source {
	return func(ctx context.Context, ref string, d digest.Digest) (content.ReadOnlyGraphStorage, ocispec.Descriptor, func(), error) {
		r, err := reference.Parse(ref)
		if err != nil {
			return nil, ocispec.Descriptor{}, nil, errdefs.Invalid(err)
		}
		r.Digest = d
		src, err := source.Lookup(ctx, func() (*target.Target, error) { return opener.Open(ctx, r) }, ref)
		if err != nil {
			return nil, ocispec.Descriptor{}, nil, err
		}
		return src.Target, src.Descriptor, func() { src.Close() }, nil
	}
}
