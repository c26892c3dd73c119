package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/trust"
)

type verifyPackageResult struct {
	Reference string `json:"reference"`
	Digest    string `json:"digest"`
	Verified  bool   `json:"verified"`
	Signer    string `json:"signer,omitempty"`
	SignedAt  string `json:"signedAt,omitempty"`
	Signature string `json:"signature,omitempty"`
	Format    string `json:"format,omitempty"`
	// Reason and Details say why it did not verify.
	Reason  string   `json:"reason,omitempty"`
	Details []string `json:"details,omitempty"`
}

func runVerifyPackage(ctx context.Context, opts *verifyOptions) error {
	if opts.Installed {
		return errdefs.Invalid(errors.New("verify either a package REF or --installed, not both"))
	}
	opener, maxSize, err := opts.Remote.setup(opts.Global, &opts.MaxSize)
	if err != nil {
		return err
	}
	src, err := openSigned(ctx, opener, opts.Ref, opts.Local, store.ReadOnly)
	if err != nil {
		return err
	}
	defer src.Close()
	keys := opts.Keys
	if len(keys) == 0 {
		if keys, err = policyKeys(opts.Policy, src.Ref.String()); err != nil {
			return err
		}
	}
	verifiers, err := trust.LoadVerifiers(keys)
	if err != nil {
		return errdefs.Invalid(err)
	}
	out := verifyPackageResult{Reference: src.Ref.Familiar(), Digest: src.Descriptor.Digest.String()}
	v, err := signature.Verify(ctx, src.Target, src.Descriptor, signature.VerifyOptions{Verifiers: verifiers, MaxSize: maxSize})
	var failed *signature.Error
	switch {
	case errors.As(err, &failed):
		out.Reason, out.Details = string(failed.Reason), failed.Details
	case err != nil:
		return explainSignature(src.Target, err)
	default:
		out.Verified, out.Signer, out.Signature, out.Format = true, v.Signer, v.Signature.Digest.String(), v.Format
		if !v.SignedAt.IsZero() {
			out.SignedAt = signedAtText(v.SignedAt)
		}
	}
	if opts.Global.json() {
		if err := writeJSON(opts.IO.Out, out); err != nil {
			return err
		}
	} else if out.Verified {
		fmt.Fprintf(opts.IO.Out, "%s@%s: verified, signed by %s at %s\n", out.Reference, out.Digest, out.Signer, signedAtText(v.SignedAt))
	}
	if failed != nil {
		err := fmt.Errorf("%s does not verify: %w", out.Reference, failed)
		if opts.Global.json() {
			fmt.Fprintf(opts.IO.ErrOut, "Error: %v\n", err)
			return errdefs.Corrupt(errReported)
		}
		return errdefs.Corrupt(err)
	}
	return nil
}

// policyKeys are the keys the trust policy at path (default: the one in
// $STAX_HOME) trusts for ref.
func policyKeys(path, ref string) ([]string, error) {
	if path == "" {
		home, err := store.Home()
		if err != nil {
			return nil, err
		}
		path = filepath.Join(home, trust.FileName)
	}
	policy, err := trust.Load(path)
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	keys := policy.Rule(ref).Keys
	if len(keys) == 0 {
		return nil, errdefs.Invalid(fmt.Errorf("no key to verify %s with: pass --key PUB, or list keys for it in %s", ref, path))
	}
	return keys, nil
}

// checkSignedInstall compares the skills installed in dir with the signed
// statements of their packages, for the packages a key is trusted for:
// the --key keys, else those the trust policy gives.
func checkSignedInstall(ctx context.Context, opts *verifyOptions, dir string, rec *install.Record) ([]trust.SignedDrift, error) {
	byPackage := map[string][]trust.InstalledSkill{}
	for _, name := range slices.Sorted(maps.Keys(rec.Skills)) {
		s := rec.Skills[name]
		if _, err := reference.Parse(s.Package); err != nil || isDir(s.Package) {
			continue // built from a directory: nothing signed it
		}
		byPackage[s.Package] = append(byPackage[s.Package], trust.InstalledSkill{Dir: filepath.Join(dir, name), Path: name, Ref: s.Package, Digest: s.PackageDigest})
	}
	if len(byPackage) == 0 {
		return nil, nil
	}
	opener, maxSize, err := opts.Remote.setup(opts.Global, &opts.MaxSize)
	if err != nil {
		return nil, err
	}
	var out []trust.SignedDrift
	for _, ref := range slices.Sorted(maps.Keys(byPackage)) {
		keys := opts.Keys
		if len(keys) == 0 {
			if keys, err = policyKeys(opts.Policy, scopeName(ref)); errdefs.Of(err) == errdefs.InvalidArgument {
				continue // no key trusted for it: only the install record is checked
			} else if err != nil {
				return nil, err
			}
		}
		verifiers, err := trust.LoadVerifiers(keys)
		if err != nil {
			return nil, errdefs.Invalid(err)
		}
		drift, err := trust.CheckInstalled(ctx, byPackage[ref], packageSource(opener), verifiers, maxSize)
		if errors.Is(err, signature.ErrNotVerified) {
			return nil, errdefs.Corrupt(err)
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
