// Package trust checks packages against a trust policy (package
// trustpolicy): a package its rule requires or warns of must carry a
// signature that one of the rule's public keys verifies.
package trust

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

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
	// Keys, when set (--key), replace the keys of every rule.
	Keys []string
	// Require lists packages that must verify whatever the policy says,
	// such as those stax.lock records as verified.
	Require map[digest.Digest]bool
	// Warnings receives a line for each package that does not verify in
	// warn mode.
	Warnings io.Writer
	// MaxSize bounds each skills layer read; see layers.ReadOptions.
	MaxSize int64
}

// Outcome is what checking one package found.
type Outcome struct {
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
func Check(ctx context.Context, pkgs []Package, opts Options) ([]Outcome, error) {
	policy := opts.Policy
	if policy == nil {
		policy = &trustpolicy.Policy{}
	}
	verifiers := map[string]signature.Verifier{}
	var failed []error
	out := make([]Outcome, 0, len(pkgs))
	for _, p := range pkgs {
		rule := policy.Rule(p.Ref)
		if opts.Mode != "" {
			rule.Mode = opts.Mode
		}
		if len(opts.Keys) > 0 {
			rule.Keys = opts.Keys
		}
		if opts.Require[p.Descriptor.Digest] {
			rule.Mode = trustpolicy.ModeRequire
		}
		o := Outcome{Ref: p.Ref, Digest: p.Descriptor.Digest, Mode: rule.Mode}
		if rule.Mode == trustpolicy.ModeNone {
			out = append(out, o)
			continue
		}
		if len(rule.Keys) == 0 {
			return nil, fmt.Errorf("%s must be verified (%s), but no key is trusted for it: add keys to the trust policy or pass --key", p.Ref, rule.Mode)
		}
		vs, err := loadVerifiers(verifiers, rule.Keys)
		if err != nil {
			return nil, err
		}
		o.Verified, err = signature.Verify(ctx, p.Target, p.Descriptor, signature.VerifyOptions{Verifiers: vs, MaxSize: opts.MaxSize})
		switch {
		case err == nil:
		case !errors.Is(err, signature.ErrNotVerified):
			return nil, fmt.Errorf("verify %s: %w", p.Ref, err)
		case rule.Mode == trustpolicy.ModeRequire:
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

// LoadVerifiers reads public key files.
func LoadVerifiers(paths []string) ([]signature.Verifier, error) {
	return loadVerifiers(map[string]signature.Verifier{}, paths)
}

func loadVerifiers(cache map[string]signature.Verifier, paths []string) ([]signature.Verifier, error) {
	out := make([]signature.Verifier, 0, len(paths))
	for _, path := range paths {
		v, ok := cache[path]
		if !ok {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("read public key: %w", err)
			}
			kv, err := signature.LoadPublicKey(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			v, cache[path] = kv, kv
		}
		out = append(out, v)
	}
	return out, nil
}
