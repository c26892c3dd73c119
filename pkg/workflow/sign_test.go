package workflow_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/workflow"
)

func TestSignAttachesASignatureThatVerifies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	signer, pub := newSigner(t, root, "release")
	_, otherPub := newSigner(t, root, "other")
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)
	ref := layout(t) + ":1.0.0"
	packed, err := workflow.Pack(ctx, env, workflow.PackOptions{Dir: writePackage(t, root, "team", "review"), Tag: ref})
	if err != nil {
		t.Fatal(err)
	}

	res, err := workflow.Verify(ctx, env, workflow.VerifyOptions{Ref: ref, Keys: []string{pub}})
	if errdefs.Of(err) != errdefs.DataLoss || res == nil || res.Verified || res.Reason != string(signature.ReasonNoSignature) {
		t.Fatalf("verify before signing: %+v, %v: want no signature, a verification error", res, err)
	}

	signed, err := workflow.Sign(ctx, env, workflow.SignOptions{Ref: ref, Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	if signed.Digest != packed.Digest || signed.Signer != signer.ID() || signed.Reference != ref || signed.SignedAt == "" {
		t.Errorf("signed %+v: want %s signed by %s", signed, packed.Digest, signer.ID())
	}
	res, err = workflow.Verify(ctx, env, workflow.VerifyOptions{Ref: ref, Keys: []string{pub}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verified || res.Signer != signer.ID() || res.Signature != signed.Signature || res.Format != signature.FormatStax || res.SignedAt == "" {
		t.Errorf("verify %+v: want verified by the signature made, %s", res, signed.Signature)
	}

	res, err = workflow.Verify(ctx, env, workflow.VerifyOptions{Ref: ref, Keys: []string{otherPub}})
	if errdefs.Of(err) != errdefs.DataLoss || res == nil || res.Verified || res.Reason != string(signature.ReasonWrongKey) {
		t.Fatalf("verify with another key: %+v, %v: want wrong key, a verification error", res, err)
	}
	if !strings.Contains(err.Error(), "does not verify") {
		t.Errorf("err = %v: want it to say the package does not verify", err)
	}
}

// Signing and verifying look in one place only: a layout must exist, and
// without Local a reference is not looked for in the store.
func TestSignLooksInOnePlace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	signer, pub := newSigner(t, root, "release")
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)
	if _, err := workflow.Pack(ctx, env, workflow.PackOptions{Dir: writePackage(t, root, "team", "review")}); err != nil {
		t.Fatal(err)
	}
	missing := layout(t) + ":1.0.0"
	if _, err := workflow.Sign(ctx, env, workflow.SignOptions{Ref: missing, Signer: signer}); err == nil {
		t.Errorf("signing in %s, which does not exist, succeeded", missing)
	}

	if _, err := workflow.Sign(ctx, env, workflow.SignOptions{Ref: "team:1.0.0", Local: true, Signer: signer}); err != nil {
		t.Fatal(err)
	}
	res, err := workflow.Verify(ctx, env, workflow.VerifyOptions{Ref: "team:1.0.0", Local: true, Keys: []string{pub}})
	if err != nil || !res.Verified {
		t.Fatalf("verify in the store: %+v, %v", res, err)
	}
}

func TestVerifyTakesTheKeysOfTheTrustPolicy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	signer, pub := newSigner(t, root, "release")
	var warnings bytes.Buffer
	env := newEnvAt(t, home, &warnings)
	ref := layout(t) + ":1.0.0"
	if _, err := workflow.Pack(ctx, env, workflow.PackOptions{Dir: writePackage(t, root, "team", "review"), Tag: ref}); err != nil {
		t.Fatal(err)
	}
	if _, err := workflow.Sign(ctx, env, workflow.SignOptions{Ref: ref, Signer: signer}); err != nil {
		t.Fatal(err)
	}

	// No policy in the stax home names a key: nothing to verify with.
	_, err := workflow.Verify(ctx, env, workflow.VerifyOptions{Ref: ref})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "no key to verify") {
		t.Fatalf("err = %v: want an invalid argument saying there is no key", err)
	}
	writeFile(t, filepath.Join(home, "trust.yaml"), "keys: ["+pub+"]\n")
	res, err := workflow.Verify(ctx, env, workflow.VerifyOptions{Ref: ref})
	if err != nil || !res.Verified {
		t.Fatalf("verify with the home policy's key: %+v, %v", res, err)
	}

	// A policy named instead of the home's is the one read.
	empty := filepath.Join(root, "empty.yaml")
	writeFile(t, empty, "mode: warn\n")
	if _, err := workflow.Verify(ctx, env, workflow.VerifyOptions{Ref: ref, Policy: empty}); errdefs.Of(err) != errdefs.InvalidArgument {
		t.Errorf("err = %v: want no key, from the policy named", err)
	}
}
