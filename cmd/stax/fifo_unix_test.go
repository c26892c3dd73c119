//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

// TestUserNamedFilesRefuseNamedPipes: a named pipe where stax expects a
// file it is given or finds (stax.yaml, stax.lock read or written, $STAX_HOME/config.yaml,
// the trust policy, --key, --trusted-root, --token-file, --ca-file, a
// proposal) blocked the command for ever, in an open that no signal ended.
// Each is now refused at once: exit 1, naming the file.
func TestUserNamedFilesRefuseNamedPipes(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	useHome(t)
	pushExamples(t, ref)

	const skillMD = "---\nname: review\ndescription: Reviews changes. Use when testing pipes.\n---\nReview.\n"
	for _, c := range []struct {
		name string
		// pipe is the file made a named pipe, under a new directory dir
		// (a project) with files, and a new $STAX_HOME home.
		pipe  string
		files map[string]string
		args  func(dir, home, pipe string) []string
	}{
		{name: "stax.yaml", pipe: "stax.yaml", files: map[string]string{"skills/review/SKILL.md": skillMD},
			args: func(dir, _, _ string) []string { return []string{"install", "--dir", dir} }},
		{name: "stax.lock", pipe: "stax.lock", files: map[string]string{"stax.yaml": "name: team\nversion: 1.0.0\ninstall:\n  sources: [.]\n", "skills/review/SKILL.md": skillMD},
			args: func(dir, _, _ string) []string { return []string{"install", "--dir", dir, "--frozen"} }},
		// An install that writes stax.lock reads the one there first, to
		// journal it: with the project's, the store's and the folders'
		// locks held.
		{name: "stax.lock written by install", pipe: "stax.lock", files: map[string]string{"stax.yaml": "name: team\nversion: 1.0.0\ninstall:\n  sources: [.]\n", "skills/review/SKILL.md": skillMD},
			args: func(dir, _, _ string) []string { return []string{"install", "--dir", dir} }},
		{name: "$STAX_HOME/config.yaml", pipe: "home/config.yaml",
			args: func(_, _, _ string) []string { return []string{"install", ref, "--scope", "user"} }},
		{name: "the trust policy", pipe: "home/trust.yaml",
			args: func(_, _, _ string) []string { return []string{"verify", ref} }},
		{name: "verify --key", pipe: "cosign.pub",
			args: func(_, _, pipe string) []string { return []string{"verify", ref, "--key", pipe} }},
		{name: "sign --key", pipe: "cosign.key",
			args: func(_, _, pipe string) []string { return []string{"sign", ref, "--key", pipe} }},
		{name: "--trusted-root", pipe: "trusted_root.json",
			args: func(_, _, pipe string) []string {
				return []string{"verify", ref, "--trusted-root", pipe, "--certificate-identity", acmeWorkflow, "--certificate-oidc-issuer", actionsIssuer}
			}},
		{name: "--token-file", pipe: "token",
			args: func(_, _, pipe string) []string {
				return []string{"mcp", "--http", "127.0.0.1:0", "--token-file", pipe}
			}},
		{name: "--ca-file", pipe: "ca.pem",
			args: func(_, _, pipe string) []string { return []string{"tags", ref, "--ca-file", pipe} }},
		{name: "a proposal", pipe: "proposal.json", files: map[string]string{"skills/review/SKILL.md": skillMD},
			args: func(dir, _, pipe string) []string { return []string{"apply", pipe, filepath.Join(dir, "skills")} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			if err := os.Mkdir(home, 0o755); err != nil {
				t.Fatal(err)
			}
			setenv(t, "STAX_HOME", home)
			filetest.Write(t, dir, c.files)
			pipe := filepath.Join(dir, c.pipe)
			filetest.Mkfifo(t, pipe)
			var r result
			filetest.Finishes(t, "stax with a named pipe for "+c.name, func() { r = runStax(t, c.args(dir, home, pipe)...) })
			if r.Code != 1 || !strings.Contains(r.Stderr, pipe+" is not a regular file (a named pipe)") {
				t.Errorf("stax %s: exit %d, want 1 naming the pipe:\n%s", strings.Join(c.args(dir, home, pipe), " "), r.Code, r.Stderr)
			}
		})
	}
}
