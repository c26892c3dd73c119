// Package trust checks packages against a trust policy (package
// trustpolicy): a package its rule requires or warns of must carry a
// signature that one of the rule's public keys verifies.
package trust

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

// Trusted are the keys and keyless identities a signature may be made
// by, and the trusted root keyless ones are checked against.
type Trusted struct {
	Keys        []string
	Identities  []trustpolicy.Identity
	TrustedRoot string
}

// Named reports whether s names any signer.
func (s Trusted) Named() bool { return len(s.Keys) > 0 || len(s.Identities) > 0 }

// Asked reports whether s, a command's flags, asks for a check: naming a
// signer or a trusted root is asking for packages to be verified.
func (s Trusted) Asked() bool { return s.Named() || s.TrustedRoot != "" }

// Over is what s, a command's flags, leave of the signers policy trusts
// for ref: s's signers when it names any, else the policy's, and s's
// trusted root over the policy's.
func (s Trusted) Over(policy *trustpolicy.Policy, ref string) Trusted {
	out := s
	keyless := policy.Keyless(ref)
	if !s.Named() {
		out.Keys, out.Identities = policy.Rule(ref).Keys, keyless.Identities
	}
	if out.TrustedRoot == "" {
		out.TrustedRoot = keyless.TrustedRoot
	}
	return out
}

// Package is one package to check.
type Package struct {
	// Ref names the package, as declared; scopes match it.
	Ref string
	// Target holds the package and its signatures.
	Target     content.ReadOnlyGraphStorage
	Descriptor ocispec.Descriptor
}

// Options control Check. The zero value applies the empty policy: nothing
// is checked.
type Options struct {
	// Policy is the trust policy; nil is the empty one.
	Policy *trustpolicy.Policy
	// Mode, when set (--verify), replaces the mode of every rule.
	Mode trustpolicy.Mode
	// Trusted, when it names signers (--key, --certificate-identity),
	// replaces the signers of every rule, and its trusted root
	// (--trusted-root) their root. When it asks for a check at all
	// (Trusted.Asked) and Mode is not set, every rule requires.
	Trusted Trusted
	// Require lists packages that must verify whatever the policy says,
	// such as those stax.lock records as verified.
	Require map[digest.Digest]bool
	// Warnings receives a line for each package that does not verify in
	// warn mode, and for each identity pattern that is not anchored.
	Warnings io.Writer
	// Limits bound each skills layer read; the zero value is the
	// defaults.
	layers.Limits
}

// mode is the mode the package ref names, at manifest d, is checked in:
// require for a digest Require lists; else Mode when set; else require
// when Trusted asks for a check, as cosign verify --key does, so that a
// signer given without --verify is never silently left unused; else
// policy's rule for ref.
func (opts Options) mode(policy *trustpolicy.Policy, ref string, d digest.Digest) trustpolicy.Mode {
	switch {
	case opts.Require[d]:
		return trustpolicy.ModeRequire
	case opts.Mode != "":
		return opts.Mode
	case opts.Trusted.Asked():
		return trustpolicy.ModeRequire
	}
	return policy.Rule(ref).Mode
}

// Verdict is what checking one package found.
type Verdict struct {
	Ref    string
	Digest digest.Digest
	Mode   trustpolicy.Mode
	// Verified is set when a trusted signature verified the package.
	Verified *signature.Verified
	// Err is why it did not verify, in warn mode.
	Err error
}

// Check applies the policy to every package before anything is written:
// it fails, matching signature.ErrNotVerified, when a package that must
// verify does not, and warns of those in warn mode.
func Check(ctx context.Context, pkgs []Package, opts Options) ([]Verdict, error) {
	policy := opts.Policy
	if policy == nil {
		policy = &trustpolicy.Policy{}
	}
	loaded := NewLoader(opts.Warnings)
	var failed []error
	out := make([]Verdict, 0, len(pkgs))
	for _, p := range pkgs {
		mode := opts.mode(policy, p.Ref, p.Descriptor.Digest)
		o := Verdict{Ref: p.Ref, Digest: p.Descriptor.Digest, Mode: mode}
		if mode == trustpolicy.ModeNone {
			out = append(out, o)
			continue
		}
		trusted := opts.Trusted.Over(policy, p.Ref)
		if !trusted.Named() && opts.Require[p.Descriptor.Digest] {
			// What stax.lock vouches for and cannot be checked again is
			// a package that does not verify, not a usage error.
			failed = append(failed, fmt.Errorf("%s: %w: stax.lock records it as verified, but no signer is trusted to verify it again: pass --key or --certificate-identity naming the signer stax.lock records, or add it to the trust policy", p.Ref, signature.ErrNotVerified))
			out = append(out, o)
			continue
		}
		if !trusted.Named() {
			return nil, fmt.Errorf("%s must be verified (%s), but no signer is trusted for it: add keys or identities to the trust policy, or pass --key or --certificate-identity", p.Ref, mode)
		}
		if err := rootUnused(opts.Trusted, trusted); err != nil {
			return nil, fmt.Errorf("%s: %w", p.Ref, err)
		}
		vs, err := loaded.Verifiers(trusted)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Ref, err)
		}
		o.Verified, err = signature.Verify(ctx, p.Target, p.Descriptor, signature.VerifyOptions{Verifiers: vs, Limits: opts.Limits})
		switch {
		case err == nil:
		case !errors.Is(err, signature.ErrNotVerified):
			return nil, fmt.Errorf("verify %s: %w", p.Ref, err)
		case mode == trustpolicy.ModeRequire:
			failed = append(failed, fmt.Errorf("%s: %w", p.Ref, err))
		default:
			o.Err = err
			if opts.Warnings != nil {
				fmt.Fprintf(opts.Warnings, "warning: %s does not verify: %v\n", p.Ref, err)
			}
		}
		out = append(out, o)
	}
	if len(failed) > 0 {
		return out, errors.Join(failed...)
	}
	return out, nil
}

// Loader makes the verifiers of signers: it reads each key file and
// trusted root once, however many packages name it, and warns once of
// each identity pattern that is not anchored (see
// trustpolicy.Identity.Unanchored), wherever it was given.
type Loader struct {
	keys     map[string]signature.Verifier
	roots    map[string]root.TrustedMaterial
	warnings io.Writer
	warned   map[string]bool
}

// NewLoader is a Loader that warns to warnings; nil discards them.
func NewLoader(warnings io.Writer) *Loader {
	if warnings == nil {
		warnings = io.Discard
	}
	return &Loader{keys: map[string]signature.Verifier{}, roots: map[string]root.TrustedMaterial{}, warnings: warnings, warned: map[string]bool{}}
}

// Verifiers are the verifiers of s's key files and identities.
func (l *Loader) Verifiers(s Trusted) ([]signature.Verifier, error) {
	out := make([]signature.Verifier, 0, len(s.Keys)+1)
	for _, path := range s.Keys {
		v, ok := l.keys[path]
		if !ok {
			data, err := regularfile.ReadFile(path, signature.MaxKeyFileSize)
			if err != nil {
				return nil, fmt.Errorf("read public key: %w", err)
			}
			kv, err := signature.LoadPublicKey(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			v, l.keys[path] = kv, kv
		}
		out = append(out, v)
	}
	if len(s.Identities) == 0 {
		return out, nil
	}
	if s.TrustedRoot == "" {
		return nil, errors.New("a certificate identity is trusted, but no trusted root to check it against: pass --trusted-root trusted_root.json, or set trustedRoot in the trust policy")
	}
	material, ok := l.roots[s.TrustedRoot]
	if !ok {
		var err error
		if material, err = signature.LoadTrustedRoot(s.TrustedRoot); err != nil {
			return nil, err
		}
		l.roots[s.TrustedRoot] = material
	}
	ids := make([]signature.Identity, len(s.Identities))
	for i, id := range s.Identities {
		ids[i] = signature.Identity(id)
		for _, w := range id.Unanchored() {
			if !l.warned[w] {
				l.warned[w] = true
				fmt.Fprintf(l.warnings, "warning: %s\n", w)
			}
		}
	}
	kv, err := signature.NewKeylessVerifier(material, signature.KeylessOptions{Identities: ids})
	if err != nil {
		return nil, err
	}
	return append(out, kv), nil
}
