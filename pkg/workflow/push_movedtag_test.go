package workflow_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/transfer"
	"github.com/stax-dev/stax/pkg/workflow"
)

// A push over a tag of a layout that names another package says which
// digest it replaced; with NoOverwrite it is refused as a registry
// failure, and the tag stays.
func TestPushOverAMovedTag(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := newEnv(t, nil)
	root := t.TempDir()
	first, second := writePackage(t, root, "org", "review"), writePackage(t, filepath.Join(root, "next"), "org", "review", "style")
	dst := layout(t) + ":1.0.0"

	a, err := workflow.Push(ctx, env, workflow.PushOptions{Source: first, Destination: dst, NoOverwrite: true})
	if err != nil || a.Replaced != "" {
		t.Fatalf("first push: replaced %q, %v", a.Replaced, err)
	}
	_, err = workflow.Push(ctx, env, workflow.PushOptions{Source: second, Destination: dst, NoOverwrite: true})
	var exists *transfer.TagExistsError
	if !errors.As(err, &exists) || exists.Current.String() != a.Digest || errdefs.Of(err) != errdefs.Unavailable {
		t.Fatalf("push --no-overwrite over %s: %v", a.Digest, err)
	}
	b, err := workflow.Push(ctx, env, workflow.PushOptions{Source: second, Destination: dst})
	if err != nil || b.Replaced != a.Digest || b.Tag != "1.0.0" {
		t.Fatalf("push over the tag: replaced %q of tag %q, %v; want %s of 1.0.0", b.Replaced, b.Tag, err, a.Digest)
	}
}
