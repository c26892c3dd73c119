package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/internal/registrytest"
)

// oldIndexLimit is the bound on index.json that stax read before it read
// and wrote the index an entry at a time.
const oldIndexLimit = 4 << 20

// growStore tags the manifest the local store of home lists first until
// its index.json is size bytes or a little less, as many pulls into a
// long-lived cache would: written as stax wrote it, with json.Encoder.
func growStore(t *testing.T, home string, size int) {
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
	entry.Annotations = map[string]string{ocispec.AnnotationRefName: "mirror.example.com/team/skills-000000:1.0.0"}
	encoded, err := json.Marshal(entry)
	if err != nil {
		t.Fatal(err)
	}
	for n := (size - len(data)) / (len(encoded) + 1); n > 0; n-- {
		entry.Annotations = map[string]string{ocispec.AnnotationRefName: fmt.Sprintf("mirror.example.com/team/skills-%06d:1.0.0", n)}
		index.Manifests = append(index.Manifests, entry)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := json.NewEncoder(f).Encode(&index); err != nil {
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
	growStore(t, home, oldIndexLimit-1)
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
	growStore(t, home, oldIndexLimit+(1<<20))
	if r := runStax(t, "pull", reg.Host+"/acme/skills:2.0.0"); r.Code != 0 {
		t.Fatalf("pull into a store of 5 MiB: exit %d: %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "resolve", reg.Host+"/acme/skills:2.0.0", "--offline"); r.Code != 0 {
		t.Fatalf("resolve from a store of 5 MiB: exit %d: %s", r.Code, r.Stderr)
	}
}
