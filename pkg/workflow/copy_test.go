package workflow_test

import (
	"bytes"
	"context"
	"github.com/stax-dev/stax/pkg/transfer"
	"os"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/workflow"
)

func TestCopyBetweenLayoutsKeepsTheTagAndDigest(t *testing.T) {
	t.Parallel()
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)
	src := writeLayout(t, env, writePackage(t, t.TempDir(), "org", "review"))
	dst := "oci:" + t.TempDir() + "/mirror"

	res, err := workflow.Copy(context.Background(), env, workflow.CopyOptions{Source: src + ":1.0.0", Destination: dst})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(res.Destination, ":1.0.0") {
		t.Errorf("copied to %s: want the source's tag 1.0.0", res.Destination)
	}
	if res.Kind != transfer.KindPackage || res.Skills != 1 {
		t.Errorf("transfer %+v: want the package with its one skill", res)
	}
	// The mirror holds the same manifest under that tag.
	ref, err := reference.Parse(dst + ":1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	mirror, err := env.Opener.Open(context.Background(), ref, store.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer mirror.Close()
	desc, err := mirror.Lookup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if desc.Digest.String() != res.Digest {
		t.Errorf("the mirror's 1.0.0 is %s; the copy reported %s", desc.Digest, res.Digest)
	}
}

// A package the trust policy refuses is not copied: nothing is written at
// the destination.
func TestCopyRefusesAnUnsignedPackageBeforeWriting(t *testing.T) {
	t.Parallel()
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)
	src := writeLayout(t, env, writePackage(t, t.TempDir(), "org", "review"))
	dir := t.TempDir() + "/mirror"
	_, trusted := newKey(t) // signed nothing

	_, err := workflow.Copy(context.Background(), env, workflow.CopyOptions{
		Source: src + ":1.0.0", Destination: "oci:" + dir,
		Verify: workflow.Verification{Mode: "require", Keys: []string{trusted}},
	})
	if errdefs.Of(err) != errdefs.DataLoss {
		t.Fatalf("err = %v (%s): want a verification failure", err, errdefs.Of(err))
	}
	if _, statErr := os.Stat(dir); !os.IsNotExist(statErr) {
		t.Errorf("%s exists after a refused copy", dir)
	}
}

// Dependencies are copied to a registry's repository paths, which a
// layout has none of: the copy is refused, and the layout it would have
// made is not left behind.
func TestCopyWithDependenciesRefusesALayout(t *testing.T) {
	t.Parallel()
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)
	src := writeLayout(t, env, writePackage(t, t.TempDir(), "org", "review"))
	dir := t.TempDir() + "/mirror"

	_, err := workflow.Copy(context.Background(), env, workflow.CopyOptions{Source: src + ":1.0.0", Destination: "oci:" + dir, WithDependencies: true})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "registry") {
		t.Fatalf("err = %v: want an invalid argument naming registries", err)
	}
	if _, statErr := os.Stat(dir); !os.IsNotExist(statErr) {
		t.Errorf("%s exists after a refused copy", dir)
	}
}
