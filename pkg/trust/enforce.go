package trust

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

// HomePolicyPathFrom is the user's trust policy, $STAX_HOME/trust.yaml,
// with the variables read through getenv.
func HomePolicyPathFrom(getenv func(string) string) (string, error) {
	home, err := store.HomeFrom(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, trustpolicy.FileName), nil
}

// LoadHomeFrom loads the user's trust policy, with the variables read
// through getenv; a missing file is the empty policy.
func LoadHomeFrom(getenv func(string) string) (*trustpolicy.Policy, error) {
	path, err := HomePolicyPathFrom(getenv)
	if err != nil {
		return nil, err
	}
	policy, err := trustpolicy.Load(path)
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	return policy, nil
}

// EnforceOptions are the checks of a command that brings packages in. The
// zero value applies the user's trust policy as it is.
type EnforceOptions struct {
	// Mode, when set, overrides the policy's mode: none, warn or require.
	Mode string
	// Keys and Identities, when either is set, replace the policy's
	// trusted signers.
	Keys       []string
	Identities []trustpolicy.Identity
	// TrustedRoot, when set, replaces the policy's trusted root.
	TrustedRoot string
	// Project is the project's trust section, over the user's policy; nil
	// for none.
	Project *trustpolicy.Policy
	// Require are packages that must verify whatever the mode.
	Require map[digest.Digest]bool
	// Warnings receives what warn mode reports.
	Warnings io.Writer
	// Limits bound every signature and skills layer read; the zero value
	// is the defaults.
	layers.Limits
	// Getenv is where the user's policy is looked up from ($STAX_HOME);
	// nil is the process environment.
	Getenv func(string) string
}

// Enforce applies the user's trust policy, then the project's section, then
// opts to pkgs, before anything is written. A package that must verify
// and does not is a data-loss class error.
func Enforce(ctx context.Context, pkgs []Package, opts EnforceOptions) ([]Verdict, error) {
	check, err := opts.check()
	if err != nil {
		return nil, err
	}
	out, err := Check(ctx, pkgs, check)
	switch {
	case errors.Is(err, signature.ErrNotVerified):
		return nil, errdefs.MarkDataLoss(err)
	case err != nil:
		return nil, errdefs.Invalid(err)
	}
	return out, nil
}

// check is the Options of Check that opts make: the user's policy read,
// the project's section over it, the mode parsed.
func (opts EnforceOptions) check() (Options, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	policy, err := LoadHomeFrom(getenv)
	if err != nil {
		return Options{}, err
	}
	mode, err := opts.mode()
	if err != nil {
		return Options{}, err
	}
	return Options{
		Policy: trustpolicy.Merge(policy, opts.Project), Mode: mode, Trusted: opts.trusted(),
		Require: opts.Require, Warnings: opts.Warnings, Limits: opts.Limits,
	}, nil
}

func (opts EnforceOptions) trusted() Trusted {
	return Trusted{Keys: opts.Keys, Identities: opts.Identities, TrustedRoot: opts.TrustedRoot}
}

// mode is the mode opts set, parsed; an explicit none with flags that
// ask for a check is a contradiction, not a choice between them.
func (opts EnforceOptions) mode() (trustpolicy.Mode, error) {
	if opts.Mode == "" {
		return "", nil
	}
	mode, err := trustpolicy.ParseMode(opts.Mode)
	if err != nil {
		return "", errdefs.Invalid(err)
	}
	if trusted := opts.trusted(); mode == trustpolicy.ModeNone && trusted.Asked() {
		return "", errdefs.Invalid(fmt.Errorf("--verify none turns off the signature check that %s asks for: drop --verify none to verify, or drop %[1]s to check nothing", askingFlags(trusted)))
	}
	return mode, nil
}

// Validate reports flags of opts that Enforce would refuse whatever the
// packages: a mode that does not parse, or that contradicts the signers,
// and a trusted root given with keys alone, which would check nothing.
// It reads no policy.
func (opts EnforceOptions) Validate() error {
	if _, err := opts.mode(); err != nil {
		return err
	}
	if trusted := opts.trusted(); trusted.Named() {
		return errdefs.Invalid(rootUnused(trusted, trusted))
	}
	return nil
}

// rootUnused refuses the trusted root flags give when used, the signers
// a package is checked with, has no keyless identity to check against it:
// a flag that would do nothing, as --trusted-root /dev/null with --key.
func rootUnused(flags, used Trusted) error {
	if flags.TrustedRoot == "" || len(used.Identities) > 0 {
		return nil
	}
	return errors.New("--trusted-root checks keyless signatures, and no keyless signer is trusted to check against it: give --certificate-identity and --certificate-oidc-issuer with it (or identities in the trust policy), or drop --trusted-root to verify with --key alone")
}

// askingFlags names the flags of a command that set s: its keys, the
// fields of the one identity flags name, its trusted root.
func askingFlags(s Trusted) string {
	var flags []string
	if len(s.Keys) > 0 {
		flags = append(flags, "--key")
	}
	for _, id := range s.Identities {
		for _, f := range []struct{ name, value string }{
			{"--certificate-identity", id.Subject}, {"--certificate-identity-regexp", id.SubjectRegExp},
			{"--certificate-oidc-issuer", id.Issuer}, {"--certificate-oidc-issuer-regexp", id.IssuerRegExp},
		} {
			if f.value != "" && !slices.Contains(flags, f.name) {
				flags = append(flags, f.name)
			}
		}
	}
	if s.TrustedRoot != "" {
		flags = append(flags, "--trusted-root")
	}
	return strings.Join(flags, " and ")
}

// Refusing says which packages Enforce, with opts, may refuse for their
// signature: those it checks in require mode, named as Package.Ref names
// them, at the manifest digest given. What it may refuse is to be
// written nowhere before it is checked. (A package Enforce checks in warn
// mode may still fail it when no signer is trusted for it: a setup error,
// not a refusal of the package.)
func Refusing(opts EnforceOptions) (func(ref string, manifest digest.Digest) bool, error) {
	check, err := opts.check()
	if err != nil {
		return nil, err
	}
	return func(ref string, manifest digest.Digest) bool {
		return check.mode(check.Policy, ref, manifest) == trustpolicy.ModeRequire
	}, nil
}

// Signers are the packages a trusted signature verified, by digest, with
// their signer.
func Signers(outcomes []Verdict) map[digest.Digest]string {
	out := map[digest.Digest]string{}
	for _, o := range outcomes {
		if o.Verified != nil {
			out[o.Digest] = o.Verified.Signer
		}
	}
	return out
}

// PolicySigners are the signers trusted for ref: those s names (a
// command's flags), else those of the trust policy at path, whose
// trusted root s's does not replace. The policy is read
// only when s leaves it something to give. No signer is an
// invalid-argument error naming the fix.
func PolicySigners(path, ref string, s Trusted) (Trusted, error) {
	if s.Named() && (s.TrustedRoot != "" || len(s.Identities) == 0) {
		return s, errdefs.Invalid(rootUnused(s, s))
	}
	policy, err := trustpolicy.Load(path)
	if err != nil {
		return Trusted{}, errdefs.Invalid(err)
	}
	trusted := s.Over(policy, ref)
	if !trusted.Named() {
		return trusted, errdefs.Invalid(fmt.Errorf("no key to verify %s with: pass --key PUB, or --certificate-identity and --certificate-oidc-issuer with --trusted-root, or list keys or identities for it in %s", ref, path))
	}
	return trusted, errdefs.Invalid(rootUnused(s, trusted))
}
