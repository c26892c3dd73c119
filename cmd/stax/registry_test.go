package main

import (
	"context"
	"encoding/json"
	"github.com/stax-dev/stax/pkg/workflow"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

// pushExamples pushes the example package to ref and returns its result.
func pushExamples(t *testing.T, ref string, extra ...string) workflow.Transfer {
	t.Helper()
	r := runStax(t, append([]string{"push", examples, ref, "--output", "json"}, extra...)...)
	if r.Code != 0 {
		t.Fatalf("push %s: exit %d\n%s", ref, r.Code, r.Stderr)
	}
	var out workflow.Transfer
	decodeJSON(t, r.Stdout, &out)
	return out
}

// assertSameTree checks that got holds exactly the files and directories of
// want, with the same bytes and the same execute bits.
func assertSameTree(t *testing.T, want, got string) {
	t.Helper()
	list := func(root string) map[string]fs.FileInfo {
		m := map[string]fs.FileInfo{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			m[rel] = info
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	w, g := list(want), list(got)
	for rel, wi := range w {
		gi, ok := g[rel]
		if !ok {
			t.Errorf("%s missing", rel)
			continue
		}
		if wi.IsDir() != gi.IsDir() || wi.Mode()&0o111 != gi.Mode()&0o111 {
			t.Errorf("%s: mode %v, want %v", rel, gi.Mode(), wi.Mode())
		}
		if !wi.IsDir() {
			wb, _ := os.ReadFile(filepath.Join(want, rel))
			gb, _ := os.ReadFile(filepath.Join(got, rel))
			if string(wb) != string(gb) {
				t.Errorf("%s: content differs", rel)
			}
		}
	}
	for rel := range g {
		if _, ok := w[rel]; !ok {
			t.Errorf("%s: extra", rel)
		}
	}
}

func TestPushPullRoundTrip(t *testing.T) {
	t.Parallel()
	for _, backend := range referrerRegistries {
		t.Run(backend.name, func(t *testing.T) {
			t.Parallel()
			testPushPullRoundTrip(t, backend.opts...)
		})
	}
}

func testPushPullRoundTrip(t *testing.T, opts ...registrytest.Option) {
	reg := registrytest.New(t, opts...)
	useHome(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	pushed := pushExamples(t, ref)
	if pushed.Digest != goldenExamplesDigest {
		t.Errorf("pushed digest %s, want the reproducible %s", pushed.Digest, goldenExamplesDigest)
	}
	if pushed.Reference != ref+"@"+goldenExamplesDigest || pushed.Skills != 4 || len(pushed.Layers) != 1 {
		t.Errorf("push result %+v", pushed)
	}

	useHome(t) // a fresh machine
	out := filepath.Join(t.TempDir(), "skills")
	r := runStax(t, "pull", ref, "-o", out)
	if r.Code != 0 {
		t.Fatalf("pull: exit %d\n%s", r.Code, r.Stderr)
	}
	if strings.TrimSpace(r.Stdout) != ref+"@"+goldenExamplesDigest {
		t.Errorf("pull printed %q", r.Stdout)
	}
	assertSameTree(t, filepath.Join(examples, "skills"), out)

	// The pull landed in the local store under the full reference.
	if r := runStax(t, "resolve", ref); strings.TrimSpace(r.Stdout) != goldenExamplesDigest {
		t.Errorf("resolve after pull: %q %s", r.Stdout, r.Stderr)
	}
	// -o never writes over a directory that has content.
	r = runStax(t, "pull", ref, "-o", out)
	if r.Code == 0 || !strings.Contains(r.Stderr, out) {
		t.Errorf("pull into a non-empty directory: exit %d %s", r.Code, r.Stderr)
	}
}

// An unchanged re-push reads two small things and writes nothing: it lists
// the tags and resolves its own tag, which names the manifest it is about
// to push, so nothing else needs reading — no config for the
// stateful-file rule, no manifest or blob lookup, no upload, no manifest or
// tag PUT. On both registries the tests run against.
func TestRepushUploadsNoBlob(t *testing.T) {
	t.Parallel()
	for _, backend := range referrerRegistries {
		t.Run(backend.name, func(t *testing.T) {
			t.Parallel()
			testRepushUploadsNoBlob(t, backend.opts...)
		})
	}
}

// maxRepushRequests is what an unchanged re-push may ask: the tag list,
// and the manifest the tag names.
const maxRepushRequests = 2

func testRepushUploadsNoBlob(t *testing.T, opts ...registrytest.Option) {
	reg := registrytest.New(t, opts...)
	useHome(t)
	reg.ResetRequests()
	first := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	if first.Copied != 3 || first.Skipped != 0 {
		t.Errorf("first push copied %d, skipped %d; want 3 (layer, config, manifest) and 0", first.Copied, first.Skipped)
	}
	manifestPuts := 0
	for _, req := range reg.Requests() {
		if req.Method == http.MethodPut && strings.Contains(req.Path, "/manifests/") {
			manifestPuts++
		}
	}
	if manifestPuts != 1 {
		t.Errorf("first push PUT the manifest %d times, want once (by tag)", manifestPuts)
	}
	t.Logf("first push: %d requests", len(reg.Requests()))

	reg.ResetRequests()
	second := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	requests := reg.Requests()
	t.Logf("unchanged re-push: %d requests", len(requests))
	for _, q := range requests {
		t.Logf("  %s %s -> %d (%d bytes)", q.Method, q.Path, q.Status, q.ResponseBytes)
	}
	if len(requests) > maxRepushRequests {
		t.Errorf("an unchanged re-push made %d requests, want at most %d", len(requests), maxRepushRequests)
	}
	if n := reg.CountBlobUploads(); n != 0 {
		t.Errorf("second push uploaded %d blobs", n)
	}
	if second.Copied != 0 || second.Skipped != 1 || second.Digest != first.Digest || second.Skills != first.Skills {
		t.Errorf("second push: %+v; want 0 copied, 1 (the manifest) already there, and what the first pushed", second)
	}
	for _, req := range requests {
		switch {
		case req.Method != http.MethodGet && req.Method != http.MethodHead:
			t.Errorf("second push wrote: %+v", req)
		case strings.HasSuffix(req.Path, first.Layers[0].Digest.String()):
			t.Errorf("second push read the skills layer: %+v", req)
		}
	}
}

func TestPushAndPullByDigest(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	repo := reg.Host + "/acme/pinned"
	pushed := pushExamples(t, repo+"@"+goldenExamplesDigest)
	if pushed.Digest != goldenExamplesDigest {
		t.Fatalf("digest %s", pushed.Digest)
	}
	// No tag was created.
	if r := runStax(t, "resolve", repo+":1.0.0", "--remote"); r.Code != 3 || !strings.Contains(r.Stderr, "not found") {
		t.Errorf("a digest push created a tag? exit %d %s", r.Code, r.Stderr)
	}
	out := filepath.Join(t.TempDir(), "skills")
	r := runStax(t, "pull", repo+"@"+goldenExamplesDigest, "-o", out)
	if r.Code != 0 {
		t.Fatalf("pull by digest: %d %s", r.Code, r.Stderr)
	}
	if got := strings.TrimSpace(r.Stdout); got != repo+"@"+goldenExamplesDigest {
		t.Errorf("pull by digest printed %q, want the reference once pinned", got)
	}
	assertSameTree(t, filepath.Join(examples, "skills"), out)

	wrong := "sha256:" + strings.Repeat("0", 64)
	if r := runStax(t, "push", examples, repo+"@"+wrong); r.Code != 1 || !strings.Contains(r.Stderr, "pins "+wrong) {
		t.Errorf("push to a different digest: exit %d %s", r.Code, r.Stderr)
	}
}

func TestPushWithoutTagUsesVersion(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills")
	if !strings.HasPrefix(pushed.Reference, reg.Host+"/acme/skills:1.0.0@") {
		t.Errorf("reference %s", pushed.Reference)
	}
	if r := runStax(t, "resolve", "--remote", reg.Host+"/acme/skills:1.0.0"); strings.TrimSpace(r.Stdout) != goldenExamplesDigest {
		t.Errorf("resolve: %q %s", r.Stdout, r.Stderr)
	}
}

func TestPushStoredReference(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	if r := runStax(t, "pack", examples, "-t", "acme/skills:9"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	r := runStax(t, "push", "acme/skills:9", reg.Host+"/acme/skills:9")
	if r.Code != 0 || !strings.HasSuffix(strings.TrimSpace(r.Stdout), goldenExamplesDigest) {
		t.Fatalf("push stored: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	// A stored reference that is not there is the user's mistake, not the registry's.
	r = runStax(t, "push", "acme/nothing:1", reg.Host+"/acme/nothing:1")
	if r.Code != 1 || !strings.Contains(r.Stderr, "not in the local store") {
		t.Errorf("missing stored ref: %d %s", r.Code, r.Stderr)
	}
}

func TestInspectAndResolveRemoteDoNotFetchTheLayer(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	useHome(t)
	reg.ResetRequests()
	r := runStax(t, "inspect", reg.Host+"/acme/skills:1.0.0", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("inspect remote: %d %s", r.Code, r.Stderr)
	}
	var out workflow.InspectResult
	decodeJSON(t, r.Stdout, &out)
	if out.Source != "remote" || len(out.Skills) != 4 || out.Config.Name != "example-skills" {
		t.Errorf("inspect: source %s, %d skills", out.Source, len(out.Skills))
	}
	for _, s := range out.Skills {
		if s.Verified != nil || s.Digest == "" {
			t.Errorf("remote skill %s: verified %v digest %q", s.Name, s.Verified, s.Digest)
		}
	}
	layer := pushed.Layers[0].Digest.String()
	for _, req := range reg.Requests() {
		if strings.HasSuffix(req.Path, layer) && req.Method == http.MethodGet {
			t.Errorf("inspect downloaded the layer: %+v", req)
		}
	}
	r = runStax(t, "resolve", reg.Host+"/acme/skills:1.0.0", "--output", "json")
	var res workflow.ResolveResult
	decodeJSON(t, r.Stdout, &res)
	if res.Digest != goldenExamplesDigest || res.Source != "remote" {
		t.Errorf("resolve: %+v", res)
	}
}

// referrerRegistries are the two ways registries keep referrers: the
// referrers tag schema (distribution v3, which has no referrers API) and
// the OCI 1.1 referrers API (go-containerregistry's registry).
var referrerRegistries = []struct {
	name string
	opts []registrytest.Option
}{
	{"tag schema", nil},
	{"referrers API", []registrytest.Option{registrytest.WithReferrersAPI()}},
}

func TestCopyKeepsReferrers(t *testing.T) {
	t.Parallel()
	for _, backend := range referrerRegistries {
		t.Run(backend.name, func(t *testing.T) {
			t.Parallel()
			testCopyKeepsReferrers(t, backend.opts...)
		})
	}
}

func testCopyKeepsReferrers(t *testing.T, opts ...registrytest.Option) {
	reg := registrytest.New(t, opts...)
	useHome(t)
	src := reg.Host + "/acme/skills:1.0.0"
	pushed := pushExamples(t, src)
	sig := attachSignature(t, reg.Host+"/acme/skills", pushed)

	layout := filepath.Join(t.TempDir(), "mirror")
	for _, tt := range []struct{ dst, refs string }{
		{reg.Host + "/mirror/skills", reg.Host + "/mirror/skills"},
		{"oci:" + layout, ""},
	} {
		r := runStax(t, "copy", src, tt.dst)
		if r.Code != 0 {
			t.Fatalf("copy to %s: %d %s", tt.dst, r.Code, r.Stderr)
		}
		if tt.refs != "" {
			if got := referrers(t, tt.refs, pushed); len(got) != 1 || got[0] != sig {
				t.Errorf("referrers at %s = %v, want [%s]", tt.dst, got, sig)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(layout, "blobs", "sha256", strings.TrimPrefix(sig, "sha256:"))); err != nil {
		t.Errorf("signature not copied into the layout: %v", err)
	}
	// And back from the layout into another repository, signature included.
	if r := runStax(t, "copy", "oci:"+layout+":1.0.0", reg.Host+"/back/skills"); r.Code != 0 {
		t.Fatalf("copy from layout: %d %s", r.Code, r.Stderr)
	}
	if got := referrers(t, reg.Host+"/back/skills", pushed); len(got) != 1 {
		t.Errorf("referrers after layout round trip: %v", got)
	}
	if r := runStax(t, "copy", "--no-referrers", src, reg.Host+"/bare/skills"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	if got := referrers(t, reg.Host+"/bare/skills", pushed); len(got) != 0 {
		t.Errorf("--no-referrers copied %v", got)
	}
}

// TestCopyToRegistryThatRefusesDelete copies a package with two referrers
// to a registry without the referrers API that answers DELETE with 405,
// as GHCR does: the copy must not need to delete the old referrers index.
func TestCopyToRegistryThatRefusesDelete(t *testing.T) {
	t.Parallel()
	src := registrytest.New(t)
	dst := registrytest.New(t, registrytest.WithoutDelete())
	useHome(t)
	pushed := pushExamples(t, src.Host+"/acme/skills:1.0.0")
	sigs := map[string]bool{}
	// A second signature copied over the first makes the client replace
	// the destination's referrers index, whose old version it cannot delete.
	for i := range 2 {
		sigs[attachSignatureAt(t, src.Host+"/acme/skills", pushed, time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC))] = true
		r := runStax(t, "copy", src.Host+"/acme/skills:1.0.0", dst.Host+"/acme/skills:1.0.0")
		if r.Code != 0 {
			t.Fatalf("copy %d to a registry that refuses DELETE: exit %d %s", i+1, r.Code, r.Stderr)
		}
	}
	got := referrers(t, dst.Host+"/acme/skills", pushed)
	if len(got) != 2 || !sigs[got[0]] || !sigs[got[1]] {
		t.Errorf("referrers at the destination = %v, want %v", got, sigs)
	}
	if r := runStax(t, "pull", dst.Host+"/acme/skills:1.0.0", "-o", t.TempDir()); r.Code != 0 {
		t.Errorf("the copy was not tagged: %d %s", r.Code, r.Stderr)
	}
}

func referrers(t *testing.T, repoName string, subject workflow.Transfer) []string {
	t.Helper()
	repo := testRepository(t, repoName)
	var found []string
	desc, err := repo.Resolve(context.Background(), subject.Digest)
	if err != nil {
		t.Fatal(err)
	}
	err = repo.Referrers(context.Background(), desc, "", func(refs []ocispecDescriptor) error {
		for _, r := range refs {
			found = append(found, r.Digest.String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func TestLogin(t *testing.T) {
	t.Parallel()
	const user, password = "ci-bot", "s3cret-Pa55"
	reg := registrytest.New(t, registrytest.WithBasicAuth(user, password))
	useHome(t)
	config := filepath.Join(t.TempDir(), "docker", "config.json")
	ref := reg.Host + "/acme/skills:1.0.0"
	noSecret := func(r result) {
		t.Helper()
		if strings.Contains(r.Stdout+r.Stderr, password) {
			t.Errorf("output shows the password:\n%s%s", r.Stdout, r.Stderr)
		}
	}

	r := runStax(t, "push", examples, ref, "--registry-config", config)
	noSecret(r)
	want := "authentication required for " + reg.Host + ": run `stax login " + reg.Host + "`"
	if r.Code != 3 || !strings.Contains(r.Stderr, want) {
		t.Errorf("push without login: exit %d %s", r.Code, r.Stderr)
	}

	login := func(pw string) result {
		return runStaxWith(t, &IOStreams{In: strings.NewReader(pw + "\n")},
			"login", reg.Host, "-u", user, "--password-stdin", "--registry-config", config)
	}
	r = login("wrong")
	noSecret(r)
	if r.Code != 3 || !strings.Contains(r.Stderr, "did not accept the credentials for "+user) {
		t.Errorf("bad login: exit %d %s", r.Code, r.Stderr)
	}
	// A registry that cannot be reached is not a credentials problem.
	r = runStaxWith(t, &IOStreams{In: strings.NewReader("x\n")}, "login", "127.0.0.1:9", "-u", user, "--password-stdin", "--registry-config", config)
	if r.Code != 3 || !strings.Contains(r.Stderr, "cannot reach 127.0.0.1:9") || strings.Contains(r.Stderr, "did not accept") {
		t.Errorf("login to nowhere: exit %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(config); err == nil {
		t.Error("a rejected login saved credentials")
	}

	r = login(password)
	noSecret(r)
	if r.Code != 0 {
		t.Fatalf("login: %d %s", r.Code, r.Stderr)
	}
	info, err := os.Stat(config)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("config %v, mode %v; want 0600", err, info.Mode())
	}
	var cfg struct {
		Auths map[string]json.RawMessage `json:"auths"`
	}
	data, _ := os.ReadFile(config)
	if json.Unmarshal(data, &cfg) != nil || cfg.Auths[reg.Host] == nil {
		t.Errorf("credentials not saved for %s: %s", reg.Host, data)
	}

	r = runStax(t, "push", examples, ref, "--registry-config", config)
	noSecret(r)
	if r.Code != 0 {
		t.Fatalf("push after login: %d %s", r.Code, r.Stderr)
	}
	if r = runStax(t, "pull", ref, "--registry-config", config); r.Code != 0 {
		t.Errorf("pull after login: %d %s", r.Code, r.Stderr)
	}

	if r = runStax(t, "logout", reg.Host, "--registry-config", config); r.Code != 0 || !strings.Contains(r.Stderr, "Removed the credentials of "+reg.Host) {
		t.Fatalf("logout: %d %s", r.Code, r.Stderr)
	}
	if r = runStax(t, "pull", ref, "--registry-config", config); r.Code != 3 {
		t.Errorf("pull after logout: %d %s", r.Code, r.Stderr)
	}
	// Nothing left to remove: say so rather than claim a removal.
	if r = runStax(t, "logout", reg.Host, "--registry-config", config); r.Code != 0 || !strings.Contains(r.Stderr, "No credentials of "+reg.Host+" were saved") {
		t.Errorf("second logout: %d %s", r.Code, r.Stderr)
	}
}

func TestTokenAuth(t *testing.T) {
	t.Parallel()
	const user, password = "token-user", "t0ken-Pa55"
	reg := registrytest.New(t, registrytest.WithTokenAuth(user, password))
	useHome(t)
	config := filepath.Join(t.TempDir(), "config.json")
	r := runStaxWith(t, &IOStreams{In: strings.NewReader(password)},
		"login", reg.Host, "-u", user, "--password-stdin", "--registry-config", config)
	if r.Code != 0 {
		t.Fatalf("login with bearer tokens: %d %s", r.Code, r.Stderr)
	}
	pushExamples(t, reg.Host+"/acme/skills:1.0.0", "--registry-config", config)
	out := filepath.Join(t.TempDir(), "skills")
	if r := runStax(t, "pull", reg.Host+"/acme/skills:1.0.0", "-o", out, "--registry-config", config); r.Code != 0 {
		t.Fatalf("pull: %d %s", r.Code, r.Stderr)
	}
	assertSameTree(t, filepath.Join(examples, "skills"), out)
}

// A logged-in user whose token grants no push is told so, not told to log
// in.
func TestPushWithoutPushAccess(t *testing.T) {
	t.Parallel()
	const user, password = "reader", "r3ad-Only"
	reg := registrytest.New(t, registrytest.WithTokenAuth(user, password), registrytest.WithPullOnlyTokens())
	useHome(t)
	config := filepath.Join(t.TempDir(), "config.json")
	if r := runStaxWith(t, &IOStreams{In: strings.NewReader(password)},
		"login", reg.Host, "-u", user, "--password-stdin", "--registry-config", config); r.Code != 0 {
		t.Fatalf("login: %d %s", r.Code, r.Stderr)
	}
	r := runStax(t, "push", examples, reg.Host+"/acme/skills:1.0.0", "--registry-config", config)
	if r.Code != 3 || !strings.Contains(r.Stderr, "lack push access") || strings.Contains(r.Stderr, "stax login") {
		t.Errorf("exit %d %s; want 3 saying the credentials lack push access", r.Code, r.Stderr)
	}
}

// credHelpers in the Docker config name an executable that answers
// `get` on stdin; stax must use it rather than saved credentials.
func TestCredentialHelper(t *testing.T) {
	const user, password = "helper-user", "helper-Pa55"
	reg := registrytest.New(t, registrytest.WithBasicAuth(user, password))
	useHome(t)
	bin := t.TempDir()
	helper := "#!/bin/sh\n[ \"$1\" = get ] || exit 1\nread host\n" +
		"printf '{\"ServerURL\":\"%s\",\"Username\":\"" + user + "\",\"Secret\":\"" + password + "\"}' \"$host\"\n"
	filetest.WriteFile(t, filepath.Join(bin, "docker-credential-stax-test"), helper)
	if err := os.Chmod(filepath.Join(bin, "docker-credential-stax-test"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	config := filepath.Join(t.TempDir(), "config.json")
	filetest.WriteFile(t, config, `{"credHelpers":{"`+reg.Host+`":"stax-test"}}`)

	r := runStax(t, "push", examples, reg.Host+"/acme/skills:1.0.0", "--registry-config", config)
	if r.Code != 0 {
		t.Fatalf("push with a credential helper: %d %s", r.Code, r.Stderr)
	}
	if strings.Contains(r.Stdout+r.Stderr, password) {
		t.Error("output shows the helper's secret")
	}
}

// Pushing a package whose stateful files changed since what the
// destination holds, without a version bump, is refused with the fix.
func TestPushRefusesUnbumpedStatefulChanges(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	pushExamples(t, ref)

	dir := filepath.Join(t.TempDir(), "examples")
	copyTree(t, examples, dir)
	memory := filepath.Join(dir, "skills", "incident-postmortem", "MEMORY.md")
	data, err := os.ReadFile(memory)
	if err != nil {
		t.Fatal(err)
	}
	filetest.WriteFile(t, memory, string(data)+"\n- Timelines need UTC offsets. — @li, 2026-11-20\n")

	r := runStax(t, "push", dir, ref)
	if r.Code != 1 || !strings.Contains(r.Stderr, "version-not-bumped") || !strings.Contains(r.Stderr, "stax bump") || !strings.Contains(r.Stderr, "MEMORY.md") {
		t.Fatalf("unbumped push: exit %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "resolve", "--remote", ref); strings.TrimSpace(r.Stdout) != goldenExamplesDigest {
		t.Errorf("a refused push changed the tag: %s", r.Stdout)
	}
	// The next release is compared with the last one.
	next := reg.Host + "/acme/skills:1.0.1"
	r = runStax(t, "push", dir, next)
	if r.Code != 1 || !strings.Contains(r.Stderr, "version-not-bumped") || !strings.Contains(r.Stderr, "compared with "+ref) {
		t.Fatalf("unbumped release: exit %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "bump", filepath.Join(dir, "skills", "incident-postmortem")); r.Code != 0 {
		t.Fatalf("bump: %d %s", r.Code, r.Stderr)
	}
	for _, to := range []string{ref, next} {
		if r := runStax(t, "push", dir, to); r.Code != 0 {
			t.Fatalf("push to %s after bump: %d %s", to, r.Code, r.Stderr)
		}
	}
	// --against names the package to compare with outright.
	if r := runStax(t, "push", dir, reg.Host+"/other/skills:3.0.0", "--against", ref); r.Code != 0 {
		t.Errorf("push --against a bumped release: %d %s", r.Code, r.Stderr)
	}
	// A new repository has nothing to compare with.
	if r := runStax(t, "push", dir, reg.Host+"/fresh/skills:1.0.0"); r.Code != 0 {
		t.Errorf("push to a new repository: %d %s", r.Code, r.Stderr)
	}
}

// A registry over TLS with its own CA: refused until trusted, with --ca-file
// or --insecure. --plain-http=false asks for HTTPS on a loopback host.
func TestTLSRegistry(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t, registrytest.WithTLS())
	useHome(t)
	ref := reg.Host + "/acme/skills:1.0.0"
	ca := filepath.Join(t.TempDir(), "ca.pem")
	filetest.WriteFile(t, ca, string(reg.CACert))

	r := runStax(t, "push", examples, ref, "--plain-http=false")
	if r.Code != 3 || !strings.Contains(r.Stderr, "not trusted: pass --ca-file") {
		t.Errorf("untrusted certificate: exit %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "push", examples, ref, "--plain-http=false", "--ca-file", ca); r.Code != 0 {
		t.Fatalf("--ca-file: %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "resolve", "--remote", ref, "--plain-http=false", "--insecure"); strings.TrimSpace(r.Stdout) != goldenExamplesDigest {
		t.Errorf("--insecure: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	// Without the override, loopback means plain HTTP, which a TLS server refuses.
	if r := runStax(t, "resolve", "--remote", ref); r.Code != 3 || !strings.Contains(r.Stderr, "pass --plain-http=false") {
		t.Errorf("plain HTTP to a TLS registry: %d %s", r.Code, r.Stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad.pem")
	filetest.WriteFile(t, bad, "not a certificate")
	if r := runStax(t, "resolve", "--remote", ref, "--plain-http=false", "--ca-file", bad); r.Code != 1 || !strings.Contains(r.Stderr, "no PEM certificate") {
		t.Errorf("bad --ca-file: %d %s", r.Code, r.Stderr)
	}
}
