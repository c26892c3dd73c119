package signature

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
)

// Reason says why a package did not verify.
type Reason string

// Reasons, from the least to the most telling: when several signatures
// fail, Verify reports the most telling reason.
const (
	ReasonNoSignature Reason = "no signature"
	ReasonWrongKey    Reason = "wrong key"
	// ReasonWrongIssuer and ReasonWrongIdentity are a keyless signature
	// that verifies but whose certificate names another OIDC issuer or
	// identity than the trusted ones.
	ReasonWrongIssuer   Reason = "wrong issuer"
	ReasonWrongIdentity Reason = "wrong identity"
	// ReasonUntrustedCertificate is a certificate that no Fulcio CA of the
	// trusted root issued, that was not valid when signing, or that has no
	// SCT from a trusted CT log.
	ReasonUntrustedCertificate Reason = "untrusted certificate"
	// ReasonNoTimestamp is a keyless signature with no proven time of
	// signing, so its short-lived certificate proves nothing.
	ReasonNoTimestamp Reason = "no timestamp"
	// ReasonNoLogEntry is a keyless signature with no entry of a trusted
	// transparency log.
	ReasonNoLogEntry      Reason = "no log entry"
	ReasonBadSignature    Reason = "bad signature"
	ReasonSubjectMismatch Reason = "subject mismatch"
	ReasonContentMismatch Reason = "content mismatch"
)

var reasonRank = []Reason{
	ReasonNoSignature, ReasonWrongKey, ReasonWrongIssuer, ReasonWrongIdentity,
	ReasonUntrustedCertificate, ReasonNoTimestamp, ReasonNoLogEntry,
	ReasonBadSignature, ReasonSubjectMismatch, ReasonContentMismatch,
}

// MaxSignatures bounds how many signature referrers of one package Verify
// reads.
const MaxSignatures = 64

// ErrNotVerified is matched (errors.Is) by every *Error.
var ErrNotVerified = errors.New("not verified")

// Error is a package that did not verify.
type Error struct {
	Reason  Reason
	Subject digest.Digest
	// Details say what each signature found wrong.
	Details []string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: %s", e.Subject, e.Reason)
	if len(e.Details) > 0 {
		msg += ": " + strings.Join(e.Details, "; ")
	}
	return msg
}

func (e *Error) Is(target error) bool { return target == ErrNotVerified }

// add records a signature that failed for reason; the error takes the
// most telling reason of those it records.
func (e *Error) add(reason Reason, detail string) {
	if slices.Index(reasonRank, reason) > slices.Index(reasonRank, e.Reason) {
		e.Reason = reason
	}
	e.Details = append(e.Details, detail)
}

// VerifyOptions control Verify.
type VerifyOptions struct {
	// Verifiers are the trusted keys; a signature by any of them will do.
	Verifiers []Verifier
	// Limits bound the skills layer read to check the signed file
	// digests; the zero value is the defaults.
	layers.Limits
}

// Formats of a verified signature: FormatStax is one whose statement
// lists the package's files, all checked, whichever way it is attached;
// FormatSigstore one by cosign, which names the manifest alone.
const (
	FormatStax     = "stax"
	FormatSigstore = "sigstore-bundle"
)

// Verified is the signature that verified a package.
type Verified struct {
	// Signer is the ID of the trusted key that verified it, or the
	// identity its certificate names for a keyless signature.
	Signer string
	// Identity and Issuer are what the certificate of a keyless signature
	// names: its subject and OIDC issuer; empty for a key's.
	Identity, Issuer string
	// SignedAt is when the signer says it signed; zero when not said.
	SignedAt time.Time
	// Signature is the referrer's manifest.
	Signature ocispec.Descriptor
	Format    string
	// Provenance is the signed predicate of a stax signature; nil for a
	// cosign signature, whose statement names the manifest alone.
	Provenance *Provenance
}

// Verify finds the signature referrers of the package at desc in t and
// returns the first that a trusted key verifies and whose statement names
// desc and matches the package's content. Otherwise it returns an *Error.
func Verify(ctx context.Context, t content.ReadOnlyGraphStorage, desc ocispec.Descriptor, opts VerifyOptions) (*Verified, error) {
	if len(opts.Verifiers) == 0 {
		return nil, errors.New("no key to verify with")
	}
	refs, err := registry.Referrers(ctx, t, desc, "")
	if err != nil {
		return nil, fmt.Errorf("list the signatures of %s: %w", desc.Digest, err)
	}
	failed := &Error{Reason: ReasonNoSignature, Subject: desc.Digest}
	tried := 0
	for _, ref := range refs {
		if !mayBeSignature(ref.ArtifactType) {
			continue
		}
		// A registry may list any number of referrers; each costs fetches.
		if tried++; tried > MaxSignatures {
			failed.Details = append(failed.Details, fmt.Sprintf("only the first %d signatures were checked", MaxSignatures))
			break
		}
		v, reason, err := verifyOne(ctx, t, desc, ref, opts)
		if err != nil {
			return nil, err
		}
		if v != nil {
			return v, nil
		}
		if reason.Reason == "" {
			continue // another kind of referrer
		}
		failed.add(reason.Reason, fmt.Sprintf("signature %s: %s", ref.Digest, reason.detail))
	}
	// cosign's tag-based signatures are no referrers: they are looked up
	// by their tag (see simplesigning.go).
	if v, err := verifySimpleSigning(ctx, t, desc, opts, failed); v != nil || err != nil {
		return v, err
	}
	return nil, failed
}

// mayBeSignature reports whether a referrer listed with artifactType may
// be a signature. Some registries (go-containerregistry's) list a referrer
// under its config media type instead of its artifactType, so those are
// candidates too, to be told apart by their manifest.
func mayBeSignature(artifactType string) bool {
	switch artifactType {
	case ArtifactType, MediaTypeSigstoreBundle, MediaTypeConfig, ocispec.MediaTypeEmptyJSON, "":
		return true
	}
	return false
}

type failure struct {
	Reason Reason
	detail string
}

func failf(r Reason, format string, args ...any) failure {
	return failure{r, fmt.Sprintf(format, args...)}
}

func fail(r Reason, format string, args ...any) (*Verified, failure, error) {
	return nil, failf(r, format, args...), nil
}

// verifyOne checks one referrer. A signature that does not verify is a
// failure; a referrer that is no signature, a failure without a reason; an
// error is a failure to read what is there.
func verifyOne(ctx context.Context, t content.ReadOnlyStorage, desc, ref ocispec.Descriptor, opts VerifyOptions) (*Verified, failure, error) {
	m, b, f, err := readBundle(ctx, t, desc, ref)
	if err != nil || b == nil {
		return nil, f, err
	}
	format := FormatStax
	if m.ArtifactType == MediaTypeSigstoreBundle {
		format = FormatSigstore
	}
	env := b.GetDsseEnvelope()
	if env == nil {
		return fail(ReasonBadSignature, "its bundle holds no DSSE envelope, the only kind stax verifies")
	}
	signer, result, reason, why := signerOf(b, opts.Verifiers)
	if signer == nil {
		return fail(reason, "%s", why)
	}
	// The envelope's signature covers its payload type and payload, so
	// from here on the statement is what the signer signed.
	st, err := ParseStatement(env.GetPayload())
	if err != nil {
		return fail(ReasonBadSignature, "%v", err)
	}
	if !slices.ContainsFunc(st.Subject, func(s Subject) bool { return s.Digest[string(desc.Digest.Algorithm())] == desc.Digest.Encoded() }) {
		return fail(ReasonSubjectMismatch, "it signs %s, not %s", subjectDigests(st), desc.Digest)
	}
	v := &Verified{Signer: signer.ID(), Signature: ref, Format: format}
	v.setCertificate(result)
	if format == FormatSigstore && st.PredicateType != PredicateType {
		return v, failure{}, nil // cosign's: it names the manifest alone
	}
	// A stax statement, in either format: its content is checked.
	v.Format = FormatStax
	if st.PredicateType != PredicateType || st.Predicate == nil {
		return fail(ReasonContentMismatch, "its statement is a %q, not a stax package statement", st.PredicateType)
	}
	prov := st.Predicate
	v.Provenance = prov
	v.SignedAt, _ = time.Parse(time.RFC3339, prov.SignedAt)
	if f, err := checkSigned(ctx, t, desc, m, prov, signer.ID(), opts.Limits); err != nil || f.Reason != "" {
		return nil, f, err
	}
	return v, failure{}, nil
}

// readBundle reads the manifest of the referrer ref of desc and the
// Sigstore bundle it carries. A referrer that is no signature has neither
// bundle nor failure.
func readBundle(ctx context.Context, t content.ReadOnlyStorage, desc, ref ocispec.Descriptor) (*ocispec.Manifest, *bundle.Bundle, failure, error) {
	if ref.Size < 0 || ref.Size > artifact.MaxMetadataSize {
		return nil, nil, failf(ReasonBadSignature, "manifest of %d bytes is over the %d-byte limit", ref.Size, artifact.MaxMetadataSize), nil
	}
	raw, err := content.FetchAll(ctx, t, ref)
	if err != nil {
		return nil, nil, failure{}, fmt.Errorf("fetch signature %s: %w", ref.Digest, err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, nil, failf(ReasonBadSignature, "manifest is not valid JSON: %v", err), nil
	}
	if m.ArtifactType != ArtifactType && m.ArtifactType != MediaTypeSigstoreBundle {
		return nil, nil, failure{}, nil
	}
	if m.Subject == nil || m.Subject.Digest != desc.Digest {
		return nil, nil, failf(ReasonSubjectMismatch, "its manifest does not refer to %s", desc.Digest), nil
	}
	layerType := MediaTypePayload
	if m.ArtifactType == MediaTypeSigstoreBundle {
		layerType = MediaTypeSigstoreBundle
	}
	var payload *ocispec.Descriptor
	for i := range m.Layers {
		if m.Layers[i].MediaType == layerType {
			payload = &m.Layers[i]
			break
		}
	}
	if payload == nil {
		return nil, nil, failf(ReasonBadSignature, "it has no %s layer", layerType), nil
	}
	if payload.Size < 0 || payload.Size > artifact.MaxMetadataSize {
		return nil, nil, failf(ReasonBadSignature, "bundle of %d bytes is over the %d-byte limit", payload.Size, artifact.MaxMetadataSize), nil
	}
	data, err := content.FetchAll(ctx, t, *payload)
	if err != nil {
		return nil, nil, failure{}, fmt.Errorf("fetch signature bundle %s: %w", payload.Digest, err)
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(data); err != nil {
		return nil, nil, failf(ReasonBadSignature, "its payload is not a Sigstore bundle: %v", err), nil
	}
	return &m, &b, failure{}, nil
}

// setCertificate takes the signer of a keyless signature from the
// certificate that result verified, if any.
func (v *Verified) setCertificate(result *verify.VerificationResult) {
	if result.Signature == nil || result.Signature.Certificate == nil {
		return
	}
	cert := result.Signature.Certificate
	v.Signer, v.Identity, v.Issuer = cert.SubjectAlternativeName, cert.SubjectAlternativeName, cert.Extensions.Issuer
	// A keyless signature's time is the one a log or timestamp
	// authority vouched for, not one the signer states.
	for _, ts := range result.VerifiedTimestamps {
		if v.SignedAt.IsZero() || ts.Timestamp.Before(v.SignedAt) {
			v.SignedAt = ts.Timestamp
		}
	}
}

// checkSigned compares the package at desc, and the config of its
// signature manifest m, with the statement prov that signer signed.
func checkSigned(ctx context.Context, t content.ReadOnlyStorage, desc ocispec.Descriptor, m *ocispec.Manifest, prov *Provenance, signer string, limits layers.Limits) (failure, error) {
	if prov.Signer != signer {
		return failf(ReasonContentMismatch, "its statement names the signer %s, but key %s made it", prov.Signer, signer), nil
	}
	if m.ArtifactType == ArtifactType {
		if f, err := checkConfig(ctx, t, m.Config, prov); err != nil || f != "" {
			if err != nil {
				return failure{}, err
			}
			return failf(ReasonContentMismatch, "%s", f), nil
		}
	}
	pkg, err := artifact.Fetch(ctx, t, desc)
	if err != nil {
		return failure{}, err
	}
	if pkg.Config.Name != prov.Name || pkg.Config.Version != prov.Version {
		return failf(ReasonContentMismatch, "it signs %s %s, but the package is %s %s", prov.Name, prov.Version, pkg.Config.Name, pkg.Config.Version), nil
	}
	skills, err := Contents(ctx, t, pkg, limits)
	if err != nil {
		return failure{}, err
	}
	if diffs := Compare(prov.Skills, skills); len(diffs) > 0 {
		return failf(ReasonContentMismatch, "the package differs from what was signed: %s", strings.Join(diffs, ", ")), nil
	}
	return failure{}, nil
}

// signerOf is the verifier b's signature verifies with, and what it
// verified; when none, the reason and what went wrong. A signature by a
// trusted key that does not verify is told apart from one by a key not
// trusted at all; a verifier that knows why it refused (a keyless one)
// gives its own reason.
func signerOf(b *bundle.Bundle, verifiers []Verifier) (Verifier, *verify.VerificationResult, Reason, string) {
	var claimedErr error
	for _, v := range verifiers {
		if res, err := v.Verify(b); err == nil {
			return v, res, "", ""
		} else if v.Claimed(b) {
			claimedErr = err
		}
	}
	var reasoned *reasonError
	switch {
	case errors.As(claimedErr, &reasoned):
		return nil, nil, reasoned.reason, reasoned.Error()
	case claimedErr != nil:
		return nil, nil, ReasonBadSignature, fmt.Sprintf("made with a trusted key but does not verify: %v", claimedErr)
	}
	return nil, nil, ReasonWrongKey, untrusted(b, verifiers)
}

// untrusted says why none of verifiers made b. A signature of the other
// kind than every signer trusted (a key's where only identities are, a
// certificate's where only keys are) is named so, with how to trust it.
func untrusted(b *bundle.Bundle, verifiers []Verifier) string {
	keys, identities := 0, 0
	for _, v := range verifiers {
		if _, ok := v.(*KeylessVerifier); ok {
			identities++
		} else {
			keys++
		}
	}
	vc, err := b.VerificationContent()
	switch {
	case err != nil:
	case vc.Certificate() != nil && identities == 0:
		return fmt.Sprintf("signed keyless, by %s, but only keys are trusted: trust that identity with --certificate-identity, --certificate-oidc-issuer and --trusted-root, or with identities in the trust policy",
			certificateName(vc.Certificate()))
	case vc.Certificate() == nil && keys == 0:
		return "signed with a key, but only certificate identities are trusted: trust the key with --key, or with keys in the trust policy"
	}
	return "made with none of the trusted keys"
}

// checkConfig compares the signature config with the signed statement.
func checkConfig(ctx context.Context, t content.Fetcher, desc ocispec.Descriptor, prov *Provenance) (string, error) {
	if desc.MediaType != MediaTypeConfig {
		return fmt.Sprintf("its config is a %q, not %s", desc.MediaType, MediaTypeConfig), nil
	}
	if desc.Size < 0 || desc.Size > artifact.MaxMetadataSize {
		return fmt.Sprintf("its config of %d bytes is over the limit", desc.Size), nil
	}
	raw, err := content.FetchAll(ctx, t, desc)
	if err != nil {
		return "", fmt.Errorf("fetch signature config %s: %w", desc.Digest, err)
	}
	var cfg Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return fmt.Sprintf("its config is not valid JSON: %v", err), nil
	}
	if cfg.Signer != prov.Signer || cfg.SignedAt != prov.SignedAt || cfg.Algorithm != prov.Algorithm {
		return fmt.Sprintf("its config says signer %s at %s with %s, the signed statement %s at %s with %s",
			cfg.Signer, cfg.SignedAt, cfg.Algorithm, prov.Signer, prov.SignedAt, prov.Algorithm), nil
	}
	return "", nil
}

// Compare lists, as "skill/file", every file that differs between what was
// signed and what is there: changed, added or removed.
func Compare(signed, actual []SkillFiles) []string {
	want := fileMap(signed)
	got := fileMap(actual)
	var diffs []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			diffs = append(diffs, p+" removed")
		} else if g != w {
			diffs = append(diffs, p+" changed")
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, p+" added")
		}
	}
	slices.Sort(diffs)
	return diffs
}

func fileMap(skills []SkillFiles) map[string]FileHash {
	m := map[string]FileHash{}
	for _, s := range skills {
		for _, f := range s.Files {
			m[s.Path+"/"+f.Path] = f
		}
	}
	return m
}

func subjectDigests(st *Statement) string {
	var out []string
	for _, s := range st.Subject {
		for alg, hex := range s.Digest {
			out = append(out, alg+":"+hex)
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, ", ")
}
