package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/lock"
)

// TestPolicyRequireLeavesTargetsUntouched: with require and no signature,
// pull, install and copy fail with exit 6 before writing anything.
func TestPolicyRequireLeavesTargetsUntouched(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	_, pub := newKeyPair(t, "acme")
	reg := registrytest.New(t, registrytest.WithReferrersAPI())
	ref := reg.Host + "/acme/skills:1.0.0"
	if r := runStax(t, "push", examples, ref); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	storeBefore := listTree(t, filepath.Join(home, "store"))

	out := filepath.Join(t.TempDir(), "out")
	r := runStax(t, "pull", "--verify", "require", "--key", pub, ref, "-o", out)
	if r.Code != 6 || !strings.Contains(r.Stderr, "no signature") {
		t.Fatalf("pull: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("pull wrote %s", out)
	}
	if after := listTree(t, filepath.Join(home, "store")); after != storeBefore {
		t.Fatalf("pull wrote to the local store:\n%s", after)
	}

	proj := t.TempDir()
	r = runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code", "--verify", "require", "--key", pub)
	if r.Code != 6 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	if tree := listTree(t, proj); tree != "" {
		t.Fatalf("install wrote to the project:\n%s", tree)
	}
	if after := listTree(t, filepath.Join(home, "store")); after != storeBefore {
		t.Fatalf("install wrote to the local store:\n%s", after)
	}

	mirror := filepath.Join(t.TempDir(), "mirror")
	r = runStax(t, "copy", "--verify", "require", "--key", pub, ref, "oci:"+mirror+":1.0.0")
	if r.Code != 6 {
		t.Fatalf("copy: %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(mirror); !os.IsNotExist(err) {
		t.Fatalf("copy created %s", mirror)
	}
}

// TestPolicyFileScopesModesAndKeys: the policy in $STAX_HOME requires a
// signature by acme's key under the registry's acme namespace, warns
// elsewhere, and stax.yaml can relax it for a project.
func TestPolicyFileScopesModesAndKeys(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	priv, pub := newKeyPair(t, "acme")
	reg := registrytest.New(t)
	signed, unsigned := reg.Host+"/acme/skills:1.0.0", reg.Host+"/other/skills:1.0.0"
	if r := runStax(t, "push", "--sign", "--key", priv, examples, signed); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	if r := runStax(t, "push", examples, unsigned); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	if err := os.WriteFile(filepath.Join(home, "acme.pub"), mustRead(t, pub), 0o644); err != nil {
		t.Fatal(err)
	}
	policy := "mode: warn\nkeys: [acme.pub]\nscopes:\n  - scope: " + reg.Host + "/acme\n    mode: require\n  - scope: " + reg.Host + "/other\n    mode: require\n"
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "pull", signed); r.Code != 0 {
		t.Fatalf("signed: %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "pull", unsigned); r.Code != 6 {
		t.Fatalf("unsigned under require: %d %s", r.Code, r.Stderr)
	}
	r := runStax(t, "pull", "--verify", "warn", unsigned)
	if r.Code != 0 || !strings.Contains(r.Stderr, "warning: "+unsigned+" does not verify") {
		t.Fatalf("warn: %d %s", r.Code, r.Stderr)
	}

	// A project may set its own rule for a scope.
	proj := t.TempDir()
	def := "install:\n  sources: [" + unsigned + "]\n  runtimes: [claude-code]\ntrust:\n  scopes:\n    - scope: " + reg.Host + "/other\n      mode: none\n"
	if err := os.WriteFile(filepath.Join(proj, "stax.yaml"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "install", "--dir", proj); r.Code != 0 {
		t.Fatalf("install under the project's rule: %d %s", r.Code, r.Stderr)
	}
}

// TestLockRecordsVerificationAndFrozenRequiresIt: stax.lock records who
// verified each package; install --frozen then requires that again, even
// when the policy checks nothing.
func TestLockRecordsVerificationAndFrozenRequiresIt(t *testing.T) {
	t.Parallel()
	useHome(t)
	priv, pub := newKeyPair(t, "acme")
	_, otherPub := newKeyPair(t, "other")
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	if r := runStax(t, "push", "--sign", "--key", priv, examples, ref); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	proj := t.TempDir()
	if r := runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code", "--verify", "require", "--key", pub); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	l, err := lock.Read(filepath.Join(proj, lock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Packages) != 1 || l.Packages[0].Verified == nil || !strings.HasPrefix(l.Packages[0].Verified.Signer, "sha256:") {
		t.Fatalf("lock %+v", l.Packages)
	}
	r := runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code", "--frozen", "--key", otherPub)
	if r.Code != 6 || !strings.Contains(r.Stderr, "wrong key") {
		t.Fatalf("frozen with an untrusted key: %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code", "--frozen", "--key", pub); r.Code != 0 {
		t.Fatalf("frozen: %d %s", r.Code, r.Stderr)
	}
}

// TestFrozenInstallOfAVerifiedPackageWithoutItsSignature: stax.lock
// records a package as verified; its signature is then removed from the
// registry. install --frozen with no key must verify it again and cannot:
// a verification failure, exit 6, as it is with the key, not a usage
// error.
func TestFrozenInstallOfAVerifiedPackageWithoutItsSignature(t *testing.T) {
	t.Parallel()
	useHome(t)
	priv, pub := newKeyPair(t, "acme")
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	pushExamples(t, ref, "--sign", "--key", priv)
	proj := t.TempDir()
	if r := runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code", "--verify", "require", "--key", pub); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	ctx := context.Background()
	repo := testRepository(t, reg.Host+"/acme/skills")
	desc, err := repo.Resolve(ctx, "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	var sigs []ocispec.Descriptor
	if err := repo.Referrers(ctx, desc, "", func(r []ocispec.Descriptor) error { sigs = append(sigs, r...); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(sigs) == 0 {
		t.Fatal("the package has no signature to remove")
	}
	for _, sig := range sigs {
		if err := repo.Delete(ctx, sig); err != nil {
			t.Fatal(err)
		}
	}
	before := listTree(t, proj)
	r := runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code", "--frozen")
	if r.Code != 6 || !strings.Contains(r.Stderr, "stax.lock records it as verified") || !strings.Contains(r.Stderr, "--key") {
		t.Fatalf("frozen, no key: %d %s, want 6 naming stax.lock and --key", r.Code, r.Stderr)
	}
	r = runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code", "--frozen", "--key", pub)
	if r.Code != 6 || !strings.Contains(r.Stderr, "no signature") {
		t.Fatalf("frozen with the key: %d %s, want 6, no signature", r.Code, r.Stderr)
	}
	if after := listTree(t, proj); after != before {
		t.Fatalf("a refused install changed the project:\n%s", after)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// listTree lists the files under dir with their sizes; "" when dir does
// not exist or is empty.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel)
		if !info.IsDir() {
			b.WriteString(" " + strings.Repeat("#", int(info.Size()%7)))
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}

// TestVerifyInstalledAgainstSignedStatement: a MEMORY.md changed after
// install, with the install record rewritten to match, passes the local
// check but not the signed statement, which names the file.
func TestVerifyInstalledAgainstSignedStatement(t *testing.T) {
	t.Parallel()
	useHome(t)
	_, pub, _, proj := installSigned(t)
	if r := runStax(t, "verify", "--installed", "--dir", proj, "--runtime", "claude-code", "--key", pub); r.Code != 0 {
		t.Fatalf("verify a clean install: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}

	skills := filepath.Join(proj, ".claude", "skills")
	memory := []byte("# Memory\n\nforged lesson\n")
	if err := os.WriteFile(filepath.Join(skills, "incident-postmortem", "MEMORY.md"), memory, 0o644); err != nil {
		t.Fatal(err)
	}
	recPath := filepath.Join(skills, ".stax-install.json")
	var rec map[string]any
	if err := json.Unmarshal(mustRead(t, recPath), &rec); err != nil {
		t.Fatal(err)
	}
	files := rec["skills"].(map[string]any)["incident-postmortem"].(map[string]any)["files"].(map[string]any)
	files["MEMORY.md"] = "644 " + digest.FromBytes(memory).String()
	data, _ := json.Marshal(rec)
	if err := os.WriteFile(recPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "verify", "--installed", "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("the local record alone should not see it: %d %s", r.Code, r.Stdout)
	}
	r := runStax(t, "verify", "--installed", "--dir", proj, "--runtime", "claude-code", "--key", pub)
	if r.Code != 6 || !strings.Contains(r.Stdout, "skill incident-postmortem: not as signed: MEMORY.md changed") {
		t.Fatalf("verify against the statement: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestRenderAndShowRefuseUnverifiedStatefulSkill: under require, a stateful
// skill whose MEMORY.md no longer matches its package's signature is
// refused by render and show; the same skill unaltered is rendered.
func TestRenderAndShowRefuseUnverifiedStatefulSkill(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	_, pub, host, proj := installSigned(t)
	policy := "scopes:\n  - scope: " + host + "/acme\n    mode: require\n    keys: [" + pub + "]\n"
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(proj, ".claude", "skills", "incident-postmortem")
	if r := runStax(t, "render", skill); r.Code != 0 {
		t.Fatalf("render a verified skill: %d %s", r.Code, r.Stderr)
	}
	if err := os.WriteFile(filepath.Join(skill, "MEMORY.md"), []byte("# Memory\n\nforged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runStax(t, "render", skill)
	if r.Code != 6 || !strings.Contains(r.Stderr, "MEMORY.md changed") || r.Stdout != "" {
		t.Fatalf("render: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	r = runStax(t, "show", "incident-postmortem", "--runtime", "claude-code", "--dir", proj)
	if r.Code != 6 || !strings.Contains(r.Stderr, "refusing the stateful skill incident-postmortem") {
		t.Fatalf("show: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	// Not under require: rendered as before.
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte("mode: warn\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "render", skill); r.Code != 0 {
		t.Fatalf("render under warn: %d %s", r.Code, r.Stderr)
	}
}

// installSigned pushes the examples signed to a new registry and installs
// them for claude-code in a new project; it returns the key pair, the
// registry host and the project.
func installSigned(t *testing.T) (priv, pub, host, proj string) {
	t.Helper()
	priv, pub = newKeyPair(t, "acme")
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	if r := runStax(t, "push", "--sign", "--key", priv, examples, ref); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	proj = t.TempDir()
	if r := runStax(t, "install", ref, "--dir", proj, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("install: %d %s", r.Code, r.Stderr)
	}
	return priv, pub, reg.Host, proj
}

// TestMCPRefusesUnverifiedStatefulSkill checks that stax mcp applies the
// trust policy as render does: under require, a stateful skill whose
// MEMORY.md differs from what the package's signature signs is refused
// with the reason, never served.
func TestMCPRefusesUnverifiedStatefulSkill(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	_, pub, host, proj := installSigned(t)
	policy := "scopes:\n  - scope: " + host + "/acme\n    mode: require\n    keys: [" + pub + "]\n"
	if err := os.WriteFile(filepath.Join(home, "trust.yaml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr lockedBuffer
	go func() {
		done <- executeTest(t, ctx, []string{"mcp", "--dir", proj, "--runtime", "claude-code"}, &IOStreams{In: inR, Out: outW, ErrOut: &stderr})
		outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		<-done
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	call := func() *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "Skill", Arguments: map[string]any{"name": "incident-postmortem"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call(); res.IsError {
		t.Fatalf("a verified skill was refused: %s", mcpText(res))
	}
	skill := filepath.Join(proj, ".claude", "skills", "incident-postmortem")
	if err := os.WriteFile(filepath.Join(skill, "MEMORY.md"), []byte("# Memory\n\nforged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := call()
	if !res.IsError || !strings.Contains(mcpText(res), "MEMORY.md changed") || strings.Contains(mcpText(res), "forged") {
		t.Fatalf("a forged MEMORY.md was not refused: error=%v %s", res.IsError, mcpText(res))
	}
}
