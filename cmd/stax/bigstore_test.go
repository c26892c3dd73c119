package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/workflow"
)

// oldIndexLimit is the bound on index.json that stax read before it read
// and wrote the index an entry at a time.
const oldIndexLimit = 4 << 20

// growStore tags the manifest the local store of home lists first until
// its index.json is size bytes, as many pulls into a long-lived cache
// would: written as stax wrote it, with json.Encoder. Each tag carries an
// annotation of pad bytes, to reach a size with fewer.
func growStore(t *testing.T, home string, size, pad int) {
	t.Helper()
	path := filepath.Join(home, "store", "index.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var index ocispec.Index
	if err := json.Unmarshal(data, &index); err != nil || len(index.Manifests) == 0 {
		t.Fatalf("index.json of the store: %v, %d entries", err, len(index.Manifests))
	}
	entry := index.Manifests[0]
	tag := func(n int, note string) map[string]string {
		return map[string]string{ocispec.AnnotationRefName: fmt.Sprintf("mirror.example.com/team/skills-%06d:1.0.0", n), "note": note}
	}
	entry.Annotations = tag(0, strings.Repeat("x", pad))
	encoded, err := json.Marshal(entry)
	if err != nil {
		t.Fatal(err)
	}
	for n := (size - len(data)) / (len(encoded) + 1); n > 0; n-- {
		entry.Annotations = tag(n, strings.Repeat("x", pad))
		index.Manifests = append(index.Manifests, entry)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(&index); err != nil {
		t.Fatal(err)
	}
	// The last tag's note makes up what is left, to the byte.
	last := index.Manifests[len(index.Manifests)-1].Annotations
	last["note"] += strings.Repeat("x", size-buf.Len())
	buf.Reset()
	if err := json.NewEncoder(&buf).Encode(&index); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != size {
		t.Fatalf("grew index.json to %d bytes, want %d", buf.Len(), size)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A store grown to about 17,500 tags, just under the 4 MiB stax used to
// read, keeps working: the pull that takes its index.json past 4 MiB, and
// every command after it, succeed. stax used to write that index and then
// refuse it, exit 1, on every pull and install from then on.
func TestStoreGrownPastFourMiBKeepsWorking(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	home := useHome(t)
	for _, tag := range []string{"1.0.0", "2.0.0", "3.0.0"} {
		pushExamples(t, reg.Host+"/acme/skills:"+tag)
	}
	if r := runStax(t, "pull", reg.Host+"/acme/skills:1.0.0"); r.Code != 0 {
		t.Fatalf("pull into a new store: exit %d: %s", r.Code, r.Stderr)
	}
	growStore(t, home, oldIndexLimit-1, 0)
	for _, args := range [][]string{
		{"pull", reg.Host + "/acme/skills:2.0.0"},
		{"pull", reg.Host + "/acme/skills:3.0.0"},
		{"install", reg.Host + "/acme/skills:2.0.0", "--dir", t.TempDir()},
		{"tags", "--local", "acme/skills"},
	} {
		if r := runStax(t, args...); r.Code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), r.Code, r.Stderr)
		}
	}
	info, err := os.Stat(filepath.Join(home, "store", "index.json"))
	if err != nil || info.Size() <= oldIndexLimit {
		t.Fatalf("index.json: %v, %d bytes, want over %d", err, info.Size(), oldIndexLimit)
	}
}

// A store an older stax wrote past 4 MiB, which it then refused to read,
// is read and written by this one.
func TestStoreAnOlderStaxLockedOutOpens(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	home := useHome(t)
	pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	pushExamples(t, reg.Host+"/acme/skills:2.0.0")
	if r := runStax(t, "pull", reg.Host+"/acme/skills:1.0.0"); r.Code != 0 {
		t.Fatalf("pull into a new store: exit %d: %s", r.Code, r.Stderr)
	}
	growStore(t, home, oldIndexLimit+(1<<20), 0)
	if r := runStax(t, "pull", reg.Host+"/acme/skills:2.0.0"); r.Code != 0 {
		t.Fatalf("pull into a store of 5 MiB: exit %d: %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "resolve", reg.Host+"/acme/skills:2.0.0", "--offline"); r.Code != 0 {
		t.Fatalf("resolve from a store of 5 MiB: exit %d: %s", r.Code, r.Stderr)
	}
}

// A pull that would take index.json past what stax reads is refused
// (exit 2, naming stax store prune) and leaves the store as it was, which
// keeps working: stax never writes an index it then refuses. Its point
// is the limit, and its cost an index of 64 MiB that four commands read: it
// skips under -short (make unit), make test runs it.
func TestPullPastTheIndexLimitIsRefused(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes and reads an index of 64 MiB: make test runs it")
	}
	reg := registrytest.New(t)
	home := useHome(t)
	pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	pushExamples(t, reg.Host+"/acme/skills:2.0.0")
	if r := runStax(t, "pull", reg.Host+"/acme/skills:1.0.0"); r.Code != 0 {
		t.Fatalf("pull into a new store: exit %d: %s", r.Code, r.Stderr)
	}
	growStore(t, home, store.MaxIndexSize-1, 4<<10)
	indexPath := filepath.Join(home, "store", "index.json")
	before, err := os.ReadFile(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	r := runStax(t, "pull", reg.Host+"/acme/skills:2.0.0")
	if r.Code != 2 || !strings.Contains(r.Stderr, "stax store prune") {
		t.Fatalf("a pull past the limit: exit %d: %s", r.Code, r.Stderr)
	}
	if after, err := os.ReadFile(indexPath); err != nil || string(after) != string(before) {
		t.Fatalf("the refused pull changed index.json (%v)", err)
	}
	for _, args := range [][]string{
		{"pull", reg.Host + "/acme/skills:1.0.0", "-o", filepath.Join(t.TempDir(), "out")},
		{"store", "prune", "--dry-run"},
	} {
		if r := runStax(t, args...); r.Code != 0 {
			t.Fatalf("%s on a store at its limit: exit %d: %s", strings.Join(args, " "), r.Code, r.Stderr)
		}
	}
}

// stax store prune removes the package a moved tag left behind, with its
// signature, and keeps the package the tag names with its own: a dry run
// says so and changes nothing; after the prune the tagged package still
// verifies, and a second prune finds nothing.
func TestStorePruneKeepsWhatATagReaches(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	priv, pub := newKeyPair(t, "prune")
	run := func(args ...string) result {
		t.Helper()
		r := runStax(t, args...)
		if r.Code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), r.Code, r.Stderr)
		}
		return r
	}
	var old, current workflow.PackResult
	decodeJSON(t, run("pack", examples, "-t", "acme/skills:1.0.0", "--output", "json").Stdout, &old)
	run("sign", "--local", "acme/skills:1.0.0", "--key", priv)
	decodeJSON(t, run("pack", examples, "--version", "9.0.0", "-t", "acme/skills:1.0.0", "--output", "json").Stdout, &current)
	run("sign", "--local", "acme/skills:1.0.0", "--key", priv)
	if old.Digest == current.Digest {
		t.Fatal("the second pack made the same package")
	}

	storeDir := filepath.Join(home, "store")
	before := listTree(t, storeDir)
	var dry, pruned workflow.PruneResult
	decodeJSON(t, run("store", "prune", "--dry-run", "--output", "json").Stdout, &dry)
	if after := listTree(t, storeDir); after != before {
		t.Errorf("a dry run changed the store:\n%s\nwas:\n%s", after, before)
	}
	decodeJSON(t, run("store", "prune", "--output", "json").Stdout, &pruned)
	// The old package, its signature and the referrers index listing it.
	if pruned.DryRun || len(pruned.Manifests) != 3 || !slices.Contains(pruned.Manifests, digest.Digest(old.Digest)) || len(pruned.Tags) != 1 || pruned.Blobs < 5 || pruned.Bytes <= 0 {
		t.Errorf("prune: %+v, want the old package, its signature and referrers index", pruned)
	}
	dry.DryRun = false
	if !reflect.DeepEqual(dry, pruned) {
		t.Errorf("the dry run said %+v, the prune did %+v", dry, pruned)
	}
	if _, err := os.Stat(filepath.Join(storeDir, "blobs", "sha256", strings.TrimPrefix(old.Digest, "sha256:"))); !os.IsNotExist(err) {
		t.Errorf("the old package is still in blobs/: %v", err)
	}
	run("verify", "--local", "acme/skills:1.0.0", "--key", pub)
	run("install", "acme/skills:1.0.0", "--dir", t.TempDir(), "--runtime", "claude-code")
	r := run("store", "prune")
	if !strings.Contains(r.Stdout, "removed 0 manifests no tag reaches, 0 referrers tags and 0 blobs (0 bytes)") {
		t.Errorf("a second prune: %s", r.Stdout)
	}
}

// stax store prune keeps what a project's stax.lock pins, though no tag
// reaches it any more (here a moved tag left it behind, as it does a
// dependency, stored by digest alone): install --frozen still installs
// the project after a prune, from the store alone (acme/skills is a tag
// of the store, in no registry). A project whose stax.lock is gone
// keeps nothing, and is dropped from the store's roots.
func TestStorePruneKeepsWhatAStaxLockPins(t *testing.T) {
	t.Parallel()
	useHome(t)
	run := func(args ...string) result {
		t.Helper()
		r := runStax(t, args...)
		if r.Code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), r.Code, r.Stderr)
		}
		return r
	}
	var old, gone workflow.PackResult
	decodeJSON(t, run("pack", examples, "-t", "acme/skills:1.0.0", "--output", "json").Stdout, &old)
	proj := t.TempDir()
	run("install", "acme/skills:1.0.0", "--dir", proj, "--runtime", "claude-code")
	decodeJSON(t, run("pack", examples, "--version", "8.0.0", "-t", "acme/skills:1.0.0", "--output", "json").Stdout, &gone)
	removed := t.TempDir()
	run("install", "acme/skills:1.0.0", "--dir", removed, "--runtime", "claude-code")
	run("pack", examples, "--version", "9.0.0", "-t", "acme/skills:1.0.0")
	if err := os.RemoveAll(removed); err != nil {
		t.Fatal(err)
	}

	var dry, pruned workflow.PruneResult
	decodeJSON(t, run("store", "prune", "--dry-run", "--output", "json").Stdout, &dry)
	decodeJSON(t, run("store", "prune", "--output", "json").Stdout, &pruned)
	if slices.Contains(pruned.Manifests, digest.Digest(old.Digest)) || !slices.Contains(pruned.Manifests, digest.Digest(gone.Digest)) {
		t.Errorf("prune removed %v; want %s, which only a removed project pinned, and not %s, which %s/stax.lock pins", pruned.Manifests, gone.Digest, old.Digest, proj)
	}
	if !reflect.DeepEqual(pruned.Projects, []string{proj}) || !reflect.DeepEqual(pruned.DroppedProjects, []string{removed}) {
		t.Errorf("prune kept the packages of %v and dropped %v, want [%s] and [%s]", pruned.Projects, pruned.DroppedProjects, proj, removed)
	}
	dry.DryRun = false
	if !reflect.DeepEqual(dry, pruned) {
		t.Errorf("the dry run said %+v, the prune did %+v", dry, pruned)
	}
	run("install", "--frozen", "--dir", proj)
	r := run("store", "prune")
	if !strings.Contains(r.Stdout, "removed 0 manifests") || strings.Contains(r.Stdout, removed) {
		t.Errorf("a second prune: %s", r.Stdout)
	}
}
