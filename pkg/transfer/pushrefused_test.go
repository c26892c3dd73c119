package transfer_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/transfer"
)

// A registry that refuses the package's manifest, pushed by tag in one
// PUT, is the destination's failure: a registry error (exit 3) that says
// the credentials lack push access, not a failure of the source layout.
func TestCopyManifestPushRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	fault := registrytest.Fail("PUT", "/v2/skills/demo/manifests/1.0.0", 403).Times(-1)
	f.reg.AddFaults(fault)
	src, err := f.opener.Open(ctx, reference.Reference{Layout: f.layout, Tag: "good"}, store.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dstRef, err := reference.Parse(f.reg.Host + "/skills/demo:1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	dst, err := f.opener.Open(ctx, dstRef, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	_, err = transfer.Copy(ctx, src, dst, transfer.Options{NewTag: true})
	if fault.Hits() == 0 {
		t.Fatal("the manifest was never pushed by tag")
	}
	if errdefs.Of(err) != errdefs.Unavailable || !strings.Contains(err.Error(), "lack push access to "+f.reg.Host+"/skills/demo:1.0.0") {
		t.Errorf("Copy: %v (class %v), want a registry error saying the credentials lack push access", err, errdefs.Of(err))
	}
}
