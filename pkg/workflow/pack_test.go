package workflow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/workflow"
)

func TestPackTagsTheVersionInALayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := writePackage(t, t.TempDir(), "team", "review", "style")
	dst := layout(t)
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)

	res, err := workflow.Pack(ctx, env, workflow.PackOptions{Dir: dir, Tag: dst})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reference != dst+":1.0.0" || res.Name != "team" || res.Version != "1.0.0" || res.Skills != 2 || len(res.Layers) == 0 {
		t.Errorf("packed %+v: want team 1.0.0, 2 skills, tagged 1.0.0 in %s", res, dst)
	}
	// The descriptions say no "Use when": a warning each, for the
	// printer to show.
	if len(res.Warnings) != 2 || res.Warnings[0].Code != "description-no-trigger" {
		t.Errorf("warnings %+v: want the two untriggered descriptions", res.Warnings)
	}
	// No notices is an empty list, not null: scripts read it without a
	// check.
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"notices":[]`) {
		t.Errorf("JSON %s: want empty notices", data)
	}

	// The same files and creation time build the same package; another
	// creation time another one.
	again, err := workflow.Pack(ctx, env, workflow.PackOptions{Dir: dir, Tag: dst + ":again"})
	if err != nil {
		t.Fatal(err)
	}
	later, err := workflow.Pack(ctx, env, workflow.PackOptions{Dir: dir, Tag: dst + ":later", Build: pack.Options{Created: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)}})
	if err != nil {
		t.Fatal(err)
	}
	if again.Digest != res.Digest || later.Digest == res.Digest {
		t.Errorf("digests %s, %s, %s: want the first two equal, the third another", res.Digest, again.Digest, later.Digest)
	}
	for _, tag := range []string{"1.0.0", "again"} {
		pulled, err := workflow.Pull(ctx, env, workflow.PullOptions{Refs: []string{dst + ":" + tag}})
		if err != nil {
			t.Fatal(err)
		}
		if got := pulled.Packages[0].Digest; got != res.Digest {
			t.Errorf("%s:%s is %s: want %s", dst, tag, got, res.Digest)
		}
	}
}

func TestPackIntoTheStoreThenPush(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)

	packed, err := workflow.Pack(ctx, env, workflow.PackOptions{Dir: writePackage(t, root, "team", "review"), Build: pack.Options{Overrides: staxyaml.Definition{Version: "2.1.0"}}})
	if err != nil {
		t.Fatal(err)
	}
	if packed.Reference != "team:2.1.0" || packed.Version != "2.1.0" {
		t.Fatalf("packed %+v: want team:2.1.0 in the store, the version overridden", packed)
	}
	if _, err := os.Stat(env.Opener.StoreDir); err != nil {
		t.Fatalf("the store: %v", err)
	}
	pushed, err := workflow.Push(ctx, env, workflow.PushOptions{Source: "team:2.1.0", Destination: layout(t)})
	if err != nil {
		t.Fatal(err)
	}
	if pushed.Digest != packed.Digest || !strings.Contains(pushed.Reference, ":2.1.0@") {
		t.Errorf("pushed %+v: want the stored package %s, tagged 2.1.0", pushed, packed.Digest)
	}
}

func TestPackRefusesADigestTag(t *testing.T) {
	t.Parallel()
	var warnings bytes.Buffer
	tag := layout(t) + "@sha256:" + strings.Repeat("a", 64)
	_, err := workflow.Pack(context.Background(), newEnv(t, &warnings), workflow.PackOptions{Dir: writePackage(t, t.TempDir(), "team", "review"), Tag: tag})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "a digest is computed") {
		t.Fatalf("err = %v: want an invalid argument saying a digest is computed", err)
	}
}

// A failed pack leaves no layout behind.
func TestPackFailureLeavesNoLayout(t *testing.T) {
	t.Parallel()
	dir := writePackage(t, t.TempDir(), "team", "review")
	writeFile(t, filepath.Join(dir, "skills", "bad", "SKILL.md"), "---\nname: bad\n---\n\nNo description.\n")
	dst := layout(t)
	var warnings bytes.Buffer

	_, err := workflow.Pack(context.Background(), newEnv(t, &warnings), workflow.PackOptions{Dir: dir, Tag: dst})
	var invalid *pack.InvalidError
	if !errors.As(err, &invalid) {
		t.Fatalf("err = %v: want the validation report", err)
	}
	if _, err := os.Stat(strings.TrimPrefix(dst, "oci:")); !os.IsNotExist(err) {
		t.Errorf("the failed pack left %s: %v", dst, err)
	}
}

// pack -t oci:X resolves the packages it depends on, reading the local
// store's tags, before it takes the lock of X: it never holds a layout's
// lock while it reads the store or a registry, and a dependency that
// does not resolve fails at once, whoever writes X meanwhile.
func TestPackResolvesDependenciesBeforeLockingTheLayout(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := writePackage(t, t.TempDir(), "top", "top")
	writeFile(t, filepath.Join(dir, "stax.yaml"), "name: top\nversion: 1.0.0\npackages: [missing:1.0.0]\n")
	var warnings bytes.Buffer
	env := newEnv(t, &warnings)
	env.Opener.LockDir = filepath.Join(t.TempDir(), "locks")
	dst := layout(t)
	ref, err := reference.Parse(dst + ":1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	writer, err := env.Opener.Open(ctx, ref, store.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()

	_, err = workflow.Pack(ctx, env, workflow.PackOptions{Dir: dir, Tag: dst})
	if err == nil || errdefs.Of(err) == errdefs.Local || !strings.Contains(err.Error(), "missing:1.0.0") {
		t.Fatalf("err = %v: want the dependency not found, without waiting for the layout's writer", err)
	}
}
