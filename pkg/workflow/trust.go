package workflow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/termtext"
	"github.com/stax-dev/stax/pkg/trust"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

// Verification is the signature check of the jobs that bring packages in
// (pull, copy, install): the trust policy, overridden by what is set here.
type Verification struct {
	// Mode is none, warn or require; empty takes the trust policy's mode,
	// and none when no policy names the package.
	Mode string
	// Keys are trusted public key files, and Identities trusted keyless
	// signers; either replaces the policy's signers, none keeps them.
	Keys       []string
	Identities []trustpolicy.Identity
	// TrustedRoot is Sigstore's trusted_root.json that replaces the
	// policy's; empty keeps it.
	TrustedRoot string
}

// requires reports whether v admits every package under require:
// --verify require, or a signer or trusted root named without --verify,
// as trust.Enforce takes them (see trust.Trusted.Asked).
func (v Verification) requires() bool {
	if v.Mode != "" {
		return trustpolicy.Mode(v.Mode) == trustpolicy.ModeRequire
	}
	return trust.Trusted{Keys: v.Keys, Identities: v.Identities, TrustedRoot: v.TrustedRoot}.Asked()
}

// enforce applies the trust policy, as v overrides it, to pkgs. project
// is the consumer project's own policy, laid over the user's; require
// names digests that must verify whatever the policy says.
func (e *Env) enforce(ctx context.Context, pkgs []trust.Package, v Verification, project *trustpolicy.Policy, require map[digest.Digest]bool, limits layers.Limits) ([]trust.Verdict, error) {
	return trust.Enforce(ctx, pkgs, e.enforceOptions(v, project, require, limits))
}

func (e *Env) enforceOptions(v Verification, project *trustpolicy.Policy, require map[digest.Digest]bool, limits layers.Limits) trust.EnforceOptions {
	return trust.EnforceOptions{
		Mode: v.Mode, Keys: v.Keys, Identities: v.Identities, TrustedRoot: v.TrustedRoot, Project: project, Require: require,
		Warnings: e.warnings(), Limits: limits, Getenv: e.getenv,
	}
}

// refusing says, of a package by its declaration and manifest digest,
// whether enforce may refuse it for its signature (see trust.Refusing).
// The package is checked by a name its declaration need not be (a
// dependency is fetched by its reference pinned to its digest, and
// checked by its reference), and a scope may name a tag or a digest: any
// of the names, or its repository, in require mode says it may. A
// policy that cannot be read says so of every package, and is reported
// by the check itself.
func (e *Env) refusing(v Verification, project *trustpolicy.Policy) func(d declaration.Declaration, manifest digest.Digest) bool {
	refusing, err := trust.Refusing(e.enforceOptions(v, project, nil, layers.Limits{}))
	if err != nil {
		return func(declaration.Declaration, digest.Digest) bool { return true }
	}
	return func(d declaration.Declaration, manifest digest.Digest) bool {
		names := []string{d.Written}
		if d.Kind != declaration.Directory {
			// The full reference, as trust scopes match it.
			ref := d.Ref
			names[0] = ref.String()
			ref.Digest = ""
			names = append(names, ref.String())
			ref.Tag = ""
			names = append(names, ref.String())
		}
		for _, name := range names {
			if refusing(name, manifest) {
				return true
			}
		}
		return false
	}
}

// checkVerification reports flags of v that contradict each other: the
// first thing a command that brings packages in does, so that a usage
// error costs no fetch.
func (e *Env) checkVerification(v Verification) error {
	return e.enforceOptions(v, nil, nil, layers.Limits{}).Validate()
}

// resolveTrusted resolves refs with everything they depend on and applies
// the trust policy to every package before anything else reads them: the
// one way pull, copy, mcp --package and install admit packages. It says
// which signer's trusted signature verified each package, by digest.
func (e *Env) resolveTrusted(ctx context.Context, refs []declaration.Declaration, dir string, opts resolve.Options, v Verification) (*resolve.Graph, map[digest.Digest]string, error) {
	for _, d := range refs {
		if d.Kind != declaration.Directory {
			continue
		}
		// Nothing would be checked: refused rather than taken unverified,
		// and warned of as a package that does not verify is.
		switch {
		case v.requires():
			return nil, nil, errdefs.Invalid(fmt.Errorf("--verify require (or a --key, --certificate-identity or --trusted-root without --verify) checks the signature of every package, and %s is a package directory, which carries none: drop the flag, or publish the directory and name its package", termtext.Escape(d.Written)))
		case trustpolicy.Mode(v.Mode) == trustpolicy.ModeWarn:
			e.warnf("%s is a package directory, which carries no signature: --verify warn checked nothing of it", termtext.Escape(d.Written))
		}
	}
	opts.Concurrency = e.Concurrency
	g, err := resolve.Resolve(ctx, refs, dir, opts)
	if err != nil {
		return nil, nil, err
	}
	outcomes, err := e.enforce(ctx, trustPackages(g), v, nil, nil, opts.Limits)
	if err != nil {
		g.Close()
		return nil, nil, err
	}
	return g, trust.Signers(outcomes), nil
}

// enforceTarget applies the trust policy, as v overrides it, to the
// package t names: the check of a package copied alone, whose
// dependencies are not resolved.
func (e *Env) enforceTarget(ctx context.Context, t *target.Target, v Verification, limits layers.Limits) error {
	desc, err := t.Lookup(ctx)
	if err != nil {
		return err
	}
	_, err = e.enforce(ctx, []trust.Package{{Ref: t.Ref.String(), Target: t, Descriptor: desc}}, v, nil, nil, limits)
	return err
}

// trustPackages are the packages of g that came from a registry or an OCI
// layout; one built from a directory has no signature to check.
func trustPackages(g *resolve.Graph) []trust.Package {
	var out []trust.Package
	for _, n := range g.Order {
		if n.Dir != "" {
			continue
		}
		out = append(out, trust.Package{Ref: trustpolicy.ScopeName(n.Ref), Target: n.Target, Descriptor: n.Package.Descriptor})
	}
	return out
}

// signedOptions say which keys to check installed skills against, and
// where to find their packages.
type signedOptions struct {
	// Trusted are the signers the command names; with none, each
	// package's signers come from the trust policy file at Policy, and a
	// package no signer is trusted for is not checked. Its trusted root
	// replaces the policy's.
	Trusted trust.Trusted
	Policy  string
	// Open gives the source of packages and the size limit of a read; it
	// is called only when some skill came from a package.
	Open func() (trust.Source, int64, error)
	// Loader makes the verifiers, once for every folder checked; nil is
	// a new one for each, warning nowhere.
	Loader *trust.Loader
}

// checkSigned compares the skills installed in dir with what their
// packages' signatures sign, for the packages a signer is trusted for.
func checkSigned(ctx context.Context, dir string, rec *install.Record, opts signedOptions) ([]trust.SignedDrift, error) {
	byPackage := map[string][]trust.InstalledSkill{}
	for _, name := range slices.Sorted(maps.Keys(rec.Skills)) {
		s := rec.Skills[name]
		if d, err := declaration.Parse(s.Package, declaration.Where{File: install.RecordFile}); err != nil || d.Kind == declaration.Directory || isDir(s.Package) {
			continue // built from a directory: nothing signed it
		}
		byPackage[s.Package] = append(byPackage[s.Package], trust.InstalledSkill{Dir: filepath.Join(dir, name), Path: name, Ref: s.Package, Digest: s.PackageDigest})
	}
	if len(byPackage) == 0 {
		return nil, nil
	}
	open, maxSize, err := opts.Open()
	if err != nil {
		return nil, err
	}
	loader := opts.Loader
	if loader == nil {
		loader = trust.NewLoader(nil)
	}
	var out []trust.SignedDrift
	for _, ref := range slices.Sorted(maps.Keys(byPackage)) {
		trusted, err := trust.PolicySigners(opts.Policy, trustpolicy.ScopeName(ref), opts.Trusted)
		if errdefs.Of(err) == errdefs.InvalidArgument && !opts.Trusted.Named() {
			continue // no signer trusted for it: only the install record is checked
		} else if err != nil {
			return nil, err
		}
		verifiers, err := loader.Verifiers(trusted)
		if err != nil {
			return nil, errdefs.Invalid(err)
		}
		drift, err := trust.CheckInstalled(ctx, byPackage[ref], open, verifiers, maxSize)
		if errors.Is(err, signature.ErrNotVerified) {
			return nil, errdefs.MarkDataLoss(err)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, drift...)
	}
	return out, nil
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}
