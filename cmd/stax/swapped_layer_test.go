package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filetest"
)

// TestSignedLayoutWithSwappedLayerFailsVerification: a signed package in
// an OCI layout whose skills layer was replaced (the blob rewritten in
// place, or the manifest pointed at another layer) is a verification
// failure under --verify require, exit 6, and nothing is installed.
func TestSignedLayoutWithSwappedLayerFailsVerification(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"blob rewritten", "manifest repointed"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			useHome(t)
			priv, pub := newKeyPair(t, "acme")
			layout := filepath.Join(t.TempDir(), "layout")
			if r := runStax(t, "push", "--sign", "--key", priv, examples, "oci:"+layout+":1.0.0"); r.Code != 0 {
				t.Fatalf("push: %s", r.Stderr)
			}
			other := t.TempDir()
			filetest.WriteFile(t, filepath.Join(other, "stax.yaml"), "name: other\nversion: 1.0.0\n")
			writeSkillFiles(t, filepath.Join(other, "skills"), map[string]string{"review-pr/SKILL.md": skillMD("review-pr", "Swapped in.")})
			if r := runStax(t, "push", other, "oci:"+layout+":other"); r.Code != 0 {
				t.Fatalf("push other: %s", r.Stderr)
			}
			swapLayer(t, layout, "1.0.0", "other", how == "manifest repointed")

			proj := t.TempDir()
			r := runStax(t, "install", "oci:"+layout+":1.0.0", "--dir", proj, "--runtime", "claude-code", "--verify", "require", "--key", pub)
			if r.Code != 6 {
				t.Errorf("install of a swapped layer: exit %d, want 6: %s", r.Code, r.Stderr)
			}
			if tree := listTree(t, proj); tree != "" {
				t.Errorf("install wrote to the project:\n%s", tree)
			}
			if how != "blob rewritten" {
				return
			}
			// Unverified, the install gets as far as reading the layer
			// into the folder's staging directory, and fails there: the
			// project is left as it was, without even an empty .claude.
			r = runStax(t, "install", "oci:"+layout+":1.0.0", "--dir", proj, "--runtime", "claude-code")
			if r.Code != 6 {
				t.Errorf("unverified install of a swapped layer: exit %d, want 6: %s", r.Code, r.Stderr)
			}
			if tree := listTree(t, proj); tree != "" {
				t.Errorf("the failed install left in the project:\n%s", tree)
			}
		})
	}
}

// swapLayer gives the package tagged tag in layout the skills layer of the
// package tagged from: by rewriting its layer blob with the other's bytes,
// or by pointing its manifest (rewritten, and retagged) at the other's.
func swapLayer(t *testing.T, layout, tag, from string, repoint bool) {
	t.Helper()
	manifestOf := func(tag string) (string, map[string]any) {
		var index struct {
			Manifests []struct {
				Digest      string            `json:"digest"`
				Annotations map[string]string `json:"annotations"`
			} `json:"manifests"`
		}
		if err := json.Unmarshal(mustRead(t, filepath.Join(layout, "index.json")), &index); err != nil {
			t.Fatal(err)
		}
		for _, m := range index.Manifests {
			if m.Annotations["org.opencontainers.image.ref.name"] == tag {
				var manifest map[string]any
				if err := json.Unmarshal(mustRead(t, blobPath(layout, m.Digest)), &manifest); err != nil {
					t.Fatal(err)
				}
				return m.Digest, manifest
			}
		}
		t.Fatalf("no manifest tagged %s in %s", tag, layout)
		return "", nil
	}
	mdigest, manifest := manifestOf(tag)
	_, donor := manifestOf(from)
	layer := manifest["layers"].([]any)[0].(map[string]any)
	donorLayer := donor["layers"].([]any)[0].(map[string]any)
	if !repoint {
		if err := os.WriteFile(blobPath(layout, layer["digest"].(string)), mustRead(t, blobPath(layout, donorLayer["digest"].(string))), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	manifest["layers"].([]any)[0] = donorLayer
	data, err := json.Marshal(manifest)
	if err != nil {
		t.Fatal(err)
	}
	d := digest.FromBytes(data)
	if err := os.WriteFile(blobPath(layout, d.String()), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var index map[string]any
	if err := json.Unmarshal(mustRead(t, filepath.Join(layout, "index.json")), &index); err != nil {
		t.Fatal(err)
	}
	for _, m := range index["manifests"].([]any) {
		if m := m.(map[string]any); m["digest"] == mdigest {
			m["digest"], m["size"] = d.String(), len(data)
		}
	}
	if data, err = json.Marshal(index); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(layout, "index.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func blobPath(layout, d string) string {
	return filepath.Join(layout, "blobs", strings.Replace(d, ":", string(filepath.Separator), 1))
}
