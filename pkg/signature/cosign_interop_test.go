package signature_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/signature"
)

// cosignEnv names the cosign binary TestCosignInterop runs; test/e2e/cosign.sh
// sets it to the pinned cosign it builds.
const cosignEnv = "STAX_TEST_COSIGN"

// TestCosignInterop runs cosign itself against the two in-process
// registries, one with the referrers API and one without (test/e2e/cosign.sh
// covers distribution 2.8): cosign verify and verify-attestation accept
// what Sign attaches, and Verify accepts what cosign sign attaches; a key
// that signed nothing fails in both. cosign works offline here: keys, no
// transparency log, and the test binary's proxy refuses whatever is not on
// loopback.
func TestCosignInterop(t *testing.T) {
	cosign := os.Getenv(cosignEnv)
	if cosign == "" {
		t.Skipf("%s names no cosign binary", cosignEnv)
	}
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	signer, verifier := signingKey(t, "")
	staxPub := writePublicKey(t, dir, "stax.pub", signer.Public())
	stranger, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	strangerPub := writePublicKey(t, dir, "stranger.pub", stranger.Public())
	cosignPriv, cosignPubPEM, err := signature.GenerateKey("", []byte("cosign-pw"))
	if err != nil {
		t.Fatal(err)
	}
	cosignKey := filepath.Join(dir, "cosign.key")
	if err := os.WriteFile(cosignKey, cosignPriv, 0o600); err != nil {
		t.Fatal(err)
	}
	cosignVerifier, err := signature.LoadPublicKey(cosignPubPEM)
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, args ...string) error {
		t.Helper()
		cmd := exec.CommandContext(ctx, cosign, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.Env = append(os.Environ(), "COSIGN_PASSWORD=cosign-pw", "TUF_ROOT="+filepath.Join(dir, "sigstore"))
		if err := cmd.Run(); err != nil {
			t.Logf("cosign %v: %v\n%s", args, err, out.Bytes())
			return err
		}
		return nil
	}
	const offline = "--insecure-ignore-tlog=true"
	for _, reg := range []struct {
		name string
		opts []registrytest.Option
	}{{"distribution", nil}, {"referrers-api", []registrytest.Option{registrytest.WithReferrersAPI()}}} {
		t.Run(reg.name, func(t *testing.T) {
			t.Parallel()
			r := registrytest.New(t, reg.opts...)
			target := openRemote(t, r)
			desc := packExamples(t, target, "")
			ref := r.Host + "/acme/skills@" + desc.Digest.String()
			if _, err := signature.Sign(ctx, target, desc, signer, signature.SignOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := run(t, "verify", "--key", staxPub, offline, "--allow-http-registry", ref); err != nil {
				t.Error("cosign verify refuses stax's signature")
			}
			if err := run(t, "verify-attestation", "--key", staxPub, "--type", signature.PredicateType, offline, "--allow-http-registry", ref); err != nil {
				t.Error("cosign verify-attestation refuses stax's statement")
			}
			if run(t, "verify", "--key", strangerPub, offline, "--allow-http-registry", ref) == nil {
				t.Error("cosign verify accepts a key that signed nothing")
			}

			other := packExamples(t, target, "2.0.0")
			otherRef := r.Host + "/acme/skills@" + other.Digest.String()
			if err := run(t, "sign", "--key", cosignKey, "--use-signing-config=false", "--tlog-upload=false", "--allow-http-registry", "--yes", otherRef); err != nil {
				t.Fatal("cosign sign")
			}
			// A new client, as a later stax command has: oras-go remembers
			// within one whether the registry answered a push with the
			// referrers API's OCI-Subject header, which go-containerregistry's
			// does not, and reads the tag schema alone from then on.
			target = openRemote(t, r)
			got, err := signature.Verify(ctx, target, other, signature.VerifyOptions{Verifiers: []signature.Verifier{verifier, cosignVerifier}})
			if err != nil {
				t.Fatalf("Verify refuses cosign's signature: %v", err)
			}
			if got.Signer != cosignVerifier.ID() || got.Format != signature.FormatSigstore {
				t.Fatalf("verified %+v", got)
			}
			_, err = signature.Verify(ctx, target, other, signature.VerifyOptions{Verifiers: []signature.Verifier{verifier}})
			wantReason(t, err, signature.ReasonWrongKey)
		})
	}
}

func writePublicKey(t *testing.T, dir, name string, pub any) string {
	t.Helper()
	data, err := cryptoutils.MarshalPublicKeyToPEM(pub)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
