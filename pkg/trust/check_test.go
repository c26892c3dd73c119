package trust_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/trust"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

// skillFiles are the files of the one skill of the packages built here.
var skillFiles = map[string]string{
	"greet/SKILL.md":             "---\nname: greet\ndescription: Greets. Use when testing trust.\nversion: 1.0.0\n---\nSay hello to ${NAME}.\n",
	"greet/MEMORY.md":            "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: 2026-01-01\n---\nShort hellos.\n",
	"greet/references/extra.md":  "More.\n",
	"greet/scripts/run.sh":       "#!/bin/sh\necho hi\n",
	"greet/references/ignore.md": "Ignored? No: every file is signed.\n",
}

// layout is an OCI layout holding one built package.
type layout struct {
	store *store.Store
	desc  ocispec.Descriptor
}

// buildLayout builds a package of skillFiles (with a body that makes it
// differ from others built) into a new OCI layout.
func buildLayout(t *testing.T, body string) layout {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	files := map[string]string{}
	for k, v := range skillFiles {
		files[k] = v
	}
	files["greet/references/body.md"] = body
	filetest.Write(t, root, files)
	if err := os.Chmod(filepath.Join(root, "greet", "scripts", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := staxyaml.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.OpenLayout(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	res, err := pack.Build(ctx, s, pack.Options{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	return layout{store: s, desc: res.Descriptor}
}

// key is a real key pair: its signer and its public key's file.
type key struct {
	signer *signature.KeySigner
	pub    string
}

// newKey makes an unencrypted Ed25519 key pair: GenerateKey encrypts
// the private key with scrypt, which takes seconds under the race
// detector, and the encryption is not what these tests are about.
func newKey(t *testing.T) key {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := signature.LoadPrivateKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER}), nil)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "key.pub")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644); err != nil {
		t.Fatal(err)
	}
	return key{signer: signer, pub: path}
}

func (l layout) sign(t *testing.T, k key) {
	t.Helper()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if _, err := signature.Sign(context.Background(), l.store, l.desc, k.signer, signature.SignOptions{Now: now}); err != nil {
		t.Fatal(err)
	}
}

func (l layout) pkg(ref string) trust.Package {
	return trust.Package{Ref: ref, Target: l.store, Descriptor: l.desc}
}

// Check applies each package's rule: nothing for none, a warning for
// warn, a refusal for require, and a verified signer where a trusted key
// signed.
func TestCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	trusted, other := newKey(t), newKey(t)
	signed, unsigned, foreign := buildLayout(t, "signed"), buildLayout(t, "unsigned"), buildLayout(t, "foreign")
	signed.sign(t, trusted)
	foreign.sign(t, other)
	policy := &trustpolicy.Policy{
		Mode: trustpolicy.ModeWarn,
		Keys: []string{trusted.pub},
		Scopes: []trustpolicy.Scope{
			{Scope: "ghcr.io/acme", Mode: trustpolicy.ModeRequire},
			{Scope: "ghcr.io/free", Mode: trustpolicy.ModeNone},
		},
	}

	t.Run("verified and unchecked", func(t *testing.T) {
		t.Parallel()
		var warnings bytes.Buffer
		out, err := trust.Check(ctx, []trust.Package{
			signed.pkg("ghcr.io/acme/signed:1"),
			unsigned.pkg("ghcr.io/free/unsigned:1"),
			unsigned.pkg("ghcr.io/other/unsigned:1"),
		}, trust.Options{Policy: policy, Warnings: &warnings})
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 3 {
			t.Fatalf("%d outcomes, want 3", len(out))
		}
		if out[0].Mode != trustpolicy.ModeRequire || out[0].Verified == nil || out[0].Verified.Signer != trusted.signer.ID() || out[0].Err != nil {
			t.Errorf("signed, required: %+v, want verified by %s", out[0], trusted.signer.ID())
		}
		if out[1].Mode != trustpolicy.ModeNone || out[1].Verified != nil || out[1].Err != nil {
			t.Errorf("unsigned, unchecked: %+v, want nothing checked", out[1])
		}
		if out[2].Mode != trustpolicy.ModeWarn || out[2].Verified != nil || !errors.Is(out[2].Err, signature.ErrNotVerified) {
			t.Errorf("unsigned, warned: %+v, want a not-verified error", out[2])
		}
		if got := warnings.String(); !strings.HasPrefix(got, "warning: ghcr.io/other/unsigned:1 does not verify: ") || strings.Count(got, "\n") != 1 {
			t.Errorf("warnings %q, want one line for ghcr.io/other/unsigned:1", got)
		}
		signers := trust.Signers(out)
		if len(signers) != 1 || signers[signed.desc.Digest] != trusted.signer.ID() {
			t.Errorf("Signers = %v, want only the signed package", signers)
		}
	})

	t.Run("required and not verified", func(t *testing.T) {
		t.Parallel()
		out, err := trust.Check(ctx, []trust.Package{
			unsigned.pkg("ghcr.io/acme/unsigned:1"),
			foreign.pkg("ghcr.io/acme/foreign:1"),
			signed.pkg("ghcr.io/acme/signed:1"),
		}, trust.Options{Policy: policy})
		if !errors.Is(err, signature.ErrNotVerified) {
			t.Fatalf("Check: %v, want a not-verified error", err)
		}
		for _, ref := range []string{"ghcr.io/acme/unsigned:1: ", "ghcr.io/acme/foreign:1: "} {
			if !strings.Contains(err.Error(), ref) {
				t.Errorf("Check: %q does not name %s", err, ref)
			}
		}
		// Every package is checked, so that one run names them all.
		if len(out) != 3 || out[2].Verified == nil {
			t.Errorf("outcomes %+v, want all three with the signed one verified", out)
		}
	})

	t.Run("flags and the lock file override the policy", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			name     string
			opts     trust.Options
			verified bool
			refused  bool
		}{
			{"--verify require", trust.Options{Policy: policy, Mode: trustpolicy.ModeRequire}, false, true},
			{"--verify none", trust.Options{Policy: policy, Mode: trustpolicy.ModeNone}, false, false},
			{"--key of the foreign signer", trust.Options{Policy: policy, Mode: trustpolicy.ModeRequire, Trusted: trust.Trusted{Keys: []string{other.pub}}}, true, false},
			// A signer given without --verify is a check asked for: it
			// requires, over the scope's mode none.
			{"--key alone, of the signer", trust.Options{Policy: policy, Trusted: trust.Trusted{Keys: []string{other.pub}}}, true, false},
			{"--key alone, of another signer", trust.Options{Policy: policy, Trusted: trust.Trusted{Keys: []string{trusted.pub}}}, false, true},
			{"--verify warn with --key", trust.Options{Policy: policy, Mode: trustpolicy.ModeWarn, Trusted: trust.Trusted{Keys: []string{trusted.pub}}}, false, false},
			{"required by stax.lock", trust.Options{Policy: policy, Require: map[digest.Digest]bool{foreign.desc.Digest: true}}, false, true},
			// What stax.lock vouches for and no signer can check again
			// does not verify.
			{"required by stax.lock, no signer trusted", trust.Options{Require: map[digest.Digest]bool{foreign.desc.Digest: true}}, false, true},
		} {
			out, err := trust.Check(ctx, []trust.Package{foreign.pkg("ghcr.io/free/foreign:1")}, tt.opts)
			if refused := errors.Is(err, signature.ErrNotVerified); refused != tt.refused || (err != nil && !refused) {
				t.Errorf("%s: %v, want refused %v", tt.name, err, tt.refused)
				continue
			}
			if verified := len(out) == 1 && out[0].Verified != nil; verified != tt.verified {
				t.Errorf("%s: outcomes %+v, want verified %v", tt.name, out, tt.verified)
			}
		}
	})

	t.Run("keys that cannot be used", func(t *testing.T) {
		t.Parallel()
		garbage := filepath.Join(t.TempDir(), "garbage.pub")
		if err := os.WriteFile(garbage, []byte("not a key"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			name string
			opts trust.Options
			want string
		}{
			{"no key", trust.Options{Mode: trustpolicy.ModeWarn}, "ghcr.io/x/y:1 must be verified (warn), but no signer is trusted for it: add keys or identities to the trust policy, or pass --key or --certificate-identity"},
			{"a missing key file", trust.Options{Mode: trustpolicy.ModeRequire, Trusted: trust.Trusted{Keys: []string{filepath.Join(t.TempDir(), "none.pub")}}}, "read public key"},
			{"not a key", trust.Options{Mode: trustpolicy.ModeRequire, Trusted: trust.Trusted{Keys: []string{garbage}}}, garbage + ": "},
		} {
			_, err := trust.Check(ctx, []trust.Package{signed.pkg("ghcr.io/x/y:1")}, tt.opts)
			if err == nil || errors.Is(err, signature.ErrNotVerified) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: %v, want an error saying %q", tt.name, err, tt.want)
			}
		}
	})
}

func TestTrustedKeysVerifiers(t *testing.T) {
	t.Parallel()
	a, b := newKey(t), newKey(t)
	vs, err := trust.NewLoader(nil).Verifiers(trust.Trusted{Keys: []string{a.pub, b.pub, a.pub}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, v := range vs {
		ids = append(ids, v.ID())
	}
	if want := []string{a.signer.ID(), b.signer.ID(), a.signer.ID()}; !slices.Equal(ids, want) {
		t.Errorf("verifier IDs %v, want %v", ids, want)
	}
	if _, err := trust.NewLoader(nil).Verifiers(trust.Trusted{Keys: []string{filepath.Join(t.TempDir(), "none.pub")}}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing key: %v, want not-exist", err)
	}
}

func TestRequiresAny(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		policy trustpolicy.Policy
		want   bool
	}{
		{"empty", trustpolicy.Policy{}, false},
		{"default require", trustpolicy.Policy{Mode: trustpolicy.ModeRequire}, true},
		{"warn with a none scope", trustpolicy.Policy{Mode: trustpolicy.ModeWarn, Scopes: []trustpolicy.Scope{{Scope: "ghcr.io", Mode: trustpolicy.ModeNone}}}, false},
		{"a require scope", trustpolicy.Policy{Mode: trustpolicy.ModeWarn, Scopes: []trustpolicy.Scope{{Scope: "ghcr.io/acme", Mode: trustpolicy.ModeRequire}}}, true},
	} {
		if got := tt.policy.RequiresAny(); got != tt.want {
			t.Errorf("%s: RequiresAny = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// install writes the package's skill as install does, into a new
// directory, and returns it.
func install(t *testing.T, body string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "greet")
	files := map[string]string{"references/body.md": body}
	for k, v := range skillFiles {
		files[strings.TrimPrefix(k, "greet/")] = v
	}
	// Install substitutes variables in SKILL.md.
	files["SKILL.md"] = strings.ReplaceAll(files["SKILL.md"], "${NAME}", "Ada")
	filetest.Write(t, dir, files)
	if err := os.Chmod(filepath.Join(dir, "scripts", "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// openLayouts is a trust.Source over layouts, by digest; it records what
// was opened and closed.
type openLayouts struct {
	byDigest map[digest.Digest]layout
	opened   []string
	closed   int
}

func (o *openLayouts) open(_ context.Context, ref string, d digest.Digest) (content.ReadOnlyGraphStorage, ocispec.Descriptor, func(), error) {
	o.opened = append(o.opened, ref)
	l, ok := o.byDigest[d]
	if !ok {
		return nil, ocispec.Descriptor{}, nil, errors.New(ref + " is nowhere")
	}
	return l.store, l.desc, func() { o.closed++ }, nil
}

// CheckInstalled compares installed skills with the files their package's
// signature signs, SKILL.md aside.
func TestCheckInstalled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	k := newKey(t)
	vs, err := trust.NewLoader(nil).Verifiers(trust.Trusted{Keys: []string{k.pub}})
	if err != nil {
		t.Fatal(err)
	}
	l := buildLayout(t, "signed")
	l.sign(t, k)
	unsigned := buildLayout(t, "unsigned")

	skill := func(dir string) trust.InstalledSkill {
		return trust.InstalledSkill{Dir: dir, Path: "greet", Ref: "ghcr.io/acme/skills:1", Digest: l.desc.Digest}
	}
	edits := []struct {
		name  string
		edit  func(t *testing.T, dir string)
		drift []string
	}{
		{"as installed", func(*testing.T, string) {}, nil},
		{"SKILL.md edited", func(t *testing.T, dir string) {
			filetest.WriteFile(t, filepath.Join(dir, "SKILL.md"), "Something else.\n")
		}, nil},
		{"memory changed", func(t *testing.T, dir string) {
			filetest.WriteFile(t, filepath.Join(dir, "MEMORY.md"), "Forgotten.\n")
		}, []string{"MEMORY.md changed"}},
		{"a file added and one removed", func(t *testing.T, dir string) {
			filetest.WriteFile(t, filepath.Join(dir, "references", "new.md"), "New.\n")
			if err := os.Remove(filepath.Join(dir, "references", "extra.md")); err != nil {
				t.Fatal(err)
			}
		}, []string{"references/extra.md removed", "references/new.md added"}},
		{"a script no longer executable", func(t *testing.T, dir string) {
			if err := os.Chmod(filepath.Join(dir, "scripts", "run.sh"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"scripts/run.sh changed"}},
		{"the directory gone", func(t *testing.T, dir string) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}, []string{"MEMORY.md removed", "references/body.md removed", "references/extra.md removed", "references/ignore.md removed", "scripts/run.sh removed"}},
	}
	clean := install(t, "signed")
	src := &openLayouts{byDigest: map[digest.Digest]layout{l.desc.Digest: l}}

	var skills []trust.InstalledSkill
	for _, e := range edits {
		dir := install(t, "signed")
		e.edit(t, dir)
		skills = append(skills, skill(dir))
	}
	src = &openLayouts{byDigest: map[digest.Digest]layout{l.desc.Digest: l}}
	drift, err := trust.CheckInstalled(ctx, skills, src.open, vs, 0)
	if err != nil {
		t.Fatal(err)
	}
	// One package is opened, verified and closed once for all its skills.
	if len(src.opened) != 1 || src.closed != 1 {
		t.Errorf("opened %v, closed %d times; want the package opened and closed once", src.opened, src.closed)
	}
	got := map[string][]string{}
	for _, d := range drift {
		got[d.Dir] = d.Files
	}
	if len(drift) != 4 {
		t.Errorf("%d drifted skills, want 4: %+v", len(drift), drift)
	}
	for i, e := range edits {
		files := got[skills[i].Dir]
		slices.Sort(files)
		if !slices.Equal(files, e.drift) {
			t.Errorf("%s: drift %v, want %v", e.name, files, e.drift)
		}
	}

	// A skill the statement does not list.
	other := skill(clean)
	other.Path = "missing"
	drift, err = trust.CheckInstalled(ctx, []trust.InstalledSkill{other}, src.open, vs, 0)
	if err != nil || len(drift) != 1 || !slices.Equal(drift[0].Files, []string{"the signed statement has no skill missing"}) {
		t.Errorf("a skill not signed: %+v, %v", drift, err)
	}

	// A package that does not verify, and one that cannot be opened.
	src.byDigest[unsigned.desc.Digest] = unsigned
	bad := skill(clean)
	bad.Digest, bad.Ref = unsigned.desc.Digest, "ghcr.io/acme/unsigned:1"
	_, err = trust.CheckInstalled(ctx, []trust.InstalledSkill{bad}, src.open, vs, 0)
	if !errors.Is(err, signature.ErrNotVerified) || !strings.HasPrefix(err.Error(), "ghcr.io/acme/unsigned:1: ") {
		t.Errorf("an unsigned package: %v, want a not-verified error naming it", err)
	}
	gone := skill(clean)
	gone.Digest, gone.Ref = digest.FromString("gone"), "ghcr.io/acme/gone:1"
	if _, err := trust.CheckInstalled(ctx, []trust.InstalledSkill{gone}, src.open, vs, 0); err == nil || !strings.Contains(err.Error(), "ghcr.io/acme/gone:1 is nowhere") {
		t.Errorf("a package that cannot be opened: %v, want the opener's error", err)
	}
}

// A link in an installed skill is not followed out of its directory.
func TestCheckInstalledDoesNotFollowLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	k := newKey(t)
	vs, err := trust.NewLoader(nil).Verifiers(trust.Trusted{Keys: []string{k.pub}})
	if err != nil {
		t.Fatal(err)
	}
	l := buildLayout(t, "signed")
	l.sign(t, k)
	dir := install(t, "signed")
	outside := filepath.Join(t.TempDir(), "secret")
	filetest.WriteFile(t, outside, "secret\n")
	if err := os.Symlink(outside, filepath.Join(dir, "references", "link.md")); err != nil {
		t.Fatal(err)
	}
	src := &openLayouts{byDigest: map[digest.Digest]layout{l.desc.Digest: l}}
	drift, err := trust.CheckInstalled(ctx, []trust.InstalledSkill{{Dir: dir, Path: "greet", Ref: "r", Digest: l.desc.Digest}}, src.open, vs, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range drift {
		for _, f := range d.Files {
			if strings.Contains(f, "link.md") {
				t.Errorf("the link was hashed: %v", d.Files)
			}
		}
	}
}

// Enforce gives Check's failures their class: a package that must verify
// and does not is corrupt (exit 6); a policy that cannot apply is the
// user's to fix. It reads $STAX_HOME, so it cannot run in parallel.
func TestEnforceClassesOfAPackageCheck(t *testing.T) {
	home := t.TempDir()
	t.Setenv(store.EnvHome, home)
	ctx := context.Background()
	k := newKey(t)
	signed, unsigned := buildLayout(t, "signed"), buildLayout(t, "unsigned")
	signed.sign(t, k)
	filetest.WriteFile(t, filepath.Join(home, trustpolicy.FileName), "mode: require\nkeys: ["+k.pub+"]\n")

	out, err := trust.Enforce(ctx, []trust.Package{signed.pkg("ghcr.io/acme/signed:1")}, trust.EnforceOptions{})
	if err != nil || len(out) != 1 || out[0].Verified == nil || out[0].Verified.Signer != k.signer.ID() {
		t.Errorf("a signed package: %+v, %v; want it verified", out, err)
	}
	_, err = trust.Enforce(ctx, []trust.Package{unsigned.pkg("ghcr.io/acme/unsigned:1")}, trust.EnforceOptions{})
	if errdefs.Of(err) != errdefs.DataLoss || !errors.Is(err, signature.ErrNotVerified) || !strings.Contains(err.Error(), "ghcr.io/acme/unsigned:1") {
		t.Errorf("an unsigned package: %v (class %v), want a data-loss not-verified error naming it", err, errdefs.Of(err))
	}
	// The project's section over the user's policy: none where it says so.
	out, err = trust.Enforce(ctx, []trust.Package{unsigned.pkg("ghcr.io/acme/unsigned:1")}, trust.EnforceOptions{Project: &trustpolicy.Policy{Mode: trustpolicy.ModeNone}})
	if err != nil || len(out) != 1 || out[0].Mode != trustpolicy.ModeNone {
		t.Errorf("the project's none: %+v, %v; want nothing checked", out, err)
	}
	_, err = trust.Enforce(ctx, []trust.Package{unsigned.pkg("ghcr.io/acme/unsigned:1")}, trust.EnforceOptions{Keys: []string{filepath.Join(t.TempDir(), "none.pub")}})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "read public key") {
		t.Errorf("a missing --key: %v (class %v), want an invalid-argument error", err, errdefs.Of(err))
	}
	// stax.lock requires a package no signer is trusted for.
	filetest.WriteFile(t, filepath.Join(home, trustpolicy.FileName), "")
	_, err = trust.Enforce(ctx, []trust.Package{signed.pkg("ghcr.io/acme/signed:1")}, trust.EnforceOptions{Require: map[digest.Digest]bool{signed.desc.Digest: true}})
	if errdefs.Of(err) != errdefs.DataLoss || !strings.Contains(err.Error(), "stax.lock records it as verified") {
		t.Errorf("required by stax.lock, no signer: %v (class %v), want a data-loss error naming stax.lock", err, errdefs.Of(err))
	}
}

func TestValidateRefusesNoneWithASigner(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		opts  trust.EnforceOptions
		flags []string // named in the error; none for no error
	}{
		{"none alone", trust.EnforceOptions{Mode: "none"}, nil},
		{"a key alone", trust.EnforceOptions{Keys: []string{"k.pub"}}, nil},
		{"warn with a key", trust.EnforceOptions{Mode: "warn", Keys: []string{"k.pub"}}, nil},
		{"none with a key", trust.EnforceOptions{Mode: "none", Keys: []string{"k.pub"}}, []string{"--verify none", "--key"}},
		{"none with a trusted root", trust.EnforceOptions{Mode: "none", TrustedRoot: "root.json"}, []string{"--verify none", "--trusted-root"}},
		{"none with an identity", trust.EnforceOptions{Mode: "none", Identities: []trustpolicy.Identity{{Subject: "a@acme.example", Issuer: "https://issuer.example"}}}, []string{"--verify none", "--certificate-identity and --certificate-oidc-issuer"}},
		{"none with an identity regexp and a trusted root", trust.EnforceOptions{Mode: "none", TrustedRoot: "root.json", Identities: []trustpolicy.Identity{{SubjectRegExp: "^a@acme\\.example$", Issuer: "https://issuer.example"}}}, []string{"--certificate-identity-regexp and --certificate-oidc-issuer and --trusted-root"}},
	} {
		err := c.opts.Validate()
		if c.flags == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if errdefs.Of(err) != errdefs.InvalidArgument {
			t.Errorf("%s: %v (class %v), want an invalid-argument error", c.name, err, errdefs.Of(err))
			continue
		}
		for _, f := range c.flags {
			if !strings.Contains(err.Error(), f) {
				t.Errorf("%s: %q does not name %s", c.name, err, f)
			}
		}
	}
}
