package workflow_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/source"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/transfer"
	"github.com/stax-dev/stax/pkg/workflow"
)

// writeLayout builds the package directory dir and writes it into a new
// OCI layout, tagged with the package's version, and returns the layout's
// reference.
func writeLayout(t *testing.T, env *workflow.Env, dir string) string {
	t.Helper()
	ctx := context.Background()
	src, err := source.Open(ctx, dir, source.Options{Opener: env.Opener, Scope: source.LocalOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	layout := "oci:" + filepath.Join(t.TempDir(), "layout")
	ref, err := reference.Parse(layout + ":1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	dst, err := env.Opener.Open(ctx, ref, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, err := transfer.Copy(ctx, src.Target, dst, transfer.Options{}); err != nil {
		t.Fatal(err)
	}
	return layout
}
