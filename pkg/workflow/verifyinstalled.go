package workflow

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/trust"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

// VerifyInstalledOptions say which folders VerifyInstalled checks, and
// against which keys.
type VerifyInstalledOptions struct {
	// Where are the folders to verify.
	Where Folders
	// Keys are trusted key files to compare installed skills with what
	// their packages' signatures sign; with no Keys or Identities each
	// package's signers come from the trust policy, and a package no
	// signer is trusted for is compared with the install record and
	// stax.lock only.
	Keys []string
	// Identities are trusted keyless signers, checked against
	// TrustedRoot (Sigstore's trusted_root.json; empty takes the trust
	// policy's), in place of the policy's signers as Keys are.
	Identities  []trustpolicy.Identity
	TrustedRoot string
	// Policy is the trust policy file that gives the signers when Keys
	// and Identities are empty; empty is the user's, in the stax home
	// env.Getenv names.
	Policy string
	// Limits bound each package read to check a signature; the zero
	// value is the defaults.
	layers.Limits
}

// VerifyInstalledResult is what VerifyInstalled found; Verified when
// nothing differs.
type VerifyInstalledResult struct {
	Verified bool                    `json:"verified"`
	Targets  []VerifyInstalledTarget `json:"targets"`
	// Manifest says how stax.yaml and stax.lock disagree (an install
	// --frozen refuses them); empty when they agree, or there is no lock.
	Manifest string `json:"manifest,omitempty"`
	// NoLock is a project with no stax.lock: its skills were installed
	// with --no-save, or its lock deleted, and stax install cannot put
	// them back as they were.
	NoLock bool `json:"noLock,omitempty"`
}

// VerifyInstalledTarget is what VerifyInstalled found in one folder.
type VerifyInstalledTarget struct {
	Runtimes []string        `json:"runtimes"`
	Dir      string          `json:"dir"`
	Drift    []install.Drift `json:"drift"`
	// Unlocked are installed skills whose digest stax.lock does not pin.
	Unlocked []string `json:"unlocked"`
	// Unsigned are installed skills whose files differ from what their
	// package's signature signs; checked when a key is trusted for it.
	Unsigned []trust.SignedDrift `json:"unsigned,omitempty"`
}

// VerifyInstalled compares the skills installed in each folder with the
// files stax wrote, with stax.lock, and with what their packages'
// signatures sign. An install a crash interrupted is finished or undone
// first, with a note to env.Warnings. The result is Verified when nothing
// differs; a difference is not an error.
func VerifyInstalled(ctx context.Context, env *Env, opts VerifyInstalledOptions) (*VerifyInstalledResult, error) {
	// Under the project's lock, which recovers an interrupted install of
	// its stax.yaml and stax.lock before they are read.
	m, err := env.projectFileFor(ctx, opts.Where, false)
	if err != nil {
		return nil, err
	}
	defer m.close()
	placement := m.placement
	if placement == nil {
		if placement, err = opts.Where.place(m.def); err != nil {
			return nil, err
		}
	}
	locked, err := lock.Read(filepath.Join(m.dir, lock.FileName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	lockDir, err := env.lockDir()
	if err != nil {
		return nil, err
	}
	policy := opts.Policy
	if policy == "" {
		if policy, err = trust.HomePolicyPathFrom(env.getenv); err != nil {
			return nil, err
		}
	}
	signed := signedOptions{Trusted: trust.Trusted{Keys: opts.Keys, Identities: opts.Identities, TrustedRoot: opts.TrustedRoot}, Policy: policy, Open: func() (trust.Source, int64, error) {
		return source.TrustSource(env.Opener), opts.MaxSize, nil
	}, Loader: trust.NewLoader(env.warnings())}
	vopts := install.VerifyOptions{Root: placement.Root, Workspace: placement.Workspace, Portable: placement.Portable(), Records: placement.Records, LockDir: lockDir, Notes: env.warnings()}
	res := &VerifyInstalledResult{Verified: true, Targets: []VerifyInstalledTarget{}, NoLock: locked == nil}
	for _, t := range placement.Targets {
		drift, rec, err := install.Verify(ctx, t.Dir, vopts)
		if err != nil {
			return nil, err
		}
		vt := VerifyInstalledTarget{Runtimes: install.Names(t.Runtimes), Dir: t.Dir, Drift: drift, Unlocked: locked.Unlocked(rec.Digests())}
		if vt.Unsigned, err = checkSigned(ctx, t.Dir, rec, signed); err != nil {
			return nil, err
		}
		if len(vt.Drift) > 0 || len(vt.Unlocked) > 0 || len(vt.Unsigned) > 0 {
			res.Verified = false
		}
		res.Targets = append(res.Targets, vt)
	}
	if locked != nil {
		if res.Manifest, err = disagreement(m, locked); err != nil {
			return nil, err
		}
		res.Verified = res.Verified && res.Manifest == ""
	}
	return res, nil
}

// disagreement says how stax.yaml and the stax.lock of its last install
// disagree, as an install --frozen would refuse them; "" when they agree.
// They disagree when stax.yaml was edited since, or a pair was torn apart
// by a stax older than the one that writes them in one transaction.
func disagreement(m *projectFile, locked *lock.Lock) (string, error) {
	decls, err := m.declared(m.sources(), nil)
	if err != nil {
		return "", err
	}
	if err := locked.CheckSources(decls); err != nil {
		return err.Error(), nil
	}
	if err := locked.CheckRanges(decls); err != nil {
		return err.Error(), nil
	}
	return "", nil
}
