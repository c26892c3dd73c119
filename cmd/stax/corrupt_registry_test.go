package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
)

// TestCorruptBlobOnTheRegistryExitsSix: a layer whose bytes changed on the
// registry's disk (one byte flipped where distribution stores it, so that
// it serves the same digest and size with other content) fails every
// command that reads it with exit 6, the class of content that does not
// match its digest, naming the blob, the reference and the fix, in
// stax's words, and writes nothing. Whether the flipped byte breaks the
// gzip stream early (mid-layer) or only its trailer (the last byte), the
// digest is what is wrong.
func TestCorruptBlobOnTheRegistryExitsSix(t *testing.T) {
	t.Parallel()
	priv, pub := newKeyPair(t, "corrupt")
	for _, at := range []struct {
		name string
		byte func(size int64) int64
	}{
		{"mid-layer", func(size int64) int64 { return size / 2 }},
		{"last byte", func(int64) int64 { return -1 }},
	} {
		t.Run(at.name, func(t *testing.T) {
			t.Parallel()
			useHome(t)
			reg := registrytest.New(t, registrytest.WithFilesystem())
			mirror := registrytest.New(t)
			ref := reg.Host + "/acme/skills:1.0.0"
			layer := pushExamples(t, ref).Layers[0]
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
			reg.CorruptStoredBlob(t, layer.Digest, at.byte(layer.Size))

			for _, c := range []struct {
				name string
				args func(out string) []string
			}{
				{"install --frozen", func(string) []string { return []string{"install", "--frozen", "--dir", locked} }},
				{"install from the lock", func(string) []string { return []string{"install", "--dir", locked} }},
				{"install REF", func(out string) []string {
					return []string{"install", ref, "--dir", out, "--runtime", "claude-code"}
				}},
				{"pull", func(string) []string { return []string{"pull", ref} }},
				{"pull -o", func(out string) []string { return []string{"pull", ref, "-o", filepath.Join(out, "skills")} }},
				{"copy", func(string) []string { return []string{"copy", ref, mirror.Host + "/acme/skills:1.0.0"} }},
				{"copy to a layout", func(out string) []string { return []string{"copy", ref, "oci:" + filepath.Join(out, "layout") + ":1.0.0"} }},
				{"verify --key", func(string) []string { return []string{"verify", ref, "--key", pub} }},
				{"inspect", func(string) []string { return []string{"inspect", ref} }},
				{"diff", func(string) []string { return []string{"diff", other, ref} }},
			} {
				t.Run(c.name, func(t *testing.T) {
					useHome(t) // a fresh store: the layer comes from the registry
					out := t.TempDir()
					r := runStax(t, c.args(out)...)
					if r.Code != 6 {
						t.Errorf("exit %d, want 6\n%s", r.Code, r.Stderr)
					}
					for _, want := range []string{layer.Digest.String(), "acme/skills", "registry's copy of a blob is corrupt", "push the package again"} {
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
				})
			}
		})
	}
}
