package trust_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/sigstoretest"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/trust"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

const actionsIssuer = "https://token.actions.githubusercontent.com"

// TestCheckRequiresAPolicyIdentity applies a policy whose scope requires a
// GitHub Actions workflow identity, checked against a trusted root file:
// acme's workflow passes, another repository's workflow is refused naming
// both, and flags replace the policy's identity.
func TestCheckRequiresAPolicyIdentity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := sigstoretest.New(t)
	dir := t.TempDir()
	s.WriteTrustedRoot(t, dir)
	path := filepath.Join(dir, trustpolicy.FileName)
	policy := "scopes:\n  - scope: ghcr.io/acme\n    mode: require\n    trustedRoot: trusted_root.json\n    identities:\n" +
		"      - issuer: " + actionsIssuer + "\n        subjectRegExp: '^https://github.com/acme/'\n"
	if err := os.WriteFile(path, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := trustpolicy.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ours, theirs := buildLayout(t, "ours"), buildLayout(t, "theirs")
	for _, l := range []struct {
		l  layout
		id string
	}{{ours, "https://github.com/acme/skills/.github/workflows/release.yml@refs/heads/main"}, {theirs, "https://github.com/evil/skills/.github/workflows/release.yml@refs/heads/main"}} {
		b := s.Sign(t, sigstoretest.Statement("ghcr.io/acme/skills", l.l.desc), sigstoretest.SignOptions{Identity: l.id, Issuer: actionsIssuer})
		sigstoretest.Attach(t, l.l.store, l.l.desc, b)
	}
	out, err := trust.Check(ctx, []trust.Package{ours.pkg("ghcr.io/acme/skills:1")}, trust.Options{Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	if v := out[0].Verified; v == nil || v.Identity != "https://github.com/acme/skills/.github/workflows/release.yml@refs/heads/main" || v.Issuer != actionsIssuer {
		t.Fatalf("verified %+v", out[0].Verified)
	}
	_, err = trust.Check(ctx, []trust.Package{theirs.pkg("ghcr.io/acme/skills:1")}, trust.Options{Policy: p})
	var verr *signature.Error
	if !errors.As(err, &verr) || verr.Reason != signature.ReasonWrongIdentity || !strings.Contains(err.Error(), "github.com/evil") || !strings.Contains(err.Error(), "^https://github.com/acme/") {
		t.Fatalf("want wrong identity naming both, got %v", err)
	}
	// Flags name the signer instead of the policy.
	evil := []trustpolicy.Identity{{Issuer: actionsIssuer, SubjectRegExp: "^https://github.com/evil/"}}
	if _, err := trust.Check(ctx, []trust.Package{theirs.pkg("ghcr.io/acme/skills:1")}, trust.Options{Policy: p, Trusted: trust.Trusted{Identities: evil}}); err != nil {
		t.Fatalf("with the identity flags: %v", err)
	}
	// Outside the scope nothing is required; required there, an identity
	// with no trusted root to check it against is a usage error.
	_, err = trust.Check(ctx, []trust.Package{theirs.pkg("quay.io/x:1")}, trust.Options{Policy: p, Mode: trustpolicy.ModeRequire, Trusted: trust.Trusted{Identities: evil}})
	if err == nil || errors.Is(err, signature.ErrNotVerified) || !strings.Contains(err.Error(), "trusted root") {
		t.Fatalf("want a missing trusted root named, got %v", err)
	}
}
