package workflow_test

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/workflow"
)

// newSigner makes a key pair in dir: the signer of its private key, and
// the file of its public key.
func newSigner(t *testing.T, dir, name string) (*signature.KeySigner, string) {
	t.Helper()
	key := sharedKey(name)
	if key.err != nil {
		t.Fatal(key.err)
	}
	pub := filepath.Join(dir, name+".pub")
	if err := os.WriteFile(pub, key.public, 0o644); err != nil {
		t.Fatal(err)
	}
	return key.signer, pub
}

// testKey is a key pair of the tests, made once per name; the tests
// need only that two names differ. The private key is unencrypted, as
// newKey's: workflow takes a signer, not a key file, and reading an
// encrypted one costs a scrypt run of 64 MiB, a tenth of the package's
// tests' CPU (stax's own tests read them).
type testKey struct {
	once   sync.Once
	signer *signature.KeySigner
	public []byte
	err    error
}

var testKeys sync.Map // name → *testKey

func sharedKey(name string) *testKey {
	v, _ := testKeys.LoadOrStore(name, &testKey{})
	key := v.(*testKey)
	key.once.Do(func() {
		key.signer, key.public, key.err = newECDSAKey()
	})
	return key
}

// newECDSAKey is the signer of a new unencrypted ECDSA P-256 key, and
// its public key in PEM.
func newECDSAKey() (*signature.KeySigner, []byte, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	return plainSigner(priv)
}

// plainSigner is the signer of priv, read from the unencrypted PKCS#8
// PEM a key file would hold, and its public key in PEM.
func plainSigner(priv crypto.Signer) (*signature.KeySigner, []byte, error) {
	privDER, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, nil, err
	}
	signer, err := signature.LoadPrivateKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER}), nil)
	if err != nil {
		return nil, nil, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(priv.Public())
	if err != nil {
		return nil, nil, err
	}
	return signer, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), nil
}

// newEnvAt is an environment whose stax home is home: its store and its
// trust policy are there, and nothing of the user's is read.
func newEnvAt(t *testing.T, home string, warnings *bytes.Buffer) *workflow.Env {
	env := newEnv(t, warnings)
	env.Opener.StoreDir = filepath.Join(home, "store")
	env.Getenv = func(key string) string {
		if key == store.EnvHome {
			return home
		}
		return ""
	}
	return env
}

// layout is "oci:" and a directory, not made yet, for an OCI layout.
func layout(t *testing.T) string {
	return "oci:" + filepath.Join(t.TempDir(), "layout")
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
