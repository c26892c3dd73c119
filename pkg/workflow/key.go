package workflow

import (
	"errors"
	"fmt"
	"os"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/signature"
)

// GenerateKeyOptions say where GenerateKey writes a key pair and how.
type GenerateKeyOptions struct {
	// Prefix names the files: Prefix.key and Prefix.pub. Required.
	Prefix string
	// Algorithm is signature.AlgorithmECDSAP256 or AlgorithmEd25519;
	// empty is ECDSA P-256.
	Algorithm string
	// Password encrypts the private key. Required: the caller reads it
	// from $STAX_PASSWORD or asks for it.
	Password []byte
	// Force replaces an existing key pair; false refuses to.
	Force bool
}

// KeyResult names the files GenerateKey wrote and the key's ID.
type KeyResult struct {
	PrivateKey string `json:"privateKey"`
	PublicKey  string `json:"publicKey"`
	KeyID      string `json:"keyId"`
}

// GenerateKey writes a key pair for Sign and Verify, in the format cosign
// uses: the private key encrypted with the password (mode 0600) and the
// public key.
func GenerateKey(opts GenerateKeyOptions) (*KeyResult, error) {
	res, err := signature.WriteKeyPair(opts.Prefix, opts.Algorithm, opts.Password, opts.Force)
	if errors.Is(err, os.ErrExist) {
		return nil, errdefs.MarkLocal(fmt.Errorf("%w: pass --force to replace the key pair, or choose another --output-prefix", err))
	}
	if err != nil {
		return nil, errdefs.Invalid(err)
	}
	return &KeyResult{PrivateKey: res.PrivateKey, PublicKey: res.PublicKey, KeyID: res.KeyID}, nil
}
