package signature_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/youmark/pkcs8"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
)

// TestMain keeps every test on loopback.
func TestMain(m *testing.M) {
	registrytest.KeepOnLoopback()
	os.Exit(runTests(m))
}

// keyDir holds the key files of the shared signing keys for the run.
var keyDir string

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "stax-signature-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	keyDir = dir
	return m.Run()
}

// places are the three kinds of place a package and its signatures live:
// distribution v3 (no referrers API: oras-go's tag-schema fallback),
// go-containerregistry's registry (the OCI 1.1 referrers API), and an OCI
// layout (the local store is one too).
var places = []struct {
	name string
	open func(t testing.TB) oras.GraphTarget
}{
	{"distribution", func(t testing.TB) oras.GraphTarget { return openRemote(t, registrytest.New(t)) }},
	{"referrers-api", func(t testing.TB) oras.GraphTarget {
		return openRemote(t, registrytest.New(t, registrytest.WithReferrersAPI()))
	}},
	{"oci-layout", func(t testing.TB) oras.GraphTarget {
		s, err := store.OpenLayout(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
}

func openRemote(t testing.TB, r *registrytest.Registry) oras.GraphTarget {
	repo, err := remote.NewRepository(r.Host + "/acme/skills")
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	return repo
}

// packExamples builds the example package (with stateful siblings) into
// t; the build is reproducible, so every call gives the same digest.
func packExamples(t testing.TB, dst oras.GraphTarget, version string) ocispec.Descriptor {
	t.Helper()
	p, err := staxyaml.Open("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	res, err := pack.Build(context.Background(), dst, pack.Options{Project: p, Overrides: staxyaml.Definition{Version: version}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Descriptor
}

// sharedKey is the signing key of one algorithm every test signs with.
type sharedKey struct {
	once     sync.Once
	signer   *signature.KeySigner
	verifier *signature.KeyVerifier
	files    *signature.KeyPair // the Ed25519 key's, which WriteKeyPair wrote
	err      error
}

// signingKeys are the signing keys by algorithm, encrypted with the
// production scrypt parameters and loaded back: two scrypt runs, seconds
// under the race detector, so one key per algorithm is made in a run and
// shared, since tests only sign with it. The ECDSA key is made by
// GenerateKey; the Ed25519 one is written to files by WriteKeyPair, and
// TestWriteKeyPairNamesItsKey checks what it wrote.
var signingKeys = map[string]*sharedKey{
	signature.AlgorithmECDSAP256: {},
	signature.AlgorithmEd25519:   {},
}

// signingKey returns the shared signer of algorithm and its verifier.
func signingKey(t testing.TB, algorithm string) (*signature.KeySigner, *signature.KeyVerifier) {
	t.Helper()
	k := sharedSigningKey(t, algorithm)
	return k.signer, k.verifier
}

// sharedSigningKey returns the shared key of algorithm, made by the first
// test that asks for it.
func sharedSigningKey(t testing.TB, algorithm string) *sharedKey {
	t.Helper()
	if algorithm == "" {
		algorithm = signature.AlgorithmECDSAP256
	}
	k := signingKeys[algorithm]
	k.once.Do(func() { k.err = k.make(algorithm) })
	if k.err != nil {
		t.Fatalf("signing key %q: %v", algorithm, k.err)
	}
	return k
}

func (k *sharedKey) make(algorithm string) error {
	var priv, pub []byte
	var err error
	if algorithm == signature.AlgorithmEd25519 {
		if k.files, err = signature.WriteKeyPair(filepath.Join(keyDir, algorithm), algorithm, []byte("pw"), false); err != nil {
			return err
		}
		if priv, err = os.ReadFile(k.files.PrivateKey); err != nil {
			return err
		}
		if pub, err = os.ReadFile(k.files.PublicKey); err != nil {
			return err
		}
	} else if priv, pub, err = signature.GenerateKey(algorithm, []byte("pw")); err != nil {
		return err
	}
	if k.signer, err = signature.LoadPrivateKey(priv, password("pw")); err != nil {
		return err
	}
	k.verifier, err = signature.LoadPublicKey(pub)
	return err
}

// strangerKey returns the verifier of a new key of algorithm that signed
// nothing. Only its public key is used, so it is made in memory, without
// the encryption a key file needs.
func strangerKey(t testing.TB, algorithm string) *signature.KeyVerifier {
	t.Helper()
	var pub crypto.PublicKey
	switch algorithm {
	case "", signature.AlgorithmECDSAP256:
		priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		pub = priv.Public()
	case signature.AlgorithmEd25519:
		public, _, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		pub = public
	default:
		t.Fatalf("unknown key algorithm %q", algorithm)
	}
	v, err := signature.NewKeyVerifier(pub)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func wantReason(t *testing.T, err error, want signature.Reason) {
	t.Helper()
	var verr *signature.Error
	if !errors.As(err, &verr) {
		t.Fatalf("want a verification error (%s), got %v", want, err)
	}
	if verr.Reason != want {
		t.Fatalf("reason = %q, want %q (%v)", verr.Reason, want, err)
	}
	if !errors.Is(err, signature.ErrNotVerified) {
		t.Fatal("a verification error must match signature.ErrNotVerified")
	}
}

func TestSignThenVerify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, place := range places {
		for _, alg := range []string{signature.AlgorithmECDSAP256, signature.AlgorithmEd25519} {
			t.Run(place.name+"/"+alg, func(t *testing.T) {
				t.Parallel()
				target := place.open(t)
				desc := packExamples(t, target, "")
				signer, verifier := signingKey(t, alg)
				other := strangerKey(t, alg)

				_, err := signature.Verify(ctx, target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{verifier}})
				wantReason(t, err, signature.ReasonNoSignature)

				signedAt := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
				signed, err := signature.Sign(ctx, target, desc, signer, signature.SignOptions{Name: "acme/skills", Now: signedAt})
				if err != nil {
					t.Fatal(err)
				}
				if signed.Config.Signer != signer.ID() || signed.Config.Algorithm == "" {
					t.Fatalf("config %+v", signed.Config)
				}
				got, err := signature.Verify(ctx, target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{other, verifier}})
				if err != nil {
					t.Fatal(err)
				}
				if got.Signer != verifier.ID() || !got.SignedAt.Equal(signedAt) || got.Format != signature.FormatStax {
					t.Fatalf("verified %+v", got)
				}
				pm, ok := got.Provenance.Skill("incident-postmortem")
				if !ok {
					t.Fatal("the statement lacks the stateful skill")
				}
				var names []string
				for _, f := range pm.Files {
					names = append(names, f.Path)
				}
				if strings.Join(names, ",") != "CALIBRATION.md,EXAMPLES.md,MEMORY.md,SKILL.md" {
					t.Fatalf("signed files %v", names)
				}

				_, err = signature.Verify(ctx, target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{other}})
				wantReason(t, err, signature.ReasonWrongKey)
			})
		}
	}
}

// referrer is a signature referrer's parts, to tamper with.
type referrer struct {
	manifest ocispec.Manifest
	config   []byte
	bundle   []byte
}

func readReferrer(t *testing.T, target oras.GraphTarget, desc ocispec.Descriptor) referrer {
	t.Helper()
	ctx := context.Background()
	raw, err := content.FetchAll(ctx, target, desc)
	if err != nil {
		t.Fatal(err)
	}
	var r referrer
	if err := json.Unmarshal(raw, &r.manifest); err != nil {
		t.Fatal(err)
	}
	if r.config, err = content.FetchAll(ctx, target, r.manifest.Config); err != nil {
		t.Fatal(err)
	}
	if r.bundle, err = content.FetchAll(ctx, target, r.manifest.Layers[0]); err != nil {
		t.Fatal(err)
	}
	return r
}

// attach pushes a referrer of subject with the given config and payload.
func attach(t *testing.T, target oras.GraphTarget, subject ocispec.Descriptor, artifactType string, cfg ocispec.Descriptor, cfgData []byte, layerType string, payload []byte) {
	t.Helper()
	ctx := context.Background()
	layer := content.NewDescriptorFromBytes(layerType, payload)
	for _, b := range []struct {
		d    ocispec.Descriptor
		data []byte
	}{{cfg, cfgData}, {layer, payload}} {
		if err := target.Push(ctx, b.d, bytes.NewReader(b.data)); err != nil && !strings.Contains(err.Error(), "already exists") {
			t.Fatal(err)
		}
	}
	_, err := oras.PackManifest(ctx, target, oras.PackManifestVersion1_1, artifactType, oras.PackManifestOptions{
		Subject: &subject, ConfigDescriptor: &cfg, Layers: []ocispec.Descriptor{layer},
		ManifestAnnotations: map[string]string{ocispec.AnnotationCreated: "2026-01-01T00:00:00Z"},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestVerifyRefusesTampering attaches altered signatures in both formats
// stax has written: as cosign attaches a bundle (the empty config, the
// bundle its one layer), and the older stax one, whose config records the
// signer unsigned.
func TestVerifyRefusesTampering(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	signer, verifier := signingKey(t, "")
	opts := signature.VerifyOptions{Verifiers: []signature.Verifier{verifier}}
	for _, place := range places {
		t.Run(place.name, func(t *testing.T) {
			t.Parallel()
			// signature.Sign in one place, then attach altered copies of the parts to
			// the same package in fresh places that hold no good signature.
			origin := place.open(t)
			desc := packExamples(t, origin, "")
			signed, err := signature.Sign(ctx, origin, desc, signer, signature.SignOptions{})
			if err != nil {
				t.Fatal(err)
			}
			good := readReferrer(t, origin, signed.Descriptor)
			goodConfig := legacyConfig(t, signed.Config)
			other := packExamples(t, origin, "2.0.0")
			otherSigned, err := signature.Sign(ctx, origin, other, signer, signature.SignOptions{})
			if err != nil {
				t.Fatal(err)
			}
			otherRef := readReferrer(t, origin, otherSigned.Descriptor)

			cases := []struct {
				name   string
				legacy bool
				config []byte
				bundle []byte
				want   signature.Reason
			}{
				{"legacy/config", true, bytes.Replace(goodConfig, []byte(`"signedAt":"`), []byte(`"signedAt":"1`), 1), good.bundle, signature.ReasonContentMismatch},
				{"legacy/layer", true, goodConfig, tamperPayload(t, good.bundle), signature.ReasonBadSignature},
				{"legacy/re-signed other subject", true, legacyConfig(t, otherSigned.Config), otherRef.bundle, signature.ReasonSubjectMismatch},
				{"cosign/layer", false, nil, tamperPayload(t, good.bundle), signature.ReasonBadSignature},
				{"cosign/re-signed other subject", false, nil, otherRef.bundle, signature.ReasonSubjectMismatch},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					target := place.open(t)
					if d := packExamples(t, target, ""); d.Digest != desc.Digest {
						t.Fatal("the build is not reproducible")
					}
					if c.legacy {
						attach(t, target, desc, signature.ArtifactType, content.NewDescriptorFromBytes(signature.MediaTypeConfig, c.config), c.config, signature.MediaTypePayload, c.bundle)
					} else {
						attach(t, target, desc, signature.MediaTypeSigstoreBundle, ocispec.DescriptorEmptyJSON, ocispec.DescriptorEmptyJSON.Data, signature.MediaTypeSigstoreBundle, c.bundle)
					}
					_, err := signature.Verify(ctx, target, desc, opts)
					wantReason(t, err, c.want)
				})
			}
		})
	}
}

// legacyConfig is the config blob of a signature in the older stax
// format.
func legacyConfig(t *testing.T, cfg signature.Config) []byte {
	t.Helper()
	data, err := artifact.Canonical(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// tamperPayload changes one byte of the signed statement in a bundle.
func tamperPayload(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bundle.Bundle
	if err := b.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	env := b.GetDsseEnvelope()
	env.Payload = bytes.Replace(env.Payload, []byte("SKILL.md"), []byte("SKILL.mD"), 1)
	out, err := b.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestVerifyRefusesStatementThatMisstatesFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := places[2].open(t)
	desc := packExamples(t, target, "")
	signer, verifier := signingKey(t, "")
	// A signer that signs a statement whose MEMORY.md digest is not the
	// package's: the signature is good, the content is not what it says.
	pkgSigner := &misstating{KeySigner: signer}
	if _, err := signature.Sign(ctx, target, desc, pkgSigner, signature.SignOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := signature.Verify(ctx, target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{verifier}})
	wantReason(t, err, signature.ReasonContentMismatch)
	if !strings.Contains(err.Error(), "incident-postmortem/MEMORY.md changed") {
		t.Fatalf("the error does not name the file: %v", err)
	}
}

type misstating struct{ *signature.KeySigner }

func (m *misstating) SignDSSE(ctx context.Context, payloadType string, payload []byte) (*protobundle.Bundle, error) {
	st, err := signature.ParseStatement(payload)
	if err != nil {
		return nil, err
	}
	pm, _ := st.Predicate.Skill("incident-postmortem")
	for i := range pm.Files {
		if pm.Files[i].Path == "MEMORY.md" {
			pm.Files[i].SHA256 = strings.Repeat("0", 64)
		}
	}
	payload, err = artifact.Canonical(st)
	if err != nil {
		return nil, err
	}
	return m.KeySigner.SignDSSE(ctx, payloadType, payload)
}

// TestCosignBundleReferrerVerifies attaches a signature as cosign does
// (a Sigstore bundle referrer: empty config, one bundle layer, a DSSE
// statement naming the manifest) and verifies it with the same key.
func TestCosignBundleReferrerVerifies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, place := range places {
		t.Run(place.name, func(t *testing.T) {
			t.Parallel()
			target := place.open(t)
			desc := packExamples(t, target, "")
			signer, verifier := signingKey(t, "")
			statement := []byte(`{"_type":"https://in-toto.io/Statement/v1","predicate":{},"predicateType":"https://sigstore.dev/cosign/sign/v1","subject":[{"digest":{"sha256":"` + desc.Digest.Encoded() + `"},"name":"acme/skills"}]}`)
			pb, err := signer.SignDSSE(ctx, signature.PayloadTypeInToto, statement)
			if err != nil {
				t.Fatal(err)
			}
			data, err := (&bundle.Bundle{Bundle: pb}).MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			attach(t, target, desc, signature.MediaTypeSigstoreBundle, ocispec.DescriptorEmptyJSON, ocispec.DescriptorEmptyJSON.Data, signature.MediaTypeSigstoreBundle, data)
			got, err := signature.Verify(ctx, target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{verifier}})
			if err != nil {
				t.Fatal(err)
			}
			if got.Format != signature.FormatSigstore || got.Signer != verifier.ID() {
				t.Fatalf("verified %+v", got)
			}
			stranger := strangerKey(t, "")
			_, err = signature.Verify(ctx, target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{stranger}})
			wantReason(t, err, signature.ReasonWrongKey)
		})
	}
}

// TestCosignKeyLoads loads an encrypted key pair made by the sigstore
// function cosign generate-key-pair calls, under both PEM labels cosign
// has written, and refuses a wrong password.
func TestCosignKeyLoads(t *testing.T) {
	t.Parallel()
	priv, pub, err := cryptoutils.GeneratePEMEncodedECDSAKeyPair(elliptic.P256(), cryptoutils.StaticPasswordFunc([]byte("cosign-pw")))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(priv, []byte("ENCRYPTED SIGSTORE PRIVATE KEY")) {
		t.Fatalf("not a cosign key:\n%s", priv)
	}
	legacy := bytes.ReplaceAll(priv, []byte("ENCRYPTED SIGSTORE PRIVATE KEY"), []byte("ENCRYPTED COSIGN PRIVATE KEY"))
	v, err := signature.LoadPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	// Each load is a scrypt run, seconds under the race detector: the
	// loads run beside each other.
	for _, c := range []struct {
		name string
		key  []byte
	}{{"sigstore-label", priv}, {"cosign-label", legacy}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, err := signature.LoadPrivateKey(c.key, password("cosign-pw"))
			if err != nil {
				t.Fatal(err)
			}
			if s.ID() != v.ID() {
				t.Fatalf("private key %s, public key %s", s.ID(), v.ID())
			}
			if _, ok := s.Public().(*ecdsa.PublicKey); !ok {
				t.Fatalf("key %T", s.Public())
			}
		})
	}
	t.Run("wrong-password", func(t *testing.T) {
		t.Parallel()
		if _, err := signature.LoadPrivateKey(priv, password("wrong")); !errors.Is(err, signature.ErrWrongPassword) {
			t.Fatalf("wrong password: %v", err)
		}
	})
	// No password func refuses an encrypted key as such: cosign's format
	// took the sealed bytes for a key and said an ASN.1 tag did not match.
	t.Run("no-password", func(t *testing.T) {
		t.Parallel()
		for _, key := range [][]byte{priv, legacy} {
			if _, err := signature.LoadPrivateKey(key, nil); !errors.Is(err, signature.ErrPasswordNeeded) {
				t.Errorf("no password func: %v, want %v", err, signature.ErrPasswordNeeded)
			}
		}
	})
}

// TestVerifyReadsABoundedNumberOfSignatures: a package with more signature
// referrers than MaxSignatures is checked against the first ones only.
func TestVerifyReadsABoundedNumberOfSignatures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := places[2].open(t)
	desc := packExamples(t, target, "")
	_, verifier := signingKey(t, "")
	for i := range signature.MaxSignatures + 1 {
		cfg := []byte(fmt.Sprintf(`{"signer":"junk %d"}`, i))
		attach(t, target, desc, signature.ArtifactType, content.NewDescriptorFromBytes(signature.MediaTypeConfig, cfg), cfg, signature.MediaTypePayload, []byte("not a bundle"))
	}
	_, err := signature.Verify(ctx, target, desc, signature.VerifyOptions{Verifiers: []signature.Verifier{verifier}})
	wantReason(t, err, signature.ReasonBadSignature)
	var verr *signature.Error
	errors.As(err, &verr)
	if len(verr.Details) != signature.MaxSignatures+1 || !strings.Contains(err.Error(), "only the first 64 signatures") {
		t.Fatalf("%d details: %v", len(verr.Details), err)
	}
}

// TestWriteKeyPairNamesItsKey: the key ID WriteKeyPair reports is the one
// of the private key it wrote, which the password decrypts (the shared
// Ed25519 key was written so and loaded back); an existing pair is
// refused and left as it was.
func TestWriteKeyPairNamesItsKey(t *testing.T) {
	t.Parallel()
	k := sharedSigningKey(t, signature.AlgorithmEd25519)
	if k.signer.ID() != k.files.KeyID || k.verifier.ID() != k.files.KeyID {
		t.Fatalf("key ID %s; the private key is %s, the public key %s", k.files.KeyID, k.signer.ID(), k.verifier.ID())
	}
	if info, err := os.Stat(k.files.PrivateKey); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("private key: %v %v, want mode 0600", info, err)
	}
	before, err := os.ReadFile(k.files.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	prefix := strings.TrimSuffix(k.files.PrivateKey, ".key")
	if _, err := signature.WriteKeyPair(prefix, "", []byte("pw"), false); !errors.Is(err, os.ErrExist) {
		t.Fatalf("over an existing pair: %v", err)
	}
	if after, _ := os.ReadFile(k.files.PrivateKey); !bytes.Equal(after, before) {
		t.Fatal("the refused write changed the private key")
	}
}

// password is a password func for LoadPrivateKey that returns pw.
func password(pw string) func() ([]byte, error) {
	return func() ([]byte, error) { return []byte(pw), nil }
}

// An encrypted PKCS#8 key, as openssl genpkey -aes256 writes it, or a
// legacy encrypted PEM block, as openssl ec -aes256 writes it, loads
// with its password, and a wrong password is said to be wrong, as it is
// of a stax or cosign key, where the command then names the variable
// that sets it.
func TestLoadPrivateKeyEncryptedByOpenSSL(t *testing.T) {
	t.Parallel()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := pkcs8.MarshalPrivateKey(priv, []byte("right"), nil)
	if err != nil {
		t.Fatal(err)
	}
	key := pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: der})
	s, err := signature.LoadPrivateKey(key, password("right"))
	if err != nil {
		t.Fatalf("the right password: %v", err)
	}
	if !s.Public().(*ecdsa.PublicKey).Equal(&priv.PublicKey) {
		t.Fatal("loaded another key")
	}
	if _, err := signature.LoadPrivateKey(key, password("wrong")); !errors.Is(err, signature.ErrWrongPassword) {
		t.Fatalf("a wrong password: %v, want ErrWrongPassword", err)
	}

	// A legacy encrypted PEM block (openssl ec -aes256) likewise.
	legacy := pem.EncodeToMemory(legacyPEM(t, priv, "right"))
	if _, err := signature.LoadPrivateKey(legacy, password("right")); err != nil {
		t.Fatalf("a legacy PEM block, the right password: %v", err)
	}
	if _, err := signature.LoadPrivateKey(legacy, password("wrong")); !errors.Is(err, signature.ErrWrongPassword) {
		t.Fatalf("a legacy PEM block, a wrong password: %v, want ErrWrongPassword", err)
	}
}

// A wrong password that the legacy encrypted PEM format cannot tell from
// the right one, one in about 255 (the padding of what it decrypts to
// checks out, and the key in it does not parse), is said to be wrong
// too, not that the key cannot be read.
func TestLoadPrivateKeyLegacyPEMWrongPasswordWithGoodPadding(t *testing.T) {
	t.Parallel()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block := legacyPEM(t, priv, "right")
	wrong := ""
	for i := 0; wrong == "" && i < 1<<16; i++ {
		//lint:ignore SA1019 as above
		if _, err := x509.DecryptPEMBlock(block, fmt.Appendf(nil, "wrong%d", i)); err == nil {
			wrong = fmt.Sprintf("wrong%d", i)
		}
	}
	if wrong == "" {
		t.Fatal("no wrong password whose padding checks out in 65,536")
	}
	if _, err := signature.LoadPrivateKey(pem.EncodeToMemory(block), password(wrong)); !errors.Is(err, signature.ErrWrongPassword) {
		t.Fatalf("the wrong password %q: %v, want ErrWrongPassword", wrong, err)
	}
}

// legacyPEM is priv as a legacy encrypted PEM block, as openssl ec
// -aes256 writes it, sealed with password.
func legacyPEM(t *testing.T, priv *ecdsa.PrivateKey, password string) *pem.Block {
	t.Helper()
	sec1, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 the legacy format is what a user may hold, and what is read
	block, err := x509.EncryptPEMBlock(rand.Reader, "EC PRIVATE KEY", sec1, []byte(password), x509.PEMCipherAES256)
	if err != nil {
		t.Fatal(err)
	}
	return block
}
