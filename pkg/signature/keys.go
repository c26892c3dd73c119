// Package signature signs stax packages and verifies their signatures.
//
// A signature is an OCI referrer of the package manifest attached as
// cosign v3 attaches one: an artifact of type
// application/vnd.dev.sigstore.bundle.v0.3+json whose one layer is a
// Sigstore bundle holding a DSSE envelope over an in-toto statement. The
// statement's subject is the manifest digest; its predicate names the
// package and every file of every skill by digest. Signatures cosign
// attaches, and those of stax's older format, verify too.
//
// stax signs with keys. It verifies with keys, and keyless signatures (a
// Fulcio certificate and a transparency log entry, as cosign makes in CI)
// offline against a Sigstore trusted root: see KeylessVerifier.
package signature

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	sigsig "github.com/sigstore/sigstore/pkg/signature"
)

// Signer makes the Sigstore bundle of a DSSE payload.
type Signer interface {
	// ID names the signer in the signature config and in messages.
	ID() string
	// Algorithm is the signing algorithm, as the signature config names it.
	Algorithm() string
	// SignDSSE signs payload in a DSSE envelope and returns the bundle.
	SignDSSE(ctx context.Context, payloadType string, payload []byte) (*protobundle.Bundle, error)
}

// Verifier checks the signature of a Sigstore bundle.
type Verifier interface {
	// ID names the key or identity a bundle is verified against.
	ID() string
	// Verify checks b's signature and returns what it verified.
	Verify(b *bundle.Bundle) (*verify.VerificationResult, error)
	// Claimed reports whether b says it was made by this verifier's key.
	// The claim is not authenticated; it only tells a signature by an
	// untrusted key from a broken signature by a trusted one.
	Claimed(b *bundle.Bundle) bool
}

// Key algorithms of GenerateKey.
const (
	AlgorithmECDSAP256 = "ecdsa-p256"
	AlgorithmEd25519   = "ed25519"
)

// ErrWrongPassword is returned when a private key cannot be decrypted.
var ErrWrongPassword = errors.New("the password does not decrypt the private key")

// ErrPasswordNeeded is returned when a private key is encrypted and
// LoadPrivateKey was given no password func.
var ErrPasswordNeeded = errors.New("the private key is encrypted, and no password was given for it")

// GenerateKey makes a key pair of the algorithm named (ECDSA P-256 when
// empty) and returns both keys as PEM, the private one encrypted with
// password in the format cosign uses, so either tool reads the other's keys.
func GenerateKey(algorithm string, password []byte) (private, public []byte, err error) {
	priv, err := newPrivateKey(algorithm)
	if err != nil {
		return nil, nil, err
	}
	return encodeKeyPair(priv, password)
}

// newPrivateKey makes a private key of the algorithm named (ECDSA P-256
// when empty).
func newPrivateKey(algorithm string) (crypto.Signer, error) {
	switch algorithm {
	case "", AlgorithmECDSAP256:
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case AlgorithmEd25519:
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		return priv, err
	default:
		return nil, fmt.Errorf("unknown key algorithm %q: use %s or %s", algorithm, AlgorithmECDSAP256, AlgorithmEd25519)
	}
}

// encodeKeyPair returns priv encrypted with password and its public key,
// both as PEM.
func encodeKeyPair(priv crypto.Signer, password []byte) (private, public []byte, err error) {
	der, err := cryptoutils.MarshalPrivateKeyToEncryptedDER(priv, cryptoutils.StaticPasswordFunc(password))
	if err != nil {
		return nil, nil, fmt.Errorf("encrypt private key: %w", err)
	}
	public, err = cryptoutils.MarshalPublicKeyToPEM(priv.Public())
	if err != nil {
		return nil, nil, err
	}
	return cryptoutils.PEMEncode(cryptoutils.EncryptedSigstorePrivateKeyPEMType, der), public, nil
}

// KeyID is the fingerprint that names a public key: "sha256:" and the hex
// SHA-256 of its PKIX encoding.
func KeyID(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// hint is how Sigstore bundles name a public key: the base64 SHA-256 of
// its PKIX encoding.
func hint(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return base64.StdEncoding.EncodeToString(sum[:]), nil
}

// KeySigner signs with a private key.
type KeySigner struct {
	priv crypto.Signer
	alg  sigsig.AlgorithmDetails
	id   string
	hint string
}

// LoadPrivateKey reads a PEM private key: one stax or cosign generated,
// encrypted with the password that password returns, or an unencrypted
// PKCS#8, EC or RSA key. password is called only for an encrypted key,
// so that reading one that is not asks for nothing; nil refuses an
// encrypted key with ErrPasswordNeeded.
func LoadPrivateKey(pemBytes []byte, password func() ([]byte, error)) (*KeySigner, error) {
	// A nil PassFunc would have cryptoutils read a sealed stax or cosign
	// key as if it were not sealed, and fail on its ASN.1.
	var passwordErr error
	pf := func(bool) ([]byte, error) { return nil, ErrPasswordNeeded }
	if password != nil {
		pf = func(bool) ([]byte, error) {
			pw, err := password()
			passwordErr = err
			return pw, err
		}
	}
	key, err := cryptoutils.UnmarshalPEMToPrivateKey(pemBytes, pf)
	if err != nil {
		// Only a legacy encrypted PEM block's error has a value to test:
		// sigstore says "decryption failed" of its own and cosign's
		// format, pkcs8 "incorrect password" of an encrypted PKCS#8 key.
		if msg := err.Error(); errors.Is(err, x509.IncorrectPasswordError) || strings.Contains(msg, "decryption failed") || strings.Contains(msg, "incorrect password") {
			return nil, ErrWrongPassword
		}
		// The legacy format checks a password by the padding alone, which
		// one wrong password in about 255 passes: the key it then yields
		// does not parse.
		block, _ := pem.Decode(pemBytes)
		//lint:ignore SA1019 the legacy format is what a user may hold, and what is read
		if password != nil && passwordErr == nil && block != nil && x509.IsEncryptedPEMBlock(block) {
			return nil, ErrWrongPassword
		}
		return nil, fmt.Errorf("read private key: %w", err)
	}
	priv, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("read private key: a %T cannot sign", key)
	}
	alg, err := sigsig.GetDefaultAlgorithmDetails(priv.Public())
	if err != nil {
		return nil, fmt.Errorf("read private key: %w", err)
	}
	s := &KeySigner{priv: priv, alg: alg}
	if s.id, err = KeyID(priv.Public()); err != nil {
		return nil, err
	}
	if s.hint, err = hint(priv.Public()); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *KeySigner) ID() string        { return s.id }
func (s *KeySigner) Algorithm() string { return algorithmName(s.alg) }

// Public is the signer's public key.
func (s *KeySigner) Public() crypto.PublicKey { return s.priv.Public() }

// SignDSSE signs payload with the key; the bundle names the key by its
// hint and carries no certificate, log entry or timestamp.
func (s *KeySigner) SignDSSE(ctx context.Context, payloadType string, payload []byte) (*protobundle.Bundle, error) {
	return sign.Bundle(&sign.DSSEData{Data: payload, PayloadType: payloadType}, keypair{s}, sign.BundleOptions{Context: ctx})
}

func algorithmName(a sigsig.AlgorithmDetails) string {
	name := a.GetSignatureAlgorithm().String()
	return strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(name, "PKIX_"), "PUBLIC_KEY_DETAILS_"))
}

// keypair adapts KeySigner to sigstore-go's signing interface.
type keypair struct{ s *KeySigner }

func (k keypair) GetHashAlgorithm() protocommon.HashAlgorithm { return k.s.alg.GetProtoHashType() }
func (k keypair) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	return k.s.alg.GetSignatureAlgorithm()
}
func (k keypair) GetHint() []byte                { return []byte(k.s.hint) }
func (k keypair) GetPublicKey() crypto.PublicKey { return k.s.priv.Public() }
func (k keypair) GetKeyAlgorithm() string {
	switch k.s.alg.GetKeyType() {
	case sigsig.ECDSA:
		return "ECDSA"
	case sigsig.RSA:
		return "RSA"
	case sigsig.ED25519:
		return "ED25519"
	}
	return ""
}
func (k keypair) GetPublicKeyPem() (string, error) {
	pemBytes, err := cryptoutils.MarshalPublicKeyToPEM(k.s.priv.Public())
	return string(pemBytes), err
}

// SignData signs data as sigstore-go expects: the digest of data for
// algorithms that sign a digest, data itself for pure Ed25519.
func (k keypair) SignData(_ context.Context, data []byte) (sig, signed []byte, err error) {
	hf := k.s.alg.GetHashType()
	signed = data
	if hf != crypto.Hash(0) {
		h := hf.New()
		h.Write(data)
		signed = h.Sum(nil)
	}
	sig, err = k.s.priv.Sign(rand.Reader, signed, hf)
	return sig, signed, err
}

// KeyVerifier verifies bundles signed with one public key.
type KeyVerifier struct {
	id, hint string
	verifier *verify.Verifier
	// pub checks signatures made outside a bundle, such as cosign's
	// tag-based ones (see VerifyMessage).
	pub crypto.PublicKey
}

// MaxKeyFileSize bounds a key file read: a PEM key, encrypted or not, is
// a few kilobytes.
const MaxKeyFileSize = 64 << 10

// LoadPublicKey reads a PEM public key, such as one stax or cosign wrote.
func LoadPublicKey(pemBytes []byte) (*KeyVerifier, error) {
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(pemBytes)
	if err != nil {
		return nil, fmt.Errorf("read public key: %w", err)
	}
	return NewKeyVerifier(pub)
}

// NewKeyVerifier verifies with pub.
func NewKeyVerifier(pub crypto.PublicKey) (*KeyVerifier, error) {
	sv, err := sigsig.LoadDefaultVerifier(pub)
	if err != nil {
		return nil, fmt.Errorf("read public key: %w", err)
	}
	// A key has no validity window of its own here: trusting it is the
	// policy's decision, and revoking it means removing it from the policy.
	key := root.NewExpiringKey(sv, time.Time{}, time.Time{})
	material := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) { return key, nil })
	// Key signatures carry no timestamp from a log or authority to check.
	v, err := verify.NewVerifier(material, verify.WithNoObserverTimestamps())
	if err != nil {
		return nil, err
	}
	kv := &KeyVerifier{verifier: v, pub: pub}
	if kv.id, err = KeyID(pub); err != nil {
		return nil, err
	}
	if kv.hint, err = hint(pub); err != nil {
		return nil, err
	}
	return kv, nil
}

func (v *KeyVerifier) ID() string { return v.id }

func (v *KeyVerifier) Verify(b *bundle.Bundle) (*verify.VerificationResult, error) {
	return v.verifier.Verify(b, verify.NewPolicy(verify.WithoutArtifactUnsafe(), verify.WithKey()))
}

func (v *KeyVerifier) Claimed(b *bundle.Bundle) bool {
	vm := b.GetVerificationMaterial()
	if vm == nil || vm.GetPublicKey() == nil {
		return false
	}
	return vm.GetPublicKey().GetHint() == v.hint
}

// KeyPair is a key pair written to files.
type KeyPair struct {
	PrivateKey, PublicKey string
	KeyID                 string
}

// WriteKeyPair generates a key pair and writes prefix.key (mode 0600) and
// prefix.pub. Existing files are an error matching os.ErrExist unless
// overwrite is set.
func WriteKeyPair(prefix, algorithm string, password []byte, overwrite bool) (*KeyPair, error) {
	key, err := newPrivateKey(algorithm)
	if err != nil {
		return nil, err
	}
	kp := &KeyPair{PrivateKey: prefix + ".key", PublicKey: prefix + ".pub"}
	if kp.KeyID, err = KeyID(key.Public()); err != nil {
		return nil, err
	}
	// Neither file is written when either exists, so a refusal leaves no
	// half pair behind. The check comes before the key is encrypted, whose
	// scrypt run would take most of a second for nothing.
	for _, path := range []string{kp.PrivateKey, kp.PublicKey} {
		if _, err := os.Lstat(path); err == nil && !overwrite {
			return nil, fmt.Errorf("%s: %w", path, os.ErrExist)
		}
	}
	priv, pub, err := encodeKeyPair(key, password)
	if err != nil {
		return nil, err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if overwrite {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	files := []struct {
		path string
		data []byte
		mode os.FileMode
	}{{kp.PrivateKey, priv, 0o600}, {kp.PublicKey, pub, 0o644}}
	for _, f := range files {
		file, err := os.OpenFile(f.path, flags, f.mode)
		if err != nil {
			return nil, err
		}
		// An existing file keeps its mode; a private key must not stay
		// readable by others.
		if err := file.Chmod(f.mode); err != nil {
			file.Close()
			return nil, err
		}
		if _, err := file.Write(f.data); err != nil {
			file.Close()
			return nil, err
		}
		if err := file.Close(); err != nil {
			return nil, err
		}
	}
	return kp, nil
}
