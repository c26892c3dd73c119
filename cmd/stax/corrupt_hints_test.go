package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/oci"

	"github.com/stax-dev/stax/internal/registrytest"
)

// TestCorruptBlobHintsResolve: a blob altered on disk after stax stored
// it fails the command that reads it with exit 6 and a hint, and the
// hint, followed as written, makes that command succeed. The local store
// is stax's cache: the corrupt copy is removed there, and running the
// command again fetches the blob anew (a package built here with stax
// pack is built again first, as the message says); a layout the user
// named is left as it is, and the message says how to restore it. Before
// the store dropped its corrupt copies, pull found the blob there and
// fetched nothing, and the command failed again.
func TestCorruptBlobHintsResolve(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args func(ref, locked, out string) []string
	}{
		{"install --frozen", func(_, locked, _ string) []string { return []string{"install", "--frozen", "--dir", locked} }},
		{"install REF", func(ref, _, out string) []string {
			return []string{"install", ref, "--dir", out, "--runtime", "claude-code"}
		}},
		{"pull -o", func(ref, _, out string) []string { return []string{"pull", ref, "-o", filepath.Join(out, "skills")} }},
		// Reads the store under its shared lock, which cannot remove.
		{"render", func(ref, _, _ string) []string { return []string{"render", ref + "#review-pr"} }},
	} {
		t.Run("the store's copy of a registry's package/"+c.name, func(t *testing.T) {
			t.Parallel()
			p := installFromStore(t)
			home, reg, ref, layer, locked := p.home, p.reg, p.ref, p.layer, p.project
			flipStored(t, home, layer.Digest.Encoded())
			out := t.TempDir()
			args := c.args(ref, locked, out)
			r := runStax(t, args...)
			if r.Code != 6 {
				t.Fatalf("exit %d, want 6\n%s", r.Code, r.Stderr)
			}
			wants := []string{layer.Digest.String(), "was removed from the store", "run the same command again to fetch it from registry " + reg.Host}
			if c.name == "render" {
				wants = []string{layer.Digest.String(), "stax left the copy", "`stax pull " + ref + "`"}
			}
			for _, want := range wants {
				if !strings.Contains(r.Stderr, want) {
					t.Errorf("the message does not say %q:\n%s", want, r.Stderr)
				}
			}
			if c.name != "render" {
				assertNotStored(t, home, layer.Digest.Encoded())
			}
			followHints(t, r.Stderr, args, nil)
			if c.name != "render" {
				assertSkillsIn(t, out, locked)
			}
		})
	}
	// A config is read whole before it is used: the store's copy is
	// dropped and the registry's read in its stead where the store is
	// read as a cache of the registry; render reads the store alone.
	for _, c := range []struct {
		args func(ref, locked string) []string
		// cache says the command reads the store as a cache of the
		// registry, and so succeeds; render reads the store alone.
		cache bool
	}{
		{func(_, locked string) []string { return []string{"install", "--frozen", "--dir", locked} }, true},
		{func(ref, _ string) []string { return []string{"inspect", ref} }, true},
		{func(ref, _ string) []string { return []string{"render", ref + "#review-pr"} }, false},
	} {
		t.Run("the store's copy of a config/"+c.args("REF", "DIR")[0], func(t *testing.T) {
			t.Parallel()
			home := useHome(t)
			reg := registrytest.New(t)
			ref := reg.Host + "/acme/skills:1.0.0"
			pushExamples(t, ref)
			config := configOf(t, ref)
			locked := t.TempDir()
			if r := runStax(t, "install", ref, "--dir", locked, "--runtime", "claude-code"); r.Code != 0 {
				t.Fatalf("install: %d %s", r.Code, r.Stderr)
			}
			flipStored(t, home, config.Digest.Encoded())
			args := c.args(ref, locked)
			r := runStax(t, args...)
			if c.cache {
				// The registry's copy served, the store's dropped (and
				// stored again whole by install).
				if r.Code != 0 {
					t.Fatalf("exit %d, want 0: the registry serves the config\n%s", r.Code, r.Stderr)
				}
				file := filepath.Join(home, "store", "blobs", "sha256", config.Digest.Encoded())
				if data, err := os.ReadFile(file); err == nil && digest.FromBytes(data) != config.Digest {
					t.Errorf("the store's corrupt copy of the config is still there")
				}
				return
			}
			if r.Code != 6 || strings.Contains(r.Stderr, "registry's copy") {
				t.Fatalf("exit %d, want 6 blaming the store's copy\n%s", r.Code, r.Stderr)
			}
			followHints(t, r.Stderr, args, nil)
		})
	}
	t.Run("the store's copy of a package packed here", func(t *testing.T) {
		t.Parallel()
		home := useHome(t)
		if r := runStax(t, "pack", examples, "-t", "acme/local:1.0.0"); r.Code != 0 {
			t.Fatalf("pack: %d %s", r.Code, r.Stderr)
		}
		layer := storedLayer(t, filepath.Join(home, "store"), "acme/local:1.0.0")
		for _, args := range [][]string{
			{"install", "acme/local:1.0.0", "--dir", t.TempDir(), "--runtime", "claude-code"},
			// Read under the store's shared lock, which cannot remove.
			{"pull", "acme/local:1.0.0", "-o", filepath.Join(t.TempDir(), "skills")},
		} {
			flipStored(t, home, layer)
			r := runStax(t, args...)
			if r.Code != 6 {
				t.Fatalf("%v: exit %d, want 6\n%s", args, r.Code, r.Stderr)
			}
			if leftFile(r.Stderr) == "" && !strings.Contains(r.Stderr, "was removed from the store") {
				t.Fatalf("the message says neither that the copy was removed nor which file to remove:\n%s", r.Stderr)
			}
			if hints := hintsIn(r.Stderr, args); len(hints) != 1 || hints[0][0] != "pack" {
				t.Fatalf("the message does not say to pack the package again: %q\n%s", hints, r.Stderr)
			}
			followHints(t, r.Stderr, args, map[string]string{"DIR": examples})
		}
	})
	t.Run("a layout the user named", func(t *testing.T) {
		t.Parallel()
		useHome(t)
		reg := registrytest.New(t)
		src := reg.Host + "/acme/skills:1.0.0"
		pushExamples(t, src)
		layout := filepath.Join(t.TempDir(), "layout")
		ref := "oci:" + layout + ":1.0.0"
		if r := runStax(t, "copy", src, ref); r.Code != 0 {
			t.Fatalf("copy: %d %s", r.Code, r.Stderr)
		}
		layer := storedLayer(t, layout, "1.0.0")
		flipStored(t, layout, layer)
		out := t.TempDir()
		args := []string{"install", ref, "--dir", out, "--runtime", "claude-code"}
		r := runStax(t, args...)
		if r.Code != 6 {
			t.Fatalf("exit %d, want 6\n%s", r.Code, r.Stderr)
		}
		file := filepath.Join(layout, "blobs", "sha256", layer)
		if _, err := os.Stat(file); err != nil {
			t.Fatalf("the user's layout lost its blob: %v", err)
		}
		hints := hintsIn(r.Stderr, args)
		if !strings.Contains(r.Stderr, "remove "+file+", then") || len(hints) != 1 || hints[0][0] != "copy" {
			t.Fatalf("the message does not say to remove %s and copy the package again: %q\n%s", file, hints, r.Stderr)
		}
		followHints(t, r.Stderr, args, map[string]string{"SRC": src})
	})
}

// flipStored flips the gzip header byte (see gzipMtime) of the blob file
// named name under dir, as a disk or a person would alter it.
func flipStored(t *testing.T, dir, name string) {
	t.Helper()
	file := storedBlob(t, dir, name)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	data[gzipMtime] ^= 0xff
	corruptFile(t, file, data)
}

// storedBlob is the one blob file named name under dir.
func storedBlob(t *testing.T, dir, name string) string {
	t.Helper()
	var stored []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == name && filepath.Base(filepath.Dir(filepath.Dir(p))) == "blobs" {
			stored = append(stored, p)
		}
		return err
	})
	if err != nil || len(stored) != 1 {
		t.Fatalf("the blob %s is stored at %v (%v), want one path", name, stored, err)
	}
	return stored[0]
}

// storedPackage is a package pushed to a registry of its own and
// installed from it into project, whose installed folder was then
// removed: installing or pulling it again reads its layer from the
// store in home, not from the registry.
type storedPackage struct {
	home, ref, project string
	reg                *registrytest.Registry
	layer              ocispec.Descriptor
}

func installFromStore(t *testing.T) storedPackage {
	t.Helper()
	p := storedPackage{home: useHome(t), reg: registrytest.New(t), project: t.TempDir()}
	p.ref = p.reg.Host + "/acme/skills:1.0.0"
	p.layer = pushExamples(t, p.ref).Layers[0]
	if r := runStax(t, "install", p.ref, "--dir", p.project, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	if err := os.RemoveAll(filepath.Join(p.project, ".claude")); err != nil {
		t.Fatal(err)
	}
	return p
}

// storedLayer is the digest (hex) of the first layer of the package
// tagged tag in the OCI layout dir, read as another client would.
func storedLayer(t *testing.T, dir, tag string) string {
	t.Helper()
	ctx := context.Background()
	l, err := oci.NewFromFS(ctx, os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	_, raw, err := oras.FetchBytes(ctx, l, tag, oras.DefaultFetchBytesOptions)
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m.Layers[0].Digest.Encoded()
}

// followHints does what msg, the failure of args, says to: removes the
// file it names, runs each stax command it gives (with the placeholders
// in with filled in), then runs args again, which must succeed.
func followHints(t *testing.T, msg string, args []string, with map[string]string) {
	t.Helper()
	if file := leftFile(msg); file != "" {
		if err := os.Remove(file); err != nil {
			t.Fatalf("the message says to remove %s: %v", file, err)
		}
	}
	for _, hint := range hintsIn(msg, args) {
		for i, arg := range hint {
			if v, ok := with[arg]; ok {
				hint[i] = v
			}
		}
		if h := runStax(t, hint...); h.Code != 0 {
			t.Fatalf("the hint `stax %s` of %q fails: exit %d %s", strings.Join(hint, " "), msg, h.Code, h.Stderr)
		}
	}
	if again := runStax(t, args...); again.Code != 0 {
		t.Fatalf("after following %q, %v fails: exit %d %s", msg, args, again.Code, again.Stderr)
	}
}

// leftFile is the file a message says to remove, if it says so.
func leftFile(msg string) string {
	m := regexp.MustCompile(`remove (/\S+), then`).FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	return m[1]
}

// assertSkillsIn fails t unless one of dirs holds an installed skill.
func assertSkillsIn(t *testing.T, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		found := false
		filepath.WalkDir(dir, func(_ string, d fs.DirEntry, _ error) error {
			found = found || (d != nil && d.Name() == "SKILL.md")
			return nil
		})
		if found {
			return
		}
	}
	t.Errorf("no skill was written into %v", dirs)
}

// TestCorruptConfigInANamedLayoutIsLeft: a config read from the layout
// --oci-layout names, in place of the local store, that does not match
// its digest is read from the registry instead, and the layout's copy is
// left as it is: the layout is the user's, as one named with oci: is.
func TestCorruptConfigInANamedLayoutIsLeft(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	pushExamples(t, ref)
	config := configOf(t, ref)
	layout := filepath.Join(t.TempDir(), "layout")
	if r := runStax(t, "install", ref, "--dir", t.TempDir(), "--runtime", "claude-code", "--oci-layout", layout); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	flipStored(t, layout, config.Digest.Encoded())
	file := filepath.Join(layout, "blobs", "sha256", config.Digest.Encoded())
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r := runStax(t, "inspect", ref, "--oci-layout", layout)
	if r.Code != 0 && r.Code != 6 {
		t.Fatalf("inspect: exit %d, want 0 or 6\n%s", r.Code, r.Stderr)
	}
	if after, err := os.ReadFile(file); err != nil || !bytes.Equal(after, before) {
		t.Errorf("stax altered the layout the user named (%v)", err)
	}
}

// TestCorruptManifestHintsPrune: a manifest altered in the local store
// after it was stored fails store prune with exit 6, as what it refers to
// is unknown and would be removed; prune holds the store's write lock, so
// it removes the corrupt copy and says to run it again, and that prune
// succeeds. The package's tag is kept, and a pull fetches the manifest
// again under it. Before prune dropped the copy, every prune failed on it.
func TestCorruptManifestHintsPrune(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	manifest := digest.Digest(pushExamples(t, ref).Digest)
	if r := runStax(t, "pull", ref); r.Code != 0 {
		t.Fatalf("pull: %d %s", r.Code, r.Stderr)
	}
	flipStored(t, home, manifest.Encoded())
	args := []string{"store", "prune"}
	r := runStax(t, args...)
	if r.Code != 6 {
		t.Fatalf("exit %d, want 6\n%s", r.Code, r.Stderr)
	}
	for _, want := range []string{manifest.String(), "was removed from the store", "run `stax store prune` again"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("the message does not say %q:\n%s", want, r.Stderr)
		}
	}
	assertNotStored(t, home, manifest.Encoded())
	followHints(t, r.Stderr, args, nil)
	if p := runStax(t, "pull", ref, "-o", filepath.Join(t.TempDir(), "skills")); p.Code != 0 {
		t.Fatalf("pull after prune: %d %s", p.Code, p.Stderr)
	}
}
