package workflow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/stateful"
	"github.com/stax-dev/stax/pkg/trust"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

// Admit refuses a stateful skill stax installed from a package whose rule
// in the user's trust policy is require, when its files differ from what
// the package's signature signs: a runtime may refuse a stateful skill
// whose memory does not verify, and render, show and mcp stand in for
// one. The package is read through env.Opener, as every other job reads
// packages. An empty skillDir (a skill read from a package, not
// installed), a skill stax did not install, and one without stateful
// files are admitted.
func Admit(ctx context.Context, env *Env, skillDir string) error {
	if skillDir == "" {
		return nil
	}
	policy, err := trust.LoadHomeFrom(env.getenv)
	if err != nil {
		return err
	}
	if !policy.RequiresAny() || !isStateful(skillDir) {
		return nil
	}
	parent, name := filepath.Dir(skillDir), filepath.Base(skillDir)
	rec, err := install.ReadRecordIn(parent, env.userRecordDirOf(parent))
	if err != nil {
		return err
	}
	installed, ok := rec.Skills[name]
	if !ok {
		return nil
	}
	scope := trustpolicy.ScopeName(installed.Package)
	rule := policy.Rule(scope)
	if rule.Mode != trustpolicy.ModeRequire {
		return nil
	}
	verifiers, err := trust.NewLoader(env.warnings()).Verifiers(trust.Trusted{}.Over(policy, scope))
	if err != nil {
		return errdefs.Invalid(err)
	}
	if len(verifiers) == 0 {
		return errdefs.Invalid(fmt.Errorf("the trust policy requires %s to verify but trusts no key or identity for it: add keys or identities to its scope", installed.Package))
	}
	skill := trust.InstalledSkill{Dir: skillDir, Path: name, Ref: installed.Package, Digest: installed.PackageDigest}
	drift, err := trust.CheckInstalled(ctx, []trust.InstalledSkill{skill}, source.TrustSource(env.Opener), verifiers, 0)
	switch {
	case errors.Is(err, signature.ErrNotVerified):
		return errdefs.MarkDataLoss(fmt.Errorf("refusing the stateful skill %s: the trust policy requires %s to verify: %w", name, installed.Package, err))
	case err != nil:
		return err
	case len(drift) > 0:
		return errdefs.MarkDataLoss(fmt.Errorf("refusing the stateful skill %s: its files differ from what %s signs (%s); reinstall it, or run stax verify --installed",
			name, installed.Package, strings.Join(drift[0].Files, ", ")))
	}
	return nil
}

// isStateful reports whether a skill directory holds any stateful file.
func isStateful(dir string) bool {
	for _, f := range stateful.Files {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}
