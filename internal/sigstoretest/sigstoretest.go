// Package sigstoretest is a Sigstore for tests, in memory: a Fulcio that
// issues short-lived certificates carrying an embedded SCT from a CT log
// of its own, with sigstore-go's virtual Rekor and timestamp authority
// beside it. It makes keyless Sigstore bundles as cosign does, the trusted
// root that verifies them, and attaches bundles to packages the way cosign
// v3 does, so that keyless verification is tested end to end without any
// live service.
package sigstoretest

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ct "github.com/google/certificate-transparency-go"
	cttls "github.com/google/certificate-transparency-go/tls"
	ctx509 "github.com/google/certificate-transparency-go/x509"
	ctx509util "github.com/google/certificate-transparency-go/x509util"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
)

// Media and predicate types cosign v3 uses for the bundle it attaches.
const (
	MediaTypeBundle   = "application/vnd.dev.sigstore.bundle.v0.3+json"
	PayloadTypeInToto = "application/vnd.in-toto+json"
	// PredicateTypeCosignSign is the predicate of the statement `cosign
	// sign` signs: it names the image and nothing more.
	PredicateTypeCosignSign = "https://sigstore.dev/cosign/sign/v1"
)

// CertificateLifetime is how long a certificate of the test Fulcio is
// valid, as long as Fulcio's.
const CertificateLifetime = 10 * time.Minute

// oidIssuerV1 is Fulcio's OIDC issuer extension, whose value is the raw
// issuer URL.
var oidIssuerV1 = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 1}

// Sigstore is a test Fulcio (root, intermediate and CT log) with the
// virtual Rekor and timestamp authority of sigstore-go.
type Sigstore struct {
	virtual         *ca.VirtualSigstore
	root            *x509.Certificate
	intermediate    *x509.Certificate
	intermediateKey *ecdsa.PrivateKey
	ctKey           *ecdsa.PrivateKey
	// start bounds the validity of the logs and CAs in the trusted root.
	start time.Time
}

// New makes a Sigstore for t.
func New(t testing.TB) *Sigstore {
	t.Helper()
	virtual, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	rootCert, rootKey, err := ca.GenerateRootCa()
	if err != nil {
		t.Fatal(err)
	}
	inter, interKey := fulcioIntermediate(t, rootCert, rootKey)
	ctKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &Sigstore{virtual: virtual, root: rootCert, intermediate: inter, intermediateKey: interKey, ctKey: ctKey, start: time.Now().Add(-time.Hour)}
}

// fulcioIntermediate is Fulcio's intermediate CA under root. It is made
// here rather than by the ca package, whose intermediate starts two
// minutes before it is made: a certificate a test back-dates (to sign in
// the past, see SignOptions.NotBefore) must chain to it at its time.
func fulcioIntermediate(t testing.TB, rootCert *x509.Certificate, rootKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(2),
		Subject:               pkix.Name{CommonName: "sigstoretest-intermediate", Organization: []string{"sigstoretest"}},
		NotBefore:             rootCert.NotBefore,
		NotAfter:              rootCert.NotAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, rootCert, key.Public(), rootKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// TrustedRoot is the trusted_root.json that verifies what s signs: its
// Fulcio, CT log, Rekor and timestamp authority.
func (s *Sigstore) TrustedRoot(t testing.TB) []byte {
	t.Helper()
	fulcio := &root.FulcioCertificateAuthority{
		Root: s.root, Intermediates: []*x509.Certificate{s.intermediate},
		URI: "https://fulcio.sigstoretest.invalid", ValidityPeriodStart: s.start,
	}
	ctID, err := logID(s.ctKey.Public())
	if err != nil {
		t.Fatal(err)
	}
	ctLogs := map[string]*root.TransparencyLog{ctID: {
		BaseURL: "https://ctfe.sigstoretest.invalid", ID: mustHex(t, ctID), ValidityPeriodStart: s.start,
		HashFunc: crypto.SHA256, PublicKey: s.ctKey.Public(), SignatureHashFunc: crypto.SHA256,
	}}
	rekorLogs := s.virtual.RekorLogs()
	for _, l := range rekorLogs {
		// The virtual Rekor's window is the hour around when it is asked;
		// the root written now must outlast the test.
		l.ValidityPeriodStart, l.ValidityPeriodEnd = s.start, time.Time{}
		l.ID = mustHex(t, string(l.ID))
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, []root.CertificateAuthority{fulcio}, ctLogs, s.virtual.TimestampingAuthorities(), rekorLogs)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// WriteTrustedRoot writes TrustedRoot to dir/trusted_root.json and returns
// its path.
func (s *Sigstore) WriteTrustedRoot(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "trusted_root.json")
	if err := os.WriteFile(path, s.TrustedRoot(t), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// SignOptions say who signs and what the bundle carries. The zero value
// (with an identity and issuer) is what cosign makes against the public
// Sigstore: a certificate with an SCT, a log entry whose time the log
// signed, and no RFC 3161 timestamp.
type SignOptions struct {
	// Identity is the certificate's subject: an email address, or a URI
	// such as a GitHub Actions workflow reference.
	Identity string
	// Issuer is the OIDC issuer URL the certificate names.
	Issuer string
	// NotBefore starts the certificate's validity; now when zero.
	NotBefore time.Time
	// NoSCT leaves the SCT out of the certificate.
	NoSCT bool
	// NoLogEntry leaves the transparency log entry out.
	NoLogEntry bool
	// UnsignedLogTime gives the log entry an inclusion proof but no signed
	// entry timestamp, so the time it records proves nothing.
	UnsignedLogTime bool
	// Timestamp adds an RFC 3161 timestamp from the timestamp authority.
	Timestamp bool
}

// Sign signs payload (an in-toto statement) in a DSSE envelope with a
// fresh short-lived certificate and returns the Sigstore bundle as JSON.
func (s *Sigstore) Sign(t testing.TB, payload []byte, opts SignOptions) []byte {
	t.Helper()
	notBefore := opts.NotBefore
	if notBefore.IsZero() {
		notBefore = time.Now().Add(-time.Minute)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := s.issue(t, key, opts.Identity, opts.Issuer, notBefore, !opts.NoSCT)
	digest := sha256.Sum256(dsse.PAE(PayloadTypeInToto, payload))
	sig, err := ecdsa.SignASN1(rand.Reader, key, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	vm := &protobundle.VerificationMaterial{
		Content: &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: leaf.Raw}},
	}
	if !opts.NoLogEntry {
		vm.TlogEntries = []*protorekor.TransparencyLogEntry{s.logEntry(t, leaf, payload, sig, notBefore.Add(time.Minute), !opts.UnsignedLogTime)}
	}
	if opts.Timestamp {
		tsr, err := s.virtual.TimestampResponse(sig)
		if err != nil {
			t.Fatal(err)
		}
		vm.TimestampVerificationData = &protobundle.TimestampVerificationData{Rfc3161Timestamps: []*protocommon.RFC3161SignedTimestamp{{SignedTimestamp: tsr}}}
	}
	pb := &protobundle.Bundle{
		MediaType:            MediaTypeBundle,
		VerificationMaterial: vm,
		Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
			Payload: payload, PayloadType: PayloadTypeInToto, Signatures: []*protodsse.Signature{{Sig: sig}},
		}},
	}
	data, err := (&bundle.Bundle{Bundle: pb}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// issue makes the leaf certificate of key as Fulcio does: the identity as
// its subject alternative name, the issuer in Fulcio's extension, and,
// when withSCT, an SCT from the CT log over the precertificate.
func (s *Sigstore) issue(t testing.TB, key *ecdsa.PrivateKey, identity, issuer string, notBefore time.Time, withSCT bool) *x509.Certificate {
	t.Helper()
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber:    serial,
		NotBefore:       notBefore,
		NotAfter:        notBefore.Add(CertificateLifetime),
		KeyUsage:        x509.KeyUsageDigitalSignature,
		ExtKeyUsage:     []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
		ExtraExtensions: []pkix.Extension{{Id: oidIssuerV1, Value: []byte(issuer)}},
	}
	if strings.Contains(identity, "://") {
		u, err := url.Parse(identity)
		if err != nil {
			t.Fatal(err)
		}
		template.URIs = []*url.URL{u}
	} else {
		template.EmailAddresses = []string{identity}
	}
	if !withSCT {
		return s.sign(t, template, key)
	}
	// The SCT signs the certificate as it is without its SCT list, so a
	// first certificate with a placeholder list gives the bytes to sign,
	// and the second, the same but for the list, carries the signature.
	sctExt := pkix.Extension{Id: asn1.ObjectIdentifier(ctx509.OIDExtensionCTSCT)}
	if sctExt.Value, err = asn1.Marshal([]byte{0}); err != nil {
		t.Fatal(err)
	}
	template.ExtraExtensions = append(template.ExtraExtensions, sctExt)
	draft := s.sign(t, template, key)
	sctList := s.sct(t, draft, notBefore)
	if template.ExtraExtensions[1].Value, err = asn1.Marshal(sctList); err != nil {
		t.Fatal(err)
	}
	return s.sign(t, template, key)
}

func (s *Sigstore) sign(t testing.TB, template *x509.Certificate, key *ecdsa.PrivateKey) *x509.Certificate {
	t.Helper()
	der, err := x509.CreateCertificate(rand.Reader, template, s.intermediate, key.Public(), s.intermediateKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// sct is the TLS-encoded SCT list, with one SCT by the CT log, for the
// certificate draft.
func (s *Sigstore) sct(t testing.TB, draft *x509.Certificate, at time.Time) []byte {
	t.Helper()
	// The draft's placeholder list does not parse, which is no matter:
	// only the rest of the certificate is signed.
	chain, err := ctx509.ParseCertificates(append(append([]byte{}, draft.Raw...), s.intermediate.Raw...))
	if ctx509.IsFatal(err) {
		t.Fatal(err)
	}
	timestamp := uint64(at.UnixMilli())
	leaf, err := ct.MerkleTreeLeafForEmbeddedSCT(chain, timestamp)
	if err != nil {
		t.Fatal(err)
	}
	id, err := logID(s.ctKey.Public())
	if err != nil {
		t.Fatal(err)
	}
	sct := ct.SignedCertificateTimestamp{SCTVersion: ct.V1, Timestamp: timestamp}
	copy(sct.LogID.KeyID[:], mustHex(t, id))
	input, err := ct.SerializeSCTSignatureInput(sct, ct.LogEntry{Leaf: *leaf})
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256(input)
	sig, err := ecdsa.SignASN1(rand.Reader, s.ctKey, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	sct.Signature = ct.DigitallySigned{
		Algorithm: cttls.SignatureAndHashAlgorithm{Hash: cttls.SHA256, Signature: cttls.ECDSA},
		Signature: sig,
	}
	list, err := ctx509util.MarshalSCTsIntoSCTList([]*ct.SignedCertificateTimestamp{&sct})
	if err != nil {
		t.Fatal(err)
	}
	data, err := cttls.Marshal(*list)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// logEntry is the Rekor entry (kind dsse) of the signed envelope, with an
// inclusion proof and, when signedTime, the log's signed entry timestamp.
func (s *Sigstore) logEntry(t testing.TB, leaf *x509.Certificate, payload, sig []byte, integrated time.Time, signedTime bool) *protorekor.TransparencyLogEntry {
	t.Helper()
	env := &dsse.Envelope{
		PayloadType: PayloadTypeInToto,
		Payload:     base64.StdEncoding.EncodeToString(payload),
		Signatures:  []dsse.Signature{{Sig: base64.StdEncoding.EncodeToString(sig)}},
	}
	entry, err := s.virtual.GenerateTlogEntry(leaf, env, sig, integrated.Unix(), true)
	if err != nil {
		t.Fatal(err)
	}
	tle := entry.TransparencyLogEntry()
	tle.KindVersion = &protorekor.KindVersion{Kind: "dsse", Version: "0.0.1"}
	if signedTime {
		id, err := s.virtual.RekorLogID()
		if err != nil {
			t.Fatal(err)
		}
		set, err := s.virtual.RekorSignPayload(tlog.RekorPayload{
			Body: entry.Body(), IntegratedTime: integrated.Unix(), LogIndex: entry.LogIndex(), LogID: id,
		})
		if err != nil {
			t.Fatal(err)
		}
		tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}
	}
	return tle
}

// Statement is the in-toto statement `cosign sign` signs for the manifest
// desc: its digest as the subject, under name.
func Statement(name string, desc ocispec.Descriptor) []byte {
	st := map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"name": name, "digest": map[string]string{string(desc.Digest.Algorithm()): desc.Digest.Encoded()}}},
		"predicateType": PredicateTypeCosignSign,
		"predicate":     map[string]any{},
	}
	data, err := json.Marshal(st)
	if err != nil {
		panic(err) // a map of strings always encodes
	}
	return data
}

// Tamper returns bundleJSON with the statement in its envelope changed
// after signing: the subject's name, so the digest it signs stays.
func Tamper(t testing.TB, bundleJSON []byte) []byte {
	t.Helper()
	var b bundle.Bundle
	if err := b.UnmarshalJSON(bundleJSON); err != nil {
		t.Fatal(err)
	}
	env := b.GetDsseEnvelope()
	changed := bytes.Replace(env.Payload, []byte(`"name":"`), []byte(`"name":"tampered/`), 1)
	if bytes.Equal(changed, env.Payload) {
		t.Fatal("Tamper: the statement has no subject name to change")
	}
	env.Payload = changed
	data, err := b.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Attach attaches bundleJSON to the manifest subject in target as cosign
// v3 does: a referrer whose artifact type and one layer are the Sigstore
// bundle, with the empty config.
func Attach(t testing.TB, target oras.GraphTarget, subject ocispec.Descriptor, bundleJSON []byte) ocispec.Descriptor {
	t.Helper()
	ctx := context.Background()
	layer := content.NewDescriptorFromBytes(MediaTypeBundle, bundleJSON)
	layer.Annotations = map[string]string{
		"dev.sigstore.bundle.content":       "dsse-envelope",
		"dev.sigstore.bundle.predicateType": PredicateTypeCosignSign,
	}
	cfg := ocispec.DescriptorEmptyJSON
	for _, b := range []struct {
		desc ocispec.Descriptor
		data []byte
	}{{cfg, cfg.Data}, {layer, bundleJSON}} {
		if err := target.Push(ctx, b.desc, bytes.NewReader(b.data)); err != nil && !errorsIsExists(err) {
			t.Fatal(err)
		}
	}
	sub := ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size}
	desc, err := oras.PackManifest(ctx, target, oras.PackManifestVersion1_1, MediaTypeBundle, oras.PackManifestOptions{
		Subject: &sub, ConfigDescriptor: &cfg, Layers: []ocispec.Descriptor{layer},
		ManifestAnnotations: map[string]string{ocispec.AnnotationCreated: time.Now().UTC().Format(time.RFC3339)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return desc
}

func errorsIsExists(err error) bool {
	// Registries say so in words where oras-go has no sentinel for it.
	return errors.Is(err, errdef.ErrAlreadyExists) || (err != nil && strings.Contains(err.Error(), "already exists"))
}

// logID is how Sigstore names a log: the hex SHA-256 of its key's PKIX
// encoding.
func logID(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:]), nil
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
