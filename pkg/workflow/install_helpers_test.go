package workflow_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/signature"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/workflow"
)

// homeEnv is an environment over a store of the test's own whose stax
// home, where the trust policy and the install locks are, is home.
func homeEnv(t *testing.T, home string) *workflow.Env {
	return &workflow.Env{
		Opener: &target.Opener{StoreDir: filepath.Join(t.TempDir(), "store")},
		Getenv: func(key string) string {
			if key == store.EnvHome {
				return home
			}
			return ""
		},
	}
}

// claudeCode is the claude-code folder of the project proj.
func claudeCode(proj string) workflow.Folders {
	return workflow.Folders{ProjectDir: proj, Runtimes: []string{"claude-code"}}
}

// statefulPackage lays out a package directory holding the stateful skill
// notes, whose MEMORY.md says memory.
func statefulPackage(t *testing.T, root, memory string) string {
	t.Helper()
	dir := filepath.Join(root, "stateful")
	filetest.Write(t, dir, map[string]string{
		"stax.yaml":              "name: stateful\nversion: 1.0.0\n",
		"skills/notes/SKILL.md":  "---\nname: notes\ndescription: Keeps notes. Use when testing admission.\nversion: 1.0.0\n---\nRead the notes.\n",
		"skills/notes/MEMORY.md": "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: 2026-01-01\n---\n" + memory + "\n",
	})
	return dir
}

// packLayout packs the package directory dir into a new OCI layout,
// tagged 1.0.0, signed by signer unless it is nil; it returns the
// package's reference.
func packLayout(t *testing.T, dir string, signer signature.Signer) string {
	t.Helper()
	ctx := context.Background()
	p, err := staxyaml.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	layout := filepath.Join(t.TempDir(), "layout")
	s, err := store.OpenLayout(ctx, layout)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := pack.Build(ctx, s, pack.Options{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Tag(ctx, res.Descriptor, "1.0.0"); err != nil {
		t.Fatal(err)
	}
	if signer != nil {
		now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		if _, err := signature.Sign(ctx, s, res.Descriptor, signer, signature.SignOptions{Now: now}); err != nil {
			t.Fatal(err)
		}
	}
	return "oci:" + layout + ":1.0.0"
}

// newKey makes an unencrypted Ed25519 key pair, its public key in a file:
// an encrypted one takes seconds to open under the race detector.
func newKey(t *testing.T) (*signature.KeySigner, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, pub, err := plainSigner(priv)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "key.pub")
	if err := os.WriteFile(path, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	return signer, path
}
