package signature_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/internal/sigstoretest"
	"github.com/stax-dev/stax/pkg/signature"
)

const (
	workflowIdentity = "https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v1.0.0"
	actionsIssuer    = "https://token.actions.githubusercontent.com"
)

// testSigstore is one test Sigstore for the run: making its CAs and keys
// is cheap, but sharing it keeps every test's trusted root the same.
var testSigstore = struct {
	once sync.Once
	s    *sigstoretest.Sigstore
}{}

func sharedSigstore(t testing.TB) *sigstoretest.Sigstore {
	testSigstore.once.Do(func() { testSigstore.s = sigstoretest.New(t) })
	return testSigstore.s
}

// keylessVerifier verifies against s's trusted root, read back from the
// file cosign users pass as --trusted-root.
func keylessVerifier(t *testing.T, s *sigstoretest.Sigstore, now func() time.Time, ids ...signature.Identity) *signature.KeylessVerifier {
	t.Helper()
	material, err := signature.LoadTrustedRoot(s.WriteTrustedRoot(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	v, err := signature.NewKeylessVerifier(material, signature.KeylessOptions{Identities: ids, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestKeylessBundleVerifies attaches a keyless bundle as cosign v3 does
// and verifies it offline with the identity and issuer, exact or as
// regular expressions; the signer is the certificate's identity.
func TestKeylessBundleVerifies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := sharedSigstore(t)
	for _, place := range places {
		t.Run(place.name, func(t *testing.T) {
			t.Parallel()
			target := place.open(t)
			desc := packExamples(t, target, "")
			b := s.Sign(t, sigstoretest.Statement("ghcr.io/acme/skills", desc), sigstoretest.SignOptions{Identity: workflowIdentity, Issuer: actionsIssuer})
			sigstoretest.Attach(t, target, desc, b)
			for _, id := range []signature.Identity{
				{Subject: workflowIdentity, Issuer: actionsIssuer},
				{SubjectRegExp: `^https://github\.com/acme/`, IssuerRegExp: `^https://token\.actions\.githubusercontent\.com$`},
			} {
				v := keylessVerifier(t, s, nil, id)
				got, err := signature.Verify(ctx, target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{v}})
				if err != nil {
					t.Fatalf("%+v: %v", id, err)
				}
				if got.Format != signature.FormatSigstore || got.Signer != workflowIdentity || got.Identity != workflowIdentity || got.Issuer != actionsIssuer || got.SignedAt.IsZero() {
					t.Fatalf("verified %+v", got)
				}
			}
		})
	}
}

// TestKeylessRefusals checks each thing cosign verify checks by default,
// and that the reason names what is wrong.
func TestKeylessRefusals(t *testing.T) {
	t.Parallel()
	s := sharedSigstore(t)
	right := signature.Identity{Subject: workflowIdentity, Issuer: actionsIssuer}
	signed := sigstoretest.SignOptions{Identity: workflowIdentity, Issuer: actionsIssuer}
	with := func(f func(*sigstoretest.SignOptions)) sigstoretest.SignOptions {
		o := signed
		f(&o)
		return o
	}
	// An hour later, when the short-lived certificate has long expired.
	later := func() time.Time { return time.Now().Add(time.Hour) }
	cases := []struct {
		name   string
		sign   sigstoretest.SignOptions
		id     signature.Identity
		tamper bool
		other  bool // signed by another Sigstore
		want   signature.Reason
		says   []string
	}{
		{name: "wrong identity", sign: signed, id: signature.Identity{Subject: "https://github.com/acme/skills/.github/workflows/other.yml@refs/heads/main", Issuer: actionsIssuer},
			want: signature.ReasonWrongIdentity, says: []string{workflowIdentity, "other.yml"}},
		{name: "wrong identity regexp", sign: signed, id: signature.Identity{SubjectRegExp: `^https://github\.com/evil/`, Issuer: actionsIssuer},
			want: signature.ReasonWrongIdentity, says: []string{workflowIdentity, `^https://github\.com/evil/`}},
		{name: "wrong issuer", sign: signed, id: signature.Identity{Subject: workflowIdentity, Issuer: "https://accounts.google.com"},
			want: signature.ReasonWrongIssuer, says: []string{actionsIssuer, "https://accounts.google.com"}},
		{name: "wrong issuer regexp", sign: signed, id: signature.Identity{Subject: workflowIdentity, IssuerRegExp: `^https://gitlab\.com$`},
			want: signature.ReasonWrongIssuer, says: []string{actionsIssuer, `^https://gitlab\.com$`}},
		{name: "expired certificate without a timestamp", sign: with(func(o *sigstoretest.SignOptions) { o.UnsignedLogTime = true }), id: right,
			want: signature.ReasonNoTimestamp, says: []string{"expired", "no time of signing"}},
		{name: "no log entry", sign: with(func(o *sigstoretest.SignOptions) { o.NoLogEntry, o.Timestamp = true, true }), id: right,
			want: signature.ReasonNoLogEntry, says: []string{"transparency log"}},
		{name: "tampered payload", sign: signed, tamper: true, id: right,
			want: signature.ReasonBadSignature, says: []string{"changed"}},
		{name: "no SCT", sign: with(func(o *sigstoretest.SignOptions) { o.NoSCT = true }), id: right,
			want: signature.ReasonUntrustedCertificate, says: []string{"SCT"}},
		{name: "another Fulcio", sign: signed, other: true, id: right,
			want: signature.ReasonUntrustedCertificate, says: []string{"Fulcio"}},
	}
	reg := registrytest.New(t, registrytest.WithReferrersAPI())
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			target := openRemote(t, reg)
			// Each case signs its own version, so their signatures do not mix.
			desc := packExamples(t, target, "1.0."+strconv.Itoa(i+1))
			signer := s
			if c.other {
				signer = sigstoretest.New(t)
			}
			b := signer.Sign(t, sigstoretest.Statement("ghcr.io/acme/skills", desc), c.sign)
			if c.tamper {
				b = sigstoretest.Tamper(t, b)
			}
			sigstoretest.Attach(t, target, desc, b)
			_, err := signature.Verify(context.Background(), target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{keylessVerifier(t, s, later, c.id)}})
			wantReason(t, err, c.want)
			for _, w := range c.says {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q: %v", w, err)
				}
			}
		})
	}
}

// TestKeylessNeedsNoCurrentCertificate verifies, an hour after its
// certificate expired, a signature whose time of signing is proven: by the
// log's signed entry time, or by a signed timestamp.
func TestKeylessNeedsNoCurrentCertificate(t *testing.T) {
	t.Parallel()
	s := sharedSigstore(t)
	target := openRemote(t, registrytest.New(t, registrytest.WithReferrersAPI()))
	v := keylessVerifier(t, s, nil, signature.Identity{Subject: workflowIdentity, Issuer: actionsIssuer})
	for i, opts := range []sigstoretest.SignOptions{
		// Expired by now, in real time: the log's signed time, within
		// the certificate's validity, is what it is checked at.
		{Identity: workflowIdentity, Issuer: actionsIssuer, NotBefore: time.Now().Add(-2 * sigstoretest.CertificateLifetime)},
		// A time the timestamp authority signed does as well as the log's.
		{Identity: workflowIdentity, Issuer: actionsIssuer, UnsignedLogTime: true, Timestamp: true},
	} {
		// Each case signs its own version: Verify takes the first
		// signature that verifies.
		desc := packExamples(t, target, "1.0."+strconv.Itoa(i+1))
		b := s.Sign(t, sigstoretest.Statement("ghcr.io/acme/skills", desc), opts)
		sigstoretest.Attach(t, target, desc, b)
		if _, err := signature.Verify(context.Background(), target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{v}}); err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
	}
}

// TestKeylessIdentityIsChecked refuses identities cosign refuses: one
// without a subject or an issuer, or with a regular expression that does
// not compile.
func TestKeylessIdentityIsChecked(t *testing.T) {
	t.Parallel()
	s := sharedSigstore(t)
	material, err := signature.LoadTrustedRoot(s.WriteTrustedRoot(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []signature.Identity{
		{Issuer: actionsIssuer},
		{Subject: workflowIdentity},
		{SubjectRegExp: "(", Issuer: actionsIssuer},
	} {
		if _, err := signature.NewKeylessVerifier(material, signature.KeylessOptions{Identities: []signature.Identity{id}}); err == nil {
			t.Errorf("%+v: accepted", id)
		}
	}
	if _, err := signature.NewKeylessVerifier(material, signature.KeylessOptions{}); err == nil {
		t.Error("no identity: accepted")
	}
}

// A signature of the other kind than every signer trusted — a key's where
// only identities are trusted, a certificate's where only keys are — says
// so, and how to trust it, rather than only that no trusted key made it.
func TestSignerOfTheOtherKindIsNamed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := sharedSigstore(t)
	reg := registrytest.New(t, registrytest.WithReferrersAPI())

	target := openRemote(t, reg)
	keySigned := packExamples(t, target, "1.1.0")
	signer, keyVerifier := signingKey(t, signature.AlgorithmECDSAP256)
	if _, err := signature.Sign(ctx, target, keySigned, signer, signature.SignOptions{}); err != nil {
		t.Fatal(err)
	}
	identities := keylessVerifier(t, s, nil, signature.Identity{Subject: workflowIdentity, Issuer: actionsIssuer})
	_, err := signature.Verify(ctx, target, keySigned, signature.VerifyOptions{Verifiers: []signature.Verifier{identities}})
	wantReason(t, err, signature.ReasonWrongKey)
	for _, w := range []string{"signed with a key", "certificate identities", "--key"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the error does not say %q: %v", w, err)
		}
	}

	certSigned := packExamples(t, target, "1.2.0")
	sigstoretest.Attach(t, target, certSigned, s.Sign(t, sigstoretest.Statement("ghcr.io/acme/skills", certSigned), sigstoretest.SignOptions{Identity: workflowIdentity, Issuer: actionsIssuer}))
	_, err = signature.Verify(ctx, target, certSigned, signature.VerifyOptions{Verifiers: []signature.Verifier{keyVerifier}})
	wantReason(t, err, signature.ReasonWrongKey)
	for _, w := range []string{"keyless", workflowIdentity, "--certificate-identity"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the error does not say %q: %v", w, err)
		}
	}
}
