package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/registrytest"
)

// A blob PUT that fails after the registry read the whole body is retried,
// and the retry carries the whole body again: the upload stream is rewound.
func TestRetriedUploadResendsTheBody(t *testing.T) {
	t.Parallel()
	fault := registrytest.FailAfterBody(http.MethodPut, "/blobs/uploads/", http.StatusServiceUnavailable)
	reg := registrytest.New(t, registrytest.WithFaults(fault))
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	if fault.Hits() != 1 {
		t.Fatalf("fault hit %d times", fault.Hits())
	}
	// Blobs upload concurrently: follow the failed PUT's own upload URL.
	var failed, retried *registrytest.Request
	for _, req := range reg.Requests() {
		if req.Method != http.MethodPut || !strings.Contains(req.Path, "/blobs/uploads/") {
			continue
		}
		switch {
		case req.Fault == "fail-after-body":
			failed = &req
		case failed != nil && req.Path == failed.Path && req.Query == failed.Query:
			retried = &req
		}
	}
	if failed == nil || retried == nil {
		t.Fatalf("no failed and retried blob PUT in %+v", reg.Requests())
	}
	if failed.BodyBytes == 0 || retried.BodyBytes != failed.BodyBytes || retried.Status != http.StatusCreated {
		t.Errorf("retry sent %d bytes (status %d) after the failed %d", retried.BodyBytes, retried.Status, failed.BodyBytes)
	}
	// And what landed is intact.
	out := filepath.Join(t.TempDir(), "skills")
	useHome(t)
	if r := runStax(t, "pull", pushed.Reference, "-o", out); r.Code != 0 {
		t.Fatalf("pull: %s", r.Stderr)
	}
	assertSameTree(t, filepath.Join(examples, "skills"), out)
}

func TestRetriesTransientFailures(t *testing.T) {
	t.Parallel()
	for _, fault := range []*registrytest.Fault{
		registrytest.Fail(http.MethodGet, "/manifests/", http.StatusTooManyRequests).RetryAfter(1),
		registrytest.Fail(http.MethodPost, "/blobs/uploads/", http.StatusBadGateway).Times(2),
		registrytest.ResetConn(http.MethodGet, "/blobs/"),
	} {
		reg := registrytest.New(t)
		useHome(t)
		pushExamples(t, reg.Host+"/acme/skills:1.0.0")
		reg.AddFaults(fault)
		useHome(t)
		out := filepath.Join(t.TempDir(), "skills")
		// The waits before the retries are recorded, not slept.
		clock := registrytest.NewClock(time.Now())
		r := runStaxOnClock(t, clock, "pull", reg.Host+"/acme/skills:1.0.0", "-o", out)
		if r.Code != 0 {
			t.Fatalf("pull through a transient fault: %d %s", r.Code, r.Stderr)
		}
		// POST faults only bite on push: push too, to exercise them.
		r = runStaxOnClock(t, clock, "push", examples, reg.Host+"/other/skills:1.0.0")
		if r.Code != 0 {
			t.Fatalf("push through a transient fault: %d %s", r.Code, r.Stderr)
		}
		if fault.Hits() == 0 {
			t.Errorf("fault %+v never fired", fault)
		}
	}
}

func TestRegistryErrors(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	layer := pushed.Layers[0].Digest

	t.Run("tag not found", func(t *testing.T) {
		useHome(t)
		r := runStax(t, "pull", reg.Host+"/acme/skills:9.9.9")
		if r.Code != 3 || !strings.Contains(r.Stderr, reg.Host+"/acme/skills:9.9.9 not found on "+reg.Host) {
			t.Errorf("exit %d %s", r.Code, r.Stderr)
		}
	})
	t.Run("corrupted layer", func(t *testing.T) {
		useHome(t)
		fault := registrytest.CorruptBlob("acme/skills", layer).Times(-1)
		reg.AddFaults(fault)
		out := filepath.Join(t.TempDir(), "skills")
		r := runStax(t, "pull", reg.Host+"/acme/skills:1.0.0", "-o", out)
		if r.Code != 6 || !strings.Contains(r.Stderr, "does not match its digest") || !strings.Contains(r.Stderr, layer.String()) {
			t.Errorf("exit %d %s", r.Code, r.Stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("output directory written after a failed pull: %v", err)
		}
		if r := runStax(t, "resolve", reg.Host+"/acme/skills:1.0.0", "--offline", "--output", "json"); strings.Contains(r.Stdout, `"source": "local"`) {
			t.Error("a failed pull tagged the package in the local store")
		}
		fault.Times(0)
	})
	t.Run("registry gone", func(t *testing.T) {
		useHome(t)
		gone := registrytest.New(t)
		gone.Stop()
		r := runStax(t, "pull", gone.Host+"/acme/skills:1.0.0")
		if r.Code != 3 || !strings.Contains(r.Stderr, "cannot reach "+gone.Host) {
			t.Errorf("exit %d %s", r.Code, r.Stderr)
		}
	})
	t.Run("not a stax package", func(t *testing.T) {
		useHome(t)
		pushForeign(t, reg.Host+"/acme/image:1", "application/vnd.oci.image.config.v1+json", "")
		r := runStax(t, "pull", reg.Host+"/acme/image:1")
		if r.Code != 1 || !strings.Contains(r.Stderr, "not a stax package") {
			t.Errorf("exit %d %s", r.Code, r.Stderr)
		}
	})
	t.Run("over the size limit", func(t *testing.T) {
		useHome(t)
		reg.ResetRequests()
		r := runStax(t, "pull", reg.Host+"/acme/skills:1.0.0", "--max-size", "100B")
		if r.Code != 1 || !strings.Contains(r.Stderr, "--max-size") {
			t.Errorf("exit %d %s", r.Code, r.Stderr)
		}
		for _, req := range reg.Requests() {
			if strings.HasSuffix(req.Path, layer.String()) {
				t.Errorf("fetched the layer of a refused package: %+v", req)
			}
		}
	})
}

// Packages from other stax writers label themselves agents; stax reads
// their skills layer, with a notice.
func TestPullAgentLabelledPackage(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushForeign(t, reg.Host+"/other/agent:1", "application/vnd.stax.config.v1+json", "application/vnd.stax.agent.v1")
	out := filepath.Join(t.TempDir(), "skills")
	r := runStax(t, "pull", reg.Host+"/other/agent:1", "-o", out)
	if r.Code != 0 || !strings.Contains(r.Stderr, "notice:") || !strings.Contains(r.Stderr, "agent") {
		t.Fatalf("exit %d %s", r.Code, r.Stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "hello", "SKILL.md"))
	if err != nil || !strings.Contains(string(data), "name: hello") {
		t.Errorf("skill not extracted: %v %q", err, data)
	}
}

func TestProgressOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	for _, tt := range []struct {
		tty  bool
		args []string
		bars bool
	}{
		{tty: true, bars: true},
		{tty: false, bars: false},
		{tty: true, args: []string{"--no-progress"}, bars: false},
	} {
		useHome(t)
		args := append([]string{"push", examples, reg.Host + "/acme/progress:1"}, tt.args...)
		r := runStaxWith(t, &IOStreams{In: strings.NewReader(""), ErrTTY: tt.tty}, args...)
		if r.Code != 0 {
			t.Fatalf("push: %s", r.Stderr)
		}
		if got := strings.Contains(r.Stderr, "skills.tar.gz"); got != tt.bars {
			t.Errorf("tty=%v %v: bars drawn = %v\n%s", tt.tty, tt.args, got, r.Stderr)
		}
		if strings.Contains(r.Stdout, "skills.tar.gz") {
			t.Error("progress on stdout")
		}
	}
}

// A config whose skill paths point outside the output is refused before
// anything is fetched or written.
func TestPullRefusesHostileConfig(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	layer := pushed.Layers[0]
	cfg := []byte(`{"adapter":{},"kind":"package","name":"evil","skills":[{"description":"x","digest":"` + goldenExamplesDigest +
		`","name":"x","path":"../../../../etc"}],"specVersion":"1.0.0","version":"1"}`)
	pushRawPackage(t, reg.Host+"/evil/skills", "1", cfg, layer)

	out := filepath.Join(t.TempDir(), "out")
	r := runStax(t, "pull", reg.Host+"/evil/skills:1", "-o", out)
	if r.Code != 5 || !strings.Contains(r.Stderr, "cannot be a skill directory name") {
		t.Errorf("exit %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("output written for a hostile package")
	}
}

// inspect shows a package whose skills do not hash to what its config
// records, and fails verification.
func TestInspectFailsOnSkillDigestMismatch(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	wrong := "sha256:" + strings.Repeat("0", 64)
	cfg := []byte(`{"adapter":{},"kind":"package","name":"liar","skills":[{"description":"x","digest":"` + wrong +
		`","name":"review-pr","path":"review-pr"}],"specVersion":"1.0.0","version":"1"}`)
	pushRawPackage(t, reg.Host+"/liar/skills", "1", cfg, pushed.Layers[0])
	if r := runStax(t, "pull", reg.Host+"/liar/skills:1"); r.Code != 0 {
		t.Fatalf("pull into the store: %d %s", r.Code, r.Stderr)
	}
	r := runStax(t, "inspect", reg.Host+"/liar/skills:1", "--offline")
	if r.Code != 6 || !strings.Contains(r.Stdout, "DIGEST MISMATCH") || !strings.Contains(r.Stderr, "does not match the config digest") {
		t.Errorf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	// And the merge refuses to install it.
	r = runStax(t, "pull", reg.Host+"/liar/skills:1", "-o", filepath.Join(t.TempDir(), "out"))
	if r.Code != 6 {
		t.Errorf("pull -o of a lying package: %d %s", r.Code, r.Stderr)
	}
}
