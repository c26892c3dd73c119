package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/secure-systems-lab/go-securesystemslib/encrypted"
	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/workflow"
)

// keyPair is one key pair newKeyPair or newEncryptedKeyPair made, for
// every test that asks for a key of that name.
type keyPair struct {
	once      sync.Once
	priv, pub string
	err       error
}

// keyPairs are the key pairs of newKeyPair and newEncryptedKeyPair by
// file prefix, one per prefix in a run: tests only read keys.
var keyPairs sync.Map

// testKeyPassword is the password of the tests' private keys.
const testKeyPassword = "correct horse"

// newKeyPair returns the private and public key of the key pair named
// prefix, and sets $STAX_PASSWORD in the test's environment, as a user
// who signs does; another name is another key.
//
// The private key is an unencrypted PKCS#8 key, which stax reads as it
// reads one stax key generate wrote: the tests that use it check what is
// signed and verified, which does not depend on how the key file is
// sealed, and each stax sign with an encrypted key spends scrypt's 32 MiB
// and tens of milliseconds of CPU decrypting it (a tenth of cmd/stax's
// tests' CPU, with two dozen tests signing). Decrypting is checked by
// TestSignInLocalStore and TestPushAndCopyGitSourceToRegistry, with keys
// stax key generate sealed, by TestPushSignSignsWhatItPushes (a wrong
// password), with newEncryptedKeyPair's, and by pkg/signature's
// TestCosignKeyLoads.
func newKeyPair(t *testing.T, prefix string) (string, string) {
	t.Helper()
	return cachedKeyPair(t, filepath.Join("plain", prefix), func(key *ecdsa.PrivateKey) ([]byte, error) {
		return cryptoutils.MarshalPrivateKeyToPEM(key)
	})
}

// newEncryptedKeyPair is newKeyPair with the private key in the format
// stax key generate writes, encrypted with testKeyPassword and scrypt's
// legacy parameters, which older cosign releases wrote and stax reads:
// every stax sign with it decrypts in half the time of the standard ones.
func newEncryptedKeyPair(t *testing.T, prefix string) (string, string) {
	t.Helper()
	return cachedKeyPair(t, filepath.Join("encrypted", prefix), func(key *ecdsa.PrivateKey) ([]byte, error) {
		der, err := cryptoutils.MarshalPrivateKeyToDER(key)
		if err != nil {
			return nil, err
		}
		sealed, err := encrypted.EncryptWithCustomKDFParameters(der, []byte(testKeyPassword), encrypted.Legacy)
		if err != nil {
			return nil, err
		}
		return cryptoutils.PEMEncode(cryptoutils.EncryptedSigstorePrivateKeyPEMType, sealed), nil
	})
}

// cachedKeyPair is the key pair written under name in the run's sandbox,
// its private key encoded by encode, made by the first test that asks.
func cachedKeyPair(t *testing.T, name string, encode func(*ecdsa.PrivateKey) ([]byte, error)) (string, string) {
	t.Helper()
	setenv(t, "STAX_PASSWORD", testKeyPassword)
	v, _ := keyPairs.LoadOrStore(name, &keyPair{})
	kp := v.(*keyPair)
	kp.once.Do(func() {
		kp.priv, kp.pub, kp.err = writeKeyPair(filepath.Join(testSandbox, "keys", name), encode)
	})
	if kp.err != nil {
		t.Fatalf("key pair %s: %v", name, kp.err)
	}
	return kp.priv, kp.pub
}

// writeKeyPair writes prefix.key, a new ECDSA P-256 private key encoded
// by encode, and prefix.pub.
func writeKeyPair(prefix string, encode func(*ecdsa.PrivateKey) ([]byte, error)) (string, string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	priv, err := encode(key)
	if err != nil {
		return "", "", err
	}
	pub, err := cryptoutils.MarshalPublicKeyToPEM(key.Public())
	if err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(filepath.Dir(prefix), 0o700); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(prefix+".key", priv, 0o600); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(prefix+".pub", pub, 0o644); err != nil {
		return "", "", err
	}
	return prefix + ".key", prefix + ".pub", nil
}

// generateKeyPair writes a key pair with stax key generate, with the
// password of the test's $STAX_PASSWORD, and returns the paths of its
// private and public keys.
func generateKeyPair(t *testing.T, prefix string) (string, string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(prefix), 0o700); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "key", "generate", "--output-prefix", prefix); r.Code != 0 {
		t.Fatalf("key generate: %d %s", r.Code, r.Stderr)
	}
	info, err := os.Stat(prefix + ".key")
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("private key mode %v, want 0600", info.Mode().Perm())
	}
	return prefix + ".key", prefix + ".pub"
}

func TestKeyGenerateRefusesToOverwrite(t *testing.T) {
	t.Parallel()
	useHome(t)
	setenv(t, "STAX_PASSWORD", "correct horse")
	priv, _ := generateKeyPair(t, filepath.Join(t.TempDir(), "k"))
	before, _ := os.ReadFile(priv)
	r := runStax(t, "key", "generate", "--output-prefix", strings.TrimSuffix(priv, ".key"))
	if r.Code != 2 || !strings.Contains(r.Stderr, "--force") {
		t.Fatalf("overwrite: %d %s", r.Code, r.Stderr)
	}
	if after, _ := os.ReadFile(priv); string(after) != string(before) {
		t.Fatal("the private key was overwritten")
	}
	unsetenv(t, "STAX_PASSWORD")
	if r := runStax(t, "key", "generate", "--output-prefix", filepath.Join(t.TempDir(), "x")); r.Code != 1 || !strings.Contains(r.Stderr, "STAX_PASSWORD") {
		t.Fatalf("no password: %d %s", r.Code, r.Stderr)
	}
}

// TestSignThenVerifyOnRegistries signs on distribution v3 (tag-schema
// referrers) and go-containerregistry's registry (referrers API), verifies,
// then copies registry to registry to layout and verifies each copy.
func TestSignThenVerifyOnRegistries(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		opts []registrytest.Option
	}{{"distribution", nil}, {"referrers-api", []registrytest.Option{registrytest.WithReferrersAPI()}}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			useHome(t)
			priv, pub := newKeyPair(t, "acme")
			_, otherPub := newKeyPair(t, "other")
			reg := registrytest.New(t, c.opts...)
			mirror := registrytest.New(t, c.opts...)
			ref := reg.Host + "/acme/skills:1.0.0"

			if r := runStax(t, "push", examples, ref); r.Code != 0 {
				t.Fatalf("push: %s", r.Stderr)
			}
			r := runStax(t, "verify", ref, "--key", pub)
			if r.Code != 6 || !strings.Contains(r.Stderr, "no signature") {
				t.Fatalf("unsigned: %d %s", r.Code, r.Stderr)
			}
			if r := runStax(t, "sign", ref, "--key", priv); r.Code != 0 {
				t.Fatalf("sign: %s", r.Stderr)
			}
			r = runStax(t, "verify", ref, "--key", pub)
			if r.Code != 0 || !strings.Contains(r.Stdout, "verified, signed by sha256:") {
				t.Fatalf("verify: %d %s %s", r.Code, r.Stdout, r.Stderr)
			}
			r = runStax(t, "verify", ref, "--key", otherPub)
			if r.Code != 6 || !strings.Contains(r.Stderr, "wrong key") {
				t.Fatalf("wrong key: %d %s", r.Code, r.Stderr)
			}

			copied := mirror.Host + "/mirror/skills:1.0.0"
			layout := "oci:" + filepath.Join(t.TempDir(), "layout") + ":1.0.0"
			for _, hop := range [][2]string{{ref, copied}, {copied, layout}} {
				if r := runStax(t, "copy", hop[0], hop[1]); r.Code != 0 {
					t.Fatalf("copy %s: %s", hop[1], r.Stderr)
				}
				var res workflow.VerifyResult
				r := runStax(t, "--output", "json", "verify", hop[1], "--key", otherPub, "--key", pub)
				decodeJSON(t, r.Stdout, &res)
				if r.Code != 0 || !res.Verified || res.Format != "stax" {
					t.Fatalf("verify %s: %d %+v %s", hop[1], r.Code, res, r.Stderr)
				}
			}
		})
	}
}

func TestPushSignSignsWhatItPushes(t *testing.T) {
	t.Parallel()
	useHome(t)
	priv, pub := newEncryptedKeyPair(t, "acme")
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	if r := runStax(t, "push", "--sign", "--key", priv, examples, ref); r.Code != 0 {
		t.Fatalf("push --sign: %s", r.Stderr)
	}
	if r := runStax(t, "verify", ref, "--key", pub); r.Code != 0 {
		t.Fatalf("verify: %d %s", r.Code, r.Stderr)
	}
	// A wrong password pushes nothing.
	setenv(t, "STAX_PASSWORD", "wrong")
	other := reg.Host + "/acme/other:1.0.0"
	if r := runStax(t, "push", "--sign", "--key", priv, examples, other); r.Code != 1 {
		t.Fatalf("wrong password: %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "inspect", "--remote", other); r.Code == 0 {
		t.Fatal("a push whose key did not load pushed the package")
	}
}

// TestSignInLocalStore signs with a key stax key generate made, encrypted
// with the standard scrypt parameters, and verifies with its public key.
func TestSignInLocalStore(t *testing.T) {
	t.Parallel()
	useHome(t)
	setenv(t, "STAX_PASSWORD", testKeyPassword)
	priv, pub := generateKeyPair(t, filepath.Join(t.TempDir(), "k"))
	if r := runStax(t, "pack", examples, "-t", "acme/skills:1.0.0"); r.Code != 0 {
		t.Fatalf("pack: %s", r.Stderr)
	}
	if r := runStax(t, "sign", "--local", "acme/skills:1.0.0", "--key", priv); r.Code != 0 {
		t.Fatalf("sign: %s", r.Stderr)
	}
	if r := runStax(t, "verify", "--local", "acme/skills:1.0.0", "--key", pub); r.Code != 0 {
		t.Fatalf("verify: %d %s", r.Code, r.Stderr)
	}
}

// TestVerifyMissingLayoutCreatesNothing checks that verify and sign of a
// package in an OCI layout that does not exist say so, as inspect and
// pull do, and leave no empty layout behind.
func TestVerifyMissingLayoutCreatesNothing(t *testing.T) {
	t.Parallel()
	useHome(t)
	priv, pub := newKeyPair(t, "acme")
	layout := filepath.Join(t.TempDir(), "absent")
	for _, args := range [][]string{
		{"verify", "oci:" + layout + ":1.0.0", "--key", pub},
		{"sign", "oci:" + layout + ":1.0.0", "--key", priv},
	} {
		r := runStax(t, args...)
		if r.Code != 2 || !strings.Contains(r.Stderr, "no OCI layout at "+layout) {
			t.Errorf("%s: exit %d, %s", args[0], r.Code, r.Stderr)
		}
		if _, err := os.Stat(layout); !os.IsNotExist(err) {
			t.Fatalf("%s created %s (%v)", args[0], layout, err)
		}
	}
}

// TestSignWithAnUnencryptedKeyAsksNoPassword checks that stax sign reads
// a private key that is not encrypted without a password: neither
// $STAX_PASSWORD nor a terminal is needed for it, as CI signing with a
// key from its secret store has neither.
func TestSignWithAnUnencryptedKeyAsksNoPassword(t *testing.T) {
	t.Parallel()
	useHome(t)
	priv, pub := newKeyPair(t, "acme")
	unsetenv(t, "STAX_PASSWORD")
	if r := runStax(t, "pack", examples, "-t", "acme/skills:1.0.0"); r.Code != 0 {
		t.Fatalf("pack: %s", r.Stderr)
	}
	if r := runStax(t, "sign", "--local", "acme/skills:1.0.0", "--key", priv); r.Code != 0 {
		t.Fatalf("sign with an unencrypted key and no password: exit %d, %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "verify", "--local", "acme/skills:1.0.0", "--key", pub); r.Code != 0 {
		t.Fatalf("verify: %d %s", r.Code, r.Stderr)
	}
	// An encrypted key still needs its password, and says where to give it.
	sealed, _ := newEncryptedKeyPair(t, "acme")
	unsetenv(t, "STAX_PASSWORD")
	if r := runStax(t, "sign", "--local", "acme/skills:1.0.0", "--key", sealed); r.Code != 1 || !strings.Contains(r.Stderr, "set STAX_PASSWORD") {
		t.Fatalf("sign with an encrypted key and no password: exit %d, %s", r.Code, r.Stderr)
	}
}
