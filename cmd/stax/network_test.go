package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/workflow"
)

// runStaxOnClock runs the CLI as runStax does, its registry waits timed by
// clock rather than slept through.
func runStaxOnClock(t *testing.T, clock registry.Clock, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := executeIn(context.Background(), args, &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, testEnvOf(t).environment(), clock)
	return result{Stdout: out.String(), Stderr: errOut.String(), Code: code}
}

// layerPath matches the GETs of the example package's skills layer in
// repository repo.
func layerPath(repo string, pushed workflow.Transfer) string {
	return "^/v2/" + regexp.QuoteMeta(repo) + "/blobs/" + regexp.QuoteMeta(pushed.Layers[0].Digest.String()) + "$"
}

// A connection that breaks while the layer is read is read again: resumed
// with Range where the registry serves ranges (distribution), started over
// where it does not (go-containerregistry), and verified over the whole.
func TestPullSurvivesBrokenReads(t *testing.T) {
	t.Parallel()
	for _, backend := range referrerRegistries {
		for _, tt := range []struct {
			name  string
			fault func(path string) *registrytest.Fault
		}{
			{"truncated", func(p string) *registrytest.Fault { return registrytest.Truncate(http.MethodGet, p).Times(2) }},
			{"reset mid-body", func(p string) *registrytest.Fault { return registrytest.ResetMidBody(http.MethodGet, p).Times(2) }},
		} {
			t.Run(backend.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				reg := registrytest.New(t, backend.opts...)
				useHome(t)
				pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
				fault := tt.fault(layerPath("acme/skills", pushed))
				reg.AddFaults(fault)
				useHome(t)
				out := filepath.Join(t.TempDir(), "skills")
				clock := registrytest.NewClock(time.Now())
				r := runStaxOnClock(t, clock, "pull", reg.Host+"/acme/skills:1.0.0", "-o", out)
				if r.Code != 0 {
					t.Fatalf("pull through a broken read: exit %d %s", r.Code, r.Stderr)
				}
				if fault.Hits() != 2 || len(clock.Waits()) != 2 {
					t.Errorf("fault hit %d times, waits %v; want 2 of each", fault.Hits(), clock.Waits())
				}
				assertSameTree(t, filepath.Join(examples, "skills"), out)
			})
		}
	}
}

// When every read breaks, the failure is the registry's (exit 3), and
// names the host.
func TestPullGivesUpOnBrokenReads(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	reg.AddFaults(registrytest.Truncate(http.MethodGet, layerPath("acme/skills", pushed)).Times(-1))
	useHome(t)
	clock := registrytest.NewClock(time.Now())
	r := runStaxOnClock(t, clock, "pull", reg.Host+"/acme/skills:1.0.0", "-o", filepath.Join(t.TempDir(), "skills"))
	if r.Code != 3 || !strings.Contains(r.Stderr, reg.Host) {
		t.Errorf("exit %d %s; want 3 naming %s", r.Code, r.Stderr, reg.Host)
	}
	// Four reads, three waits between them.
	if waits := clock.Waits(); len(waits) != 3 {
		t.Errorf("waited %v, want 3 waits", waits)
	}
}

// A reset while an upload body is being sent is retried, every time.
func TestPushSurvivesResetUploads(t *testing.T) {
	t.Parallel()
	for i := range 5 {
		fault := registrytest.ResetMidBody(http.MethodPut, "/blobs/uploads/").Times(2)
		reg := registrytest.New(t, registrytest.WithFaults(fault))
		useHome(t)
		clock := registrytest.NewClock(time.Now())
		r := runStaxOnClock(t, clock, "push", examples, reg.Host+"/acme/skills:1.0.0")
		if r.Code != 0 {
			t.Fatalf("trial %d: push through reset uploads: exit %d %s", i, r.Code, r.Stderr)
		}
		if fault.Hits() != 2 || len(clock.Waits()) != 2 {
			t.Errorf("trial %d: fault hit %d times, waits %v; want 2 of each", i, fault.Hits(), clock.Waits())
		}
	}
}

// A registry that accepts the connection and then stalls, before answering
// or in the middle of a body, fails the command once --timeout passes.
func TestPullTimesOutOnAStall(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, op string
		fault    func(p string) *registrytest.Fault
	}{
		{"before answering", "GET", func(p string) *registrytest.Fault { return registrytest.Stall(http.MethodGet, p).Times(-1) }},
		{"mid-body", "GET", func(p string) *registrytest.Fault { return registrytest.StallMidBody(http.MethodGet, p).Times(-1) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := registrytest.New(t)
			useHome(t)
			pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
			reg.AddFaults(tt.fault(layerPath("acme/skills", pushed)))
			useHome(t)
			r := runStax(t, "pull", reg.Host+"/acme/skills:1.0.0", "--timeout", "1s", "-o", filepath.Join(t.TempDir(), "skills"))
			if r.Code != 3 || !strings.Contains(r.Stderr, reg.Host) || !strings.Contains(r.Stderr, "for 1s") || !strings.Contains(r.Stderr, pushed.Layers[0].Digest.String()) {
				t.Errorf("exit %d %s; want 3 naming the host, the timeout and the blob", r.Code, r.Stderr)
			}
		})
	}
}

// Retry-After is honoured in both its forms: the wait is the one the
// registry asked for, and a message names it while waiting.
func TestRetryAfterBothForms(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name  string
		fault *registrytest.Fault
		want  time.Duration
	}{
		{"seconds", registrytest.Fail(http.MethodGet, "/manifests/", http.StatusTooManyRequests).RetryAfter(1), time.Second},
		{"HTTP date", registrytest.Fail(http.MethodGet, "/manifests/", http.StatusTooManyRequests).RetryAfterTime(now.Add(3 * time.Second)), 3 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := registrytest.New(t)
			useHome(t)
			pushExamples(t, reg.Host+"/acme/skills:1.0.0")
			reg.AddFaults(tt.fault)
			useHome(t)
			clock := registrytest.NewClock(now)
			r := runStaxOnClock(t, clock, "pull", reg.Host+"/acme/skills:1.0.0", "-o", filepath.Join(t.TempDir(), "skills"))
			if r.Code != 0 || tt.fault.Hits() != 1 {
				t.Fatalf("exit %d, fault hits %d: %s", r.Code, tt.fault.Hits(), r.Stderr)
			}
			if waits := clock.Waits(); !slices.Equal(waits, []time.Duration{tt.want}) {
				t.Errorf("waited %v, want %v", waits, tt.want)
			}
			if msg := fmt.Sprintf("%s asks to wait %s before retrying (429 Too Many Requests); waiting\n", reg.Host, tt.want); !strings.Contains(r.Stderr, msg) {
				t.Errorf("no message %q about the wait: %s", msg, r.Stderr)
			}
		})
	}
}

// A read failure at the source of a copy is the source's, not the
// destination's.
func TestCopyNamesTheFailingSide(t *testing.T) {
	t.Parallel()
	src := registrytest.New(t)
	dst := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, src.Host+"/acme/skills:1.0.0")
	src.AddFaults(registrytest.Truncate(http.MethodGet, layerPath("acme/skills", pushed)).Times(-1))
	r := runStaxOnClock(t, registrytest.NewClock(time.Now()), "copy", src.Host+"/acme/skills:1.0.0", dst.Host+"/acme/skills:1.0.0")
	if r.Code != 3 || !strings.Contains(r.Stderr, src.Host) || strings.Contains(r.Stderr, "registry "+dst.Host) {
		t.Errorf("exit %d %s; want 3 naming the source %s", r.Code, r.Stderr, src.Host)
	}
}

// An invalid reference is the user's to fix (exit 1) in every command,
// with the specific cause.
func TestInvalidReferenceExitsOneEverywhere(t *testing.T) {
	t.Parallel()
	useHome(t)
	bad := "localhost:5000/acme/skills:" + strings.Repeat("a", 129)
	for _, args := range [][]string{
		{"pull", bad},
		{"install", bad, "--dir", t.TempDir()},
		{"resolve", bad},
		{"inspect", bad},
		{"copy", bad, "oci:" + t.TempDir()},
		{"push", examples, bad},
	} {
		r := runStax(t, args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "129 characters") {
			t.Errorf("%s: exit %d %s; want 1 and the tag's length", args[0], r.Code, r.Stderr)
		}
	}
}

// A reference pasted with the credentials of a URL is refused without
// printing them, where a command quotes it and where stax.yaml gives it,
// with the login that gives them in their place.
func TestInvalidReferenceHidesCredentials(t *testing.T) {
	t.Parallel()
	useHome(t)
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "stax.yaml"), []byte("install:\n  sources:\n    - bob:s3cr3t@ghcr.io/acme/x:1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"pull", "https://bob:s3cr3t@ghcr.io/acme/x:1.0"},
		{"install", "s3cr3t@ghcr.io/acme/x:1.0", "--dir", t.TempDir()},
		{"install", "--dir", project},
		{"pull", "https://bob:s3cr3t@ghcr.io/acme/x:1.0", "--output", "json"},
	} {
		r := runStax(t, args...)
		if r.Code != 1 || strings.Contains(r.Stderr+r.Stdout, "s3cr3t") || !strings.Contains(r.Stderr, "stax login ghcr.io") {
			t.Errorf("%v: exit %d %s; want 1, no credentials, and stax login", args, r.Code, r.Stderr)
		}
	}
}

// A copy between two repositories of one registry mounts the blobs rather
// than downloading and uploading them.
func TestCopyWithinARegistryMounts(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	reg.ResetRequests()
	if r := runStax(t, "copy", reg.Host+"/acme/skills:1.0.0", reg.Host+"/mirror/skills:1.0.0"); r.Code != 0 {
		t.Fatalf("copy: %d %s", r.Code, r.Stderr)
	}
	mounts := 0
	for _, q := range reg.Requests() {
		switch {
		case q.Method == http.MethodPost && strings.Contains(q.Query, "mount=") && q.Status == http.StatusCreated:
			mounts++
		case q.Method == http.MethodPatch || q.Method == http.MethodPut && strings.Contains(q.Path, "/blobs/uploads/"):
			t.Errorf("uploaded a blob: %+v", q)
		case q.Method == http.MethodGet && strings.HasSuffix(q.Path, pushed.Layers[0].Digest.String()):
			t.Errorf("downloaded the layer: %+v", q)
		}
	}
	if mounts != 2 {
		t.Errorf("%d blobs mounted, want 2 (config and layer)", mounts)
	}
	if r := runStax(t, "pull", reg.Host+"/mirror/skills:1.0.0", "-o", filepath.Join(t.TempDir(), "out")); r.Code != 0 {
		t.Errorf("pull of the copy: %d %s", r.Code, r.Stderr)
	}
}

// --chunk-size uploads blobs in PATCH requests no larger than the chunk;
// the default is one request per blob.
func TestPushInChunks(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0", "--chunk-size", "1000B")
	patches := 0
	for _, q := range reg.Requests() {
		if q.Method == http.MethodPatch {
			patches++
			if q.BodyBytes > 1000 || q.Status != http.StatusAccepted {
				t.Errorf("PATCH of %d bytes, status %d", q.BodyBytes, q.Status)
			}
		}
		if q.Method == http.MethodPut && strings.Contains(q.Path, "/blobs/uploads/") && q.BodyBytes != 0 {
			t.Errorf("PUT with a body in a chunked upload: %+v", q)
		}
	}
	// The layer (3936 bytes) in 4 chunks, the config (1564) in 2.
	if patches != 6 {
		t.Errorf("%d PATCH requests, want 6", patches)
	}
	useHome(t)
	out := filepath.Join(t.TempDir(), "skills")
	if r := runStax(t, "pull", pushed.Reference, "-o", out); r.Code != 0 {
		t.Fatalf("pull: %d %s", r.Code, r.Stderr)
	}
	assertSameTree(t, filepath.Join(examples, "skills"), out)

	// A chunk lost to a reset is sent again.
	fault := registrytest.ResetConn(http.MethodPatch, "/blobs/uploads/")
	reg.AddFaults(fault)
	useHome(t)
	clock := registrytest.NewClock(time.Now())
	if r := runStaxOnClock(t, clock, "push", examples, reg.Host+"/other/skills:1.0.0", "--chunk-size", "1000B"); r.Code != 0 || fault.Hits() != 1 || len(clock.Waits()) != 1 {
		t.Errorf("chunked push through a reset: exit %d, hits %d, waits %v: %s", r.Code, fault.Hits(), clock.Waits(), r.Stderr)
	}
}

// Cosign's tag-based signatures and attestations (sha256-HEX.sig, .att)
// are copied with their subject, as regctl image copy --digest-tags does.
func TestCopyKeepsCosignTags(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	ctx := context.Background()
	repo := testRepository(t, reg.Host+"/acme/skills")
	tags := map[string]string{}
	for _, suffix := range []string{".sig", ".att"} {
		payload := []byte(`{"critical":{"image":{"docker-manifest-digest":"` + pushed.Digest + `"}}}` + suffix)
		layer := content.NewDescriptorFromBytes("application/vnd.dev.cosign.simplesigning.v1+json", payload)
		if err := repo.Push(ctx, layer, bytes.NewReader(payload)); err != nil {
			t.Fatal(err)
		}
		desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "application/vnd.dev.cosign.artifact", oras.PackManifestOptions{Layers: []ocispec.Descriptor{layer}})
		if err != nil {
			t.Fatal(err)
		}
		tag := "sha256-" + strings.TrimPrefix(pushed.Digest, "sha256:") + suffix
		if err := repo.Tag(ctx, desc, tag); err != nil {
			t.Fatal(err)
		}
		tags[tag] = desc.Digest.String()
	}
	layout := filepath.Join(t.TempDir(), "mirror")
	for _, dst := range []string{reg.Host + "/mirror/skills:1.0.0", "oci:" + layout + ":1.0.0"} {
		if r := runStax(t, "copy", reg.Host+"/acme/skills:1.0.0", dst); r.Code != 0 {
			t.Fatalf("copy to %s: %d %s", dst, r.Code, r.Stderr)
		}
	}
	mirror := testRepository(t, reg.Host+"/mirror/skills")
	for tag, want := range tags {
		if got, err := mirror.Resolve(ctx, tag); err != nil || got.Digest.String() != want {
			t.Errorf("mirror tag %s: %v %v, want %s", tag, got.Digest, err, want)
		}
		if r := runStax(t, "resolve", "oci:"+layout+":"+tag); strings.TrimSpace(r.Stdout) != want {
			t.Errorf("layout tag %s: %q %s", tag, r.Stdout, r.Stderr)
		}
	}
	// --no-referrers leaves them.
	if r := runStax(t, "copy", "--no-referrers", reg.Host+"/acme/skills:1.0.0", reg.Host+"/bare/skills:1.0.0"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	for tag := range tags {
		if _, err := testRepository(t, reg.Host+"/bare/skills").Resolve(ctx, tag); err == nil {
			t.Errorf("--no-referrers copied %s", tag)
		}
	}
}

// With --oci-layout DIR, a bare tag is a tag in that layout, as with oras
// and skopeo, not a Docker Hub name.
func TestOCILayoutBareTag(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	layout := filepath.Join(t.TempDir(), "layout")
	if r := runStax(t, "copy", reg.Host+"/acme/skills:1.0.0", "oci:"+layout+":1.0.0"); r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	r := runStax(t, "push", "1.0.0", reg.Host+"/from-layout/skills:1.0.0", "--oci-layout", layout, "--output", "json")
	if r.Code != 0 || !strings.Contains(r.Stdout, pushed.Digest) {
		t.Errorf("push of a bare tag from --oci-layout: exit %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	// copy names the layout's tags the same way, both ways.
	if r := runStax(t, "copy", reg.Host+"/acme/skills:1.0.0", "2.0.0", "--oci-layout", layout); r.Code != 0 {
		t.Fatalf("copy into a bare tag: %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "resolve", "oci:"+layout+":2.0.0"); strings.TrimSpace(r.Stdout) != pushed.Digest {
		t.Errorf("layout tag 2.0.0: %q %s", r.Stdout, r.Stderr)
	}
	if r := runStax(t, "pull", "2.0.0", "--oci-layout", layout, "-o", filepath.Join(t.TempDir(), "out")); r.Code != 0 {
		t.Errorf("pull of a bare tag: %d %s", r.Code, r.Stderr)
	}
}

// copy --with-dependencies makes a mirror that works cut off from the
// original registry: the packages are not rewritten, and their
// dependencies are found on the mirror first.
func TestCopyWithDependenciesMakesAMirror(t *testing.T) {
	t.Parallel()
	useHome(t)
	l := newLayering(t)
	mirror := registrytest.New(t)
	r := runStax(t, "copy", "--with-dependencies", l.team, mirror.Host+"/team/skills:1.4.0")
	if r.Code != 0 || !strings.Contains(r.Stderr, "Copied dependency") {
		t.Fatalf("copy --with-dependencies: %d %s", r.Code, r.Stderr)
	}
	l.reg.Stop() // the original registry is out of reach
	useHome(t)
	out := filepath.Join(t.TempDir(), "skills")
	if r := runStax(t, "pull", mirror.Host+"/team/skills:1.4.0", "-o", out); r.Code != 0 {
		t.Fatalf("pull from the mirror alone: %d %s", r.Code, r.Stderr)
	}
	for _, skill := range []string{"deploy", "lint", "team-only", "review-pr"} {
		if _, err := os.Stat(filepath.Join(out, skill, "SKILL.md")); err != nil {
			t.Errorf("skill %s missing from the mirror's pull: %v", skill, err)
		}
	}
	// A layout cannot hold the dependencies' repositories.
	if r := runStax(t, "copy", "--with-dependencies", mirror.Host+"/team/skills:1.4.0", "oci:"+t.TempDir()); r.Code != 1 {
		t.Errorf("--with-dependencies to a layout: %d %s", r.Code, r.Stderr)
	}
}
