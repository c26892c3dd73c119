package workflow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/publish"
	"github.com/stax-dev/stax/pkg/transfer"
	"github.com/stax-dev/stax/pkg/workflow"
)

func TestPushBuildsADirectoryAndTagsItsVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := writePackage(t, t.TempDir(), "team", "review", "style")
	dst := layout(t)
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)
	var built *pack.Result

	res, err := workflow.Push(ctx, env, workflow.PushOptions{Source: dir, Destination: dst, Built: func(b *pack.Result) { built = b }})
	if err != nil {
		t.Fatal(err)
	}
	if built == nil || built.Descriptor.Digest.String() != res.Digest {
		t.Errorf("the build shown is %v: want the package pushed, %s", built, res.Digest)
	}
	if want := dst + ":1.0.0@" + res.Digest; res.Reference != want {
		t.Errorf("reference %s: want %s, the version as the tag", res.Reference, want)
	}
	if res.Kind != transfer.KindPackage || res.Skills != 2 || res.Copied == 0 || res.Skipped != 0 || res.Signature != nil {
		t.Errorf("result %+v: want a package of 2 skills, every blob copied, unsigned", res)
	}
	// The JSON is the transfer's and the build's warnings, whatever else
	// the result carries.
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"copied", "digest", "kind", "layers", "mediaType", "notices", "reference", "size", "skills", "skipped", "warnings"}; !slices.Equal(keys, want) {
		t.Errorf("JSON fields %v: want %v", keys, want)
	}

	// The same files build the same package, which the layout has.
	again, err := workflow.Push(ctx, env, workflow.PushOptions{Source: dir, Destination: dst})
	if err != nil {
		t.Fatal(err)
	}
	if again.Digest != res.Digest || again.Copied != 0 || again.Skipped == 0 {
		t.Errorf("second push %+v: want %s again, every blob already there", again, res.Digest)
	}
	out := filepath.Join(t.TempDir(), "out")
	if _, err := workflow.Pull(ctx, env, workflow.PullOptions{Refs: []string{dst + ":1.0.0"}, OutputDir: out}); err != nil {
		t.Fatalf("pull what was pushed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "style", "SKILL.md")); err != nil {
		t.Error(err)
	}
}

func TestPushSignsWhatItPushed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	signer, pub := newSigner(t, root, "release")
	dst := layout(t) + ":2.0.0"
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)

	res, err := workflow.Push(ctx, env, workflow.PushOptions{Source: writePackage(t, root, "team", "review"), Destination: dst, Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	if res.Signature == nil || res.Signature.Config.Signer != signer.ID() {
		t.Fatalf("signature %+v: want one by %s", res.Signature, signer.ID())
	}
	v, err := workflow.Verify(ctx, env, workflow.VerifyOptions{Ref: dst, Keys: []string{pub}})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Verified || v.Digest != res.Digest || v.Signature != res.Signature.Descriptor.Digest.String() {
		t.Errorf("verify %+v: want %s verified by the signature the push made, %s", v, res.Digest, res.Signature.Descriptor.Digest)
	}
}

func TestPushDependenciesPublishesThemFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	writePackage(t, root, "base", "base")
	depRef := layout(t) + ":1.0.0"
	top := writePackage(t, root, "top", "top")
	writeFile(t, filepath.Join(top, "stax.yaml"), "name: top\nversion: 1.0.0\npackages:\n  - path: ../base\n    ref: "+depRef+"\n")
	dst := layout(t) + ":1.0.0"
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)

	// Unpublished, the dependency cannot be recorded by its reference.
	if _, err := workflow.Push(ctx, env, workflow.PushOptions{Source: top, Destination: dst}); err == nil || !strings.Contains(err.Error(), "publish it first") {
		t.Fatalf("push before the dependency is published: %v", err)
	}
	var pushed []publish.Published
	res, err := workflow.Push(ctx, env, workflow.PushOptions{
		Source: top, Destination: dst, PushDependencies: true,
		DependencyPushed: func(p publish.Published) { pushed = append(pushed, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pushed) != 1 || pushed[0].Ref != depRef || pushed[0].Digest == "" {
		t.Fatalf("dependencies pushed %+v: want base, to %s", pushed, depRef)
	}
	// What was pushed depends on base by reference: a consumer gets both.
	out := filepath.Join(t.TempDir(), "out")
	pulled, err := workflow.Pull(ctx, env, workflow.PullOptions{Refs: []string{dst}, OutputDir: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(pulled.Packages) != 2 || pulled.Packages[1].Digest != res.Digest {
		t.Errorf("pulled %+v: want base below top, %s", pulled.Packages, res.Digest)
	}
	for _, s := range []string{"base", "top"} {
		if _, err := os.Stat(filepath.Join(out, s, "SKILL.md")); err != nil {
			t.Error(err)
		}
	}
}

func TestPushDependenciesNeedsADirectory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)
	src := layout(t) + ":1.0.0"
	if _, err := workflow.Push(ctx, env, workflow.PushOptions{Source: writePackage(t, t.TempDir(), "team", "review"), Destination: src}); err != nil {
		t.Fatal(err)
	}
	dst := layout(t)

	_, err := workflow.Push(ctx, env, workflow.PushOptions{Source: src, Destination: dst, PushDependencies: true})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "is not one") {
		t.Fatalf("err = %v: want an invalid argument saying the source is no directory", err)
	}
	if _, err := os.Stat(strings.TrimPrefix(dst, "oci:")); !os.IsNotExist(err) {
		t.Errorf("the refused push made %s: %v", dst, err)
	}
}

// A package packed in a checkout records the directories it depends on:
// nobody could install it, so it is not pushed.
func TestPushRefusesAStoredPackageThatDependsOnADirectory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	writePackage(t, root, "base", "base")
	top := writePackage(t, root, "top", "top")
	writeFile(t, filepath.Join(top, "stax.yaml"), "name: top\nversion: 1.0.0\npackages: [../base]\n")
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)
	if _, err := workflow.Pack(ctx, env, workflow.PackOptions{Dir: top}); err != nil {
		t.Fatal(err)
	}
	dst := layout(t)

	_, err := workflow.Push(ctx, env, workflow.PushOptions{Source: "top:1.0.0", Destination: dst})
	if errdefs.Of(err) != errdefs.Unresolved || !strings.Contains(err.Error(), "depends on the directory ../base") {
		t.Fatalf("err = %v: want a resolution error naming the directory", err)
	}
	if _, err := os.Stat(strings.TrimPrefix(dst, "oci:")); !os.IsNotExist(err) {
		t.Errorf("the refused push made %s: %v", dst, err)
	}
}

func TestPushRefusesAnInvalidDestination(t *testing.T) {
	t.Parallel()
	var warnings bytes.Buffer
	_, err := workflow.Push(context.Background(), newEnv(t, &warnings), workflow.PushOptions{Source: writePackage(t, t.TempDir(), "team", "review"), Destination: "Acme/Skills:1.0.0"})
	if errdefs.Of(err) != errdefs.InvalidArgument {
		t.Fatalf("err = %v: want an invalid argument", err)
	}
}
