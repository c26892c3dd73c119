package signature

import (
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/stax-dev/stax/internal/regularfile"
)

// Identity is who a keyless signature must be made by: the subject of its
// Fulcio certificate (an email address, or a URI such as a GitHub Actions
// workflow) and the OIDC issuer that vouched for it, each given exactly or
// as a regular expression, as cosign's --certificate-identity[-regexp] and
// --certificate-oidc-issuer[-regexp] give them. A regular expression
// matches anywhere in the value unless anchored, as in cosign.
type Identity struct {
	Issuer        string
	IssuerRegExp  string
	Subject       string
	SubjectRegExp string
}

func (id Identity) String() string {
	return describe("identity", id.Subject, id.SubjectRegExp) + " from " + describe("issuer", id.Issuer, id.IssuerRegExp)
}

// describe names an exact value or a regular expression; an expression
// is quoted as written, its backslashes not doubled, so that it reads as
// it was given.
func describe(what, exact, re string) string {
	switch {
	case exact != "" && re != "":
		return fmt.Sprintf("%s %q matching \"%s\"", what, exact, re)
	case re != "":
		return fmt.Sprintf("%s matching \"%s\"", what, re)
	}
	return fmt.Sprintf("%s %q", what, exact)
}

// KeylessOptions control NewKeylessVerifier.
type KeylessOptions struct {
	// Identities are the trusted signers; a certificate of any of them
	// will do. At least one is required.
	Identities []Identity
	// Now is the clock that says whether a certificate has expired, in
	// the reasons a signature is refused; time.Now when nil. Verification
	// itself does not read it: a certificate is checked at the time of
	// signing that the bundle proves.
	Now func() time.Time
}

// maxTrustedRootSize bounds a trusted_root.json: Sigstore's public one,
// with every key and certificate it has had, is some tens of kilobytes.
const maxTrustedRootSize = 4 << 20

// LoadTrustedRoot reads Sigstore's trusted_root.json: the Fulcio CAs, CT
// logs, transparency logs and timestamp authorities keyless signatures are
// checked against, with no network.
func LoadTrustedRoot(path string) (root.TrustedMaterial, error) {
	data, err := regularfile.ReadFile(path, maxTrustedRootSize)
	if err != nil {
		return nil, fmt.Errorf("read trusted root: %w", err)
	}
	tr, err := root.NewTrustedRootFromJSON(data)
	if err != nil {
		return nil, fmt.Errorf("read trusted root %s: %w", path, err)
	}
	return tr, nil
}

// KeylessVerifier verifies bundles signed with a short-lived Fulcio
// certificate, offline, as cosign verify does by default: the certificate
// chains to a Fulcio CA of the trusted root at the time of signing, it
// carries an SCT from a CT log of the trusted root, the bundle holds an
// entry of a transparency log of the trusted root, a log or a timestamp
// authority of the trusted root proves when it was signed, the signature
// verifies with the certificate's key, and the certificate names a
// trusted identity and issuer.
type KeylessVerifier struct {
	material   root.TrustedMaterial
	verifier   *verify.Verifier
	identities verify.CertificateIdentities
	wanted     []Identity
	now        func() time.Time
}

// NewKeylessVerifier verifies against material for the identities in opts.
func NewKeylessVerifier(material root.TrustedMaterial, opts KeylessOptions) (*KeylessVerifier, error) {
	if len(opts.Identities) == 0 {
		return nil, errors.New("no certificate identity to verify with: give an identity and an OIDC issuer")
	}
	kv := &KeylessVerifier{material: material, wanted: opts.Identities, now: opts.Now}
	if kv.now == nil {
		kv.now = time.Now
	}
	for _, id := range opts.Identities {
		if id.Subject == "" && id.SubjectRegExp == "" {
			return nil, fmt.Errorf("certificate identity %s: give the identity (--certificate-identity or --certificate-identity-regexp)", id)
		}
		if id.Issuer == "" && id.IssuerRegExp == "" {
			return nil, fmt.Errorf("certificate identity %s: give the OIDC issuer (--certificate-oidc-issuer or --certificate-oidc-issuer-regexp)", id)
		}
		ci, err := verify.NewShortCertificateIdentity(id.Issuer, id.IssuerRegExp, id.Subject, id.SubjectRegExp)
		if err != nil {
			return nil, fmt.Errorf("certificate identity %s: %w", id, err)
		}
		kv.identities = append(kv.identities, ci)
	}
	// What cosign verify requires of a certificate signature by default:
	// an SCT, a log entry, and a time of signing proven by the log or by
	// a timestamp authority (cosign takes the log's for Rekor v1 entries,
	// a timestamp authority's for Rekor v2 ones, which have no signed
	// time; either is a time a trusted party vouches for).
	v, err := verify.NewVerifier(material,
		verify.WithSignedCertificateTimestamps(1),
		verify.WithTransparencyLog(1),
		verify.WithObserverTimestamps(1))
	if err != nil {
		return nil, err
	}
	kv.verifier = v
	return kv, nil
}

// ID names the identities the verifier trusts.
func (v *KeylessVerifier) ID() string {
	names := make([]string, len(v.wanted))
	for i, id := range v.wanted {
		names[i] = id.String()
	}
	return strings.Join(names, " or ")
}

// Verify checks b and the identity of its certificate. An error says
// which check failed, as a reasonError.
func (v *KeylessVerifier) Verify(b *bundle.Bundle) (*verify.VerificationResult, error) {
	// The identity is checked below rather than by the policy, to name
	// what the certificate says when it is not a trusted one; the matchers
	// are sigstore-go's, as cosign's are.
	res, err := v.verifier.Verify(b, verify.NewPolicy(verify.WithoutArtifactUnsafe(), verify.WithoutIdentitiesUnsafe()))
	if err != nil {
		return nil, v.explain(b, err)
	}
	if res.Signature == nil || res.Signature.Certificate == nil {
		return nil, &reasonError{ReasonBadSignature, errors.New("it is not signed with a certificate")}
	}
	matched, err := v.identities.Verify(*res.Signature.Certificate)
	if err != nil {
		return nil, v.mismatch(*res.Signature.Certificate)
	}
	res.VerifiedIdentity = matched
	return res, nil
}

// Claimed reports whether b is signed with a certificate rather than a
// key: whether it is a keyless signature at all.
func (v *KeylessVerifier) Claimed(b *bundle.Bundle) bool {
	vm := b.GetVerificationMaterial()
	return vm != nil && (vm.GetCertificate() != nil || vm.GetX509CertificateChain() != nil)
}

// mismatch says how the certificate's identity differs from those wanted.
func (v *KeylessVerifier) mismatch(cert certificate.Summary) error {
	issuerMatches, subjectMatches := false, false
	for _, ci := range v.identities {
		issuerMatches = issuerMatches || ci.Issuer.Verify(cert) == nil
		subjectMatches = subjectMatches || ci.SubjectAlternativeName.Verify(cert) == nil
	}
	if subjectMatches && !issuerMatches {
		return &reasonError{ReasonWrongIssuer, fmt.Errorf("the certificate names OIDC issuer %q (identity %q); wanted %s",
			cert.Extensions.Issuer, cert.SubjectAlternativeName, v.ID())}
	}
	return &reasonError{ReasonWrongIdentity, fmt.Errorf("the certificate is for %q, issuer %q; wanted %s",
		cert.SubjectAlternativeName, cert.Extensions.Issuer, v.ID())}
}

// explain finds which check refused b, to give the reason. sigstore-go
// checks the log first; a signature that does not verify is told first
// here, since a changed statement also fails to match its log entry.
func (v *KeylessVerifier) explain(b *bundle.Bundle, err error) error {
	vc, vcErr := b.VerificationContent()
	sc, scErr := b.SignatureContent()
	if vcErr != nil || scErr != nil || vc.Certificate() == nil {
		return &reasonError{ReasonBadSignature, err}
	}
	leaf := vc.Certificate()
	if e := verify.VerifySignature(sc, vc, v.material); e != nil {
		return &reasonError{ReasonBadSignature, fmt.Errorf("the signature does not verify with its certificate's key: what it signs was changed after signing (%v)", e)}
	}
	if _, e := verify.VerifyLeafCertificate(leaf.NotBefore, leaf, v.material); e != nil {
		return &reasonError{ReasonUntrustedCertificate, fmt.Errorf("its certificate for %s was not issued by a Fulcio CA of the trusted root (%v)", certificateName(leaf), e)}
	}
	if !v.hasTrustedLogEntry(b) {
		return &reasonError{ReasonNoLogEntry, errors.New("the bundle holds no entry of a transparency log the trusted root lists, so its signature was never made public; sign with the transparency log on, as cosign sign does by default")}
	}
	logTimes, e := v.verifier.VerifyTransparencyLogInclusion(b)
	if e != nil {
		return &reasonError{ReasonBadSignature, fmt.Errorf("its transparency log entry does not verify: %w", e)}
	}
	times, e := v.verifier.VerifyObserverTimestamps(b, logTimes)
	if e != nil {
		validity := fmt.Sprintf("was valid from %s to %s", leaf.NotBefore.UTC().Format(time.RFC3339), leaf.NotAfter.UTC().Format(time.RFC3339))
		if v.now().After(leaf.NotAfter) {
			validity = "expired at " + leaf.NotAfter.UTC().Format(time.RFC3339)
		}
		return &reasonError{ReasonNoTimestamp, fmt.Errorf("its short-lived certificate %s, and the bundle proves no time of signing: neither a log entry time the log signed nor a signed timestamp", validity)}
	}
	var chains [][]*x509.Certificate
	for _, ts := range times {
		if chains, e = verify.VerifyLeafCertificate(ts.Timestamp, leaf, v.material); e != nil {
			return &reasonError{ReasonUntrustedCertificate, fmt.Errorf("its certificate, valid from %s to %s, does not verify at the time of signing %s (%v)",
				leaf.NotBefore.UTC().Format(time.RFC3339), leaf.NotAfter.UTC().Format(time.RFC3339), ts.Timestamp.UTC().Format(time.RFC3339), e)}
		}
	}
	if e := verify.VerifySignedCertificateTimestamp(chains, 1, v.material); e != nil {
		return &reasonError{ReasonUntrustedCertificate, fmt.Errorf("its certificate carries no SCT from a CT log the trusted root lists (%v)", e)}
	}
	return &reasonError{ReasonBadSignature, err}
}

// hasTrustedLogEntry reports whether b holds an entry of a transparency
// log the trusted root lists; entries of other logs are not evidence.
func (v *KeylessVerifier) hasTrustedLogEntry(b *bundle.Bundle) bool {
	entries, err := b.TlogEntries()
	if err != nil {
		return false
	}
	logs := v.material.RekorLogs()
	for _, e := range entries {
		if _, ok := logs[hex.EncodeToString([]byte(e.LogKeyID()))]; ok {
			return true
		}
	}
	return false
}

// certificateName is the identity a certificate names, for messages.
func certificateName(cert *x509.Certificate) string {
	if s, err := certificate.SummarizeCertificate(cert); err == nil && s.SubjectAlternativeName != "" {
		return fmt.Sprintf("%q", s.SubjectAlternativeName)
	}
	return "serial " + cert.SerialNumber.String()
}

// reasonError is a signature that does not verify, with the Reason to
// report for it.
type reasonError struct {
	reason Reason
	err    error
}

func (e *reasonError) Error() string { return e.err.Error() }
func (e *reasonError) Unwrap() error { return e.err }
