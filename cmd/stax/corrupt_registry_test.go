package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/registrytest"
)

// gzipMtime is the first byte of a gzip stream's modification time
// (RFC 1952), which a decoder ignores: a layer with it flipped reads as
// the same files, and only the layer's digest tells it from the one
// pushed. A reader that left the digest unchecked would install it.
const gzipMtime = 4

// TestCorruptBlobOnTheRegistryExitsSix: a blob whose bytes changed on the
// registry's disk (one byte flipped where distribution stores it, so that
// it serves the same digest and size with other content) fails every
// command that reads it with exit 6, the class of content that does not
// match its digest, with a message in stax's words naming the blob, the
// reference, that the registry's copy is corrupt and the fix, and leaves
// nothing: no output, no blob in the store, nothing in its ingest
// directory. A byte flipped mid-layer breaks the gzip stream long before
// the digest is known; one flipped last only breaks its trailer; one
// flipped in the gzip header breaks nothing but the digest (see
// gzipMtime); the config is read by every command, inspect too, which
// reads no layer of a registry's package.
func TestCorruptBlobOnTheRegistryExitsSix(t *testing.T) {
	t.Parallel()
	priv, pub := newKeyPair(t, "corrupt")
	for _, corrupt := range []struct {
		name   string
		config bool
		at     func(size int64) int64
	}{
		{name: "mid-layer", at: func(size int64) int64 { return size / 2 }},
		{name: "last byte of the layer", at: func(int64) int64 { return -1 }},
		{name: "gzip header of the layer", at: func(int64) int64 { return gzipMtime }},
		{name: "config", config: true, at: func(size int64) int64 { return size / 2 }},
	} {
		t.Run(corrupt.name, func(t *testing.T) {
			t.Parallel()
			useHome(t)
			reg := registrytest.New(t, registrytest.WithFilesystem())
			mirror := registrytest.New(t)
			ref := reg.Host + "/acme/skills:1.0.0"
			blob := pushExamples(t, ref).Layers[0]
			if corrupt.config {
				blob = configOf(t, ref)
			}
			if r := runStax(t, "sign", ref, "--key", priv); r.Code != 0 {
				t.Fatalf("sign: %d %s", r.Code, r.Stderr)
			}
			other := reg.Host + "/acme/other:1.0.0"
			pushSkillVersion(t, other, "other", "1.0.0")
			locked := t.TempDir()
			if r := runStax(t, "install", ref, "--dir", locked, "--runtime", "claude-code"); r.Code != 0 {
				t.Fatalf("install: %d %s", r.Code, r.Stderr)
			}
			if err := os.RemoveAll(filepath.Join(locked, ".claude")); err != nil {
				t.Fatal(err)
			}
			reg.CorruptStoredBlob(t, blob.Digest, corrupt.at(blob.Size))

			for _, c := range []struct {
				name string
				args func(out string) []string
				// layers: the command reads the skills layer.
				layers bool
			}{
				{"install --frozen", func(string) []string { return []string{"install", "--frozen", "--dir", locked} }, true},
				{"install from the lock", func(string) []string { return []string{"install", "--dir", locked} }, true},
				{"install REF", func(out string) []string {
					return []string{"install", ref, "--dir", out, "--runtime", "claude-code"}
				}, true},
				{"pull", func(string) []string { return []string{"pull", ref} }, true},
				{"pull -o", func(out string) []string { return []string{"pull", ref, "-o", filepath.Join(out, "skills")} }, true},
				{"copy", func(string) []string { return []string{"copy", ref, mirror.Host + "/acme/skills:1.0.0"} }, true},
				{"copy to a layout", func(out string) []string {
					return []string{"copy", ref, "oci:" + filepath.Join(out, "layout") + ":1.0.0"}
				}, true},
				{"verify --key", func(string) []string { return []string{"verify", ref, "--key", pub} }, true},
				{"inspect", func(string) []string { return []string{"inspect", ref} }, false},
				{"diff", func(string) []string { return []string{"diff", other, ref} }, true},
				{"validate --against", func(string) []string { return []string{"validate", examples, "--against", ref} }, true},
			} {
				if !c.layers && !corrupt.config {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					home := useHome(t) // a fresh store: the blob comes from the registry
					out := t.TempDir()
					reg.ResetRequests()
					r := runStax(t, c.args(out)...)
					if r.Code != 6 {
						t.Errorf("exit %d, want 6\n%s", r.Code, r.Stderr)
					}
					// install's fetch ahead of the store reports what it
					// found: the corrupt copy is not fetched again.
					reg.WaitIdle()
					if n := countGets(reg, blob.Digest.String()); !corrupt.config && n != 1 {
						t.Errorf("the corrupt layer was fetched %d times, want once", n)
					}
					for _, want := range []string{blob.Digest.String(), "acme/skills", "registry's copy of a blob is corrupt", "ask the operator of " + reg.Host} {
						if !strings.Contains(r.Stderr, want) {
							t.Errorf("the message does not say %q:\n%s", want, r.Stderr)
						}
					}
					for _, leak := range []string{`"Push"`, "on destination"} {
						if strings.Contains(r.Stderr, leak) {
							t.Errorf("the message speaks oras-go's %s:\n%s", leak, r.Stderr)
						}
					}
					if entries, _ := os.ReadDir(out); len(entries) != 0 {
						t.Errorf("a failed %s wrote %v", c.name, entries)
					}
					assertNotStored(t, home, blob.Digest.Encoded())
				})
			}
			t.Run("--output json", func(t *testing.T) {
				useHome(t)
				r := runStax(t, "pull", ref, "--output", "json")
				if got := jsonErrorOf(t, r); got.Exit != 6 || got.Code != "digest-mismatch" {
					t.Errorf("JSON error %+v, want exit 6, code digest-mismatch", got)
				}
			})
		})
	}
}

// configOf is the config descriptor of the package at ref, read from its
// registry as another client would.
func configOf(t *testing.T, ref string) ocispec.Descriptor {
	t.Helper()
	name, tag, _ := strings.Cut(ref[strings.LastIndex(ref, "/"):], ":")
	repo := testRepository(t, ref[:strings.LastIndex(ref, "/")]+name)
	_, raw, err := oras.FetchBytes(context.Background(), repo, tag, oras.DefaultFetchBytesOptions)
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m.Config
}

// assertNotStored fails t if anything under home is named name (a blob
// kept in a store) or is left in an ingest directory.
func assertNotStored(t *testing.T, home, name string) {
	t.Helper()
	err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == name || (!d.IsDir() && filepath.Base(filepath.Dir(p)) == "ingest") {
			t.Errorf("left in $STAX_HOME: %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCorruptBlobInALayoutExitsSix: a layer altered in an OCI layout (one
// byte flipped in its blob file) fails every command that reads it with
// exit 6, naming the layout, the blob and the fix.
func TestCorruptBlobInALayoutExitsSix(t *testing.T) {
	t.Parallel()
	priv, pub := newKeyPair(t, "corrupt")
	for _, at := range []struct {
		name string
		at   func(size int64) int64
	}{
		{"mid-layer", func(size int64) int64 { return size / 2 }},
		{"last byte of the layer", func(int64) int64 { return -1 }},
		{"gzip header of the layer", func(int64) int64 { return gzipMtime }},
	} {
		t.Run(at.name, func(t *testing.T) {
			t.Parallel()
			useHome(t)
			reg := registrytest.New(t)
			layout := filepath.Join(t.TempDir(), "layout")
			ref := "oci:" + layout + ":1.0.0"
			layer := pushExamples(t, ref).Layers[0]
			if r := runStax(t, "sign", ref, "--key", priv); r.Code != 0 {
				t.Fatalf("sign: %d %s", r.Code, r.Stderr)
			}
			other := "oci:" + layout + ":other"
			pushSkillVersion(t, other, "other", "1.0.0")
			path := filepath.Join(layout, "blobs", "sha256", layer.Digest.Encoded())
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			i := at.at(int64(len(data)))
			if i < 0 {
				i += int64(len(data))
			}
			data[i] ^= 0xff
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name string
				args func(out string) []string
			}{
				{"install", func(out string) []string { return []string{"install", ref, "--dir", out, "--runtime", "claude-code"} }},
				{"pull -o", func(out string) []string { return []string{"pull", ref, "-o", filepath.Join(out, "skills")} }},
				{"copy", func(string) []string { return []string{"copy", ref, reg.Host + "/acme/skills:1.0.0"} }},
				{"verify --key", func(string) []string { return []string{"verify", ref, "--key", pub} }},
				{"inspect", func(string) []string { return []string{"inspect", ref} }},
				{"diff", func(string) []string { return []string{"diff", other, ref} }},
				{"validate --against", func(string) []string { return []string{"validate", examples, "--against", ref} }},
				{"render", func(string) []string { return []string{"render", ref + "#review-pr"} }},
			} {
				t.Run(c.name, func(t *testing.T) {
					home := useHome(t)
					out := t.TempDir()
					r := runStax(t, c.args(out)...)
					if r.Code != 6 {
						t.Errorf("exit %d, want 6\n%s", r.Code, r.Stderr)
					}
					for _, want := range []string{layer.Digest.String(), layout, "altered"} {
						if !strings.Contains(r.Stderr, want) {
							t.Errorf("the message does not say %q:\n%s", want, r.Stderr)
						}
					}
					if entries, _ := os.ReadDir(out); len(entries) != 0 {
						t.Errorf("a failed %s wrote %v", c.name, entries)
					}
					assertNotStored(t, home, layer.Digest.Encoded())
				})
			}
		})
	}
}

// TestLayerBuiltCorruptExitsSix: a package whose layer is not a valid
// archive though it matches its digest (pushed so: every copy of it is
// the same) fails every command that reads the layer with exit 6, content
// that does not match what its descriptor says it is, with a message that
// blames the package, not the registry, and writes nothing.
func TestLayerBuiltCorruptExitsSix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	priv, _ := newKeyPair(t, "corrupt")
	useHome(t)
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	layer := pushExamples(t, ref).Layers[0]
	repo := testRepository(t, reg.Host+"/acme/skills")
	data, err := content.FetchAll(ctx, repo, layer)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	broken := content.NewDescriptorFromBytes(layer.MediaType, data)
	if err := repo.Push(ctx, broken, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	cfg, err := content.FetchAll(ctx, repo, configOf(t, ref))
	if err != nil {
		t.Fatal(err)
	}
	bad := reg.Host + "/acme/broken:1"
	pushRawPackage(t, reg.Host+"/acme/broken", "1", cfg, broken)
	for _, c := range []struct {
		name string
		args func(out string) []string
	}{
		{"install", func(out string) []string { return []string{"install", bad, "--dir", out, "--runtime", "claude-code"} }},
		{"pull -o", func(out string) []string { return []string{"pull", bad, "-o", filepath.Join(out, "skills")} }},
		{"sign", func(string) []string { return []string{"sign", bad, "--key", priv} }},
		{"diff", func(string) []string { return []string{"diff", ref, bad} }},
		{"validate --against", func(string) []string { return []string{"validate", examples, "--against", bad} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			useHome(t)
			out := t.TempDir()
			r := runStax(t, c.args(out)...)
			if r.Code != 6 {
				t.Errorf("exit %d, want 6\n%s", r.Code, r.Stderr)
			}
			wants := []string{broken.Digest.String(), "archive is corrupt", "the package was pushed so"}
			if c.name != "sign" { // which names one package only
				wants = append(wants, "acme/broken")
			}
			for _, want := range wants {
				if !strings.Contains(r.Stderr, want) {
					t.Errorf("the message does not say %q:\n%s", want, r.Stderr)
				}
			}
			if strings.Contains(r.Stderr, "registry's copy") {
				t.Errorf("the message blames the registry's copy, which is the package as pushed:\n%s", r.Stderr)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("a failed %s wrote %v", c.name, entries)
			}
		})
	}
	t.Run("--output json", func(t *testing.T) {
		useHome(t)
		r := runStax(t, "pull", bad, "-o", filepath.Join(t.TempDir(), "skills"), "--output", "json")
		if got := jsonErrorOf(t, r); got.Exit != 6 || got.Code != "layer-corrupt" {
			t.Errorf("JSON error %+v, want exit 6, code layer-corrupt", got)
		}
	})
}

// countGets is how many GET requests reg saw for a path ending in suffix.
func countGets(reg *registrytest.Registry, suffix string) int {
	n := 0
	for _, req := range reg.Requests() {
		if req.Method == "GET" && strings.HasSuffix(req.Path, suffix) {
			n++
		}
	}
	return n
}

// TestCorruptBlobInTheStoreExitsSix: a layer altered in the local store
// after it was stored (one byte flipped in its blob file) fails the
// commands that read it from there, rather than from the registry, with
// exit 6, and writes nothing: the store's copy is read through a
// verifying reader, and the walk of the layer counts on it. The flipped
// byte is in the gzip header (see gzipMtime), where only the layer's
// digest tells it from the one pushed.
func TestCorruptBlobInTheStoreExitsSix(t *testing.T) {
	t.Parallel()
	p := installFromStore(t)
	ref, layer, locked := p.ref, p.layer, p.project
	stored := storedBlob(t, p.home, layer.Digest.Encoded())
	data, err := os.ReadFile(stored)
	if err != nil {
		t.Fatal(err)
	}
	data[gzipMtime] ^= 0xff
	for _, c := range []struct {
		name string
		args func(out string) []string
	}{
		{"install --frozen", func(string) []string { return []string{"install", "--frozen", "--dir", locked} }},
		{"install REF", func(out string) []string { return []string{"install", ref, "--dir", out, "--runtime", "claude-code"} }},
		{"pull -o", func(out string) []string { return []string{"pull", ref, "-o", filepath.Join(out, "skills")} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Each command finds the copy corrupt: the one before removed it.
			corruptFile(t, stored, data)
			out := t.TempDir()
			r := runStax(t, c.args(out)...)
			if r.Code != 6 {
				t.Errorf("exit %d, want 6\n%s", r.Code, r.Stderr)
			}
			if !strings.Contains(r.Stderr, layer.Digest.String()) {
				t.Errorf("the message does not name the layer:\n%s", r.Stderr)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("a failed %s wrote %v", c.name, entries)
			}
			if entries, _ := os.ReadDir(filepath.Join(locked, ".claude")); len(entries) != 0 {
				t.Errorf("a failed %s wrote %v into the project", c.name, entries)
			}
		})
	}
}

// corruptFile writes data, a blob's bytes altered, where the blob was
// stored, as a disk or a person would alter it.
func corruptFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.Chmod(path, 0o644); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptBlobOnTheRegistrySaysPushingAgainDoesNotRepairIt: the
// message of a blob the registry serves corrupt gives a way out that
// works. Pushing the same package again does not: the registry answers
// that it has the manifest and the blob (a registry keeps the copy it
// stored of a digest, and a push skips what is there), and the next
// pull fails as before. So the message sends the user to the
// registry's operator, and says why a push will not do.
func TestCorruptBlobOnTheRegistrySaysPushingAgainDoesNotRepairIt(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t, registrytest.WithFilesystem())
	ref := reg.Host + "/acme/skills:1.0.0"
	layer := pushExamples(t, ref).Layers[0]
	reg.CorruptStoredBlob(t, layer.Digest, layer.Size/2)

	useHome(t)
	r := runStax(t, "pull", ref)
	if r.Code != 6 {
		t.Fatalf("pull of a corrupt layer: exit %d, want 6\n%s", r.Code, r.Stderr)
	}
	for _, want := range []string{"pushing the package again does not replace it", "ask the operator of " + reg.Host} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("the message does not say %q:\n%s", want, r.Stderr)
		}
	}
	if strings.Contains(r.Stderr, "push the package again to replace it") {
		t.Errorf("the message advises a push, which does not replace the blob:\n%s", r.Stderr)
	}
	// What the message no longer advises, and why.
	if p := runStax(t, "push", examples, ref); p.Code != 0 {
		t.Fatalf("push again: exit %d %s", p.Code, p.Stderr)
	}
	useHome(t)
	if again := runStax(t, "pull", ref); again.Code != 6 {
		t.Errorf("pull after pushing again: exit %d, want 6 (if a push now repairs the blob, say so in the message)\n%s", again.Code, again.Stderr)
	}
}
