package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
)

// mountRequests sorts the recorded blob-upload requests of reg into
// cross-repository mounts (POST ?mount=) by status, and the rest.
func mountRequests(reg *registrytest.Registry) (mounted, refused, others int) {
	for _, q := range reg.Requests() {
		switch {
		case q.Method == http.MethodPost && strings.Contains(q.Query, "mount="):
			if q.Status == http.StatusCreated {
				mounted++
			} else {
				refused++
			}
		case q.Method == http.MethodPost || q.Method == http.MethodPatch || q.Method == http.MethodPut:
			if strings.Contains(q.Path, "/blobs/uploads/") {
				others++
			}
		}
	}
	return mounted, refused, others
}

// Pushing a package to a second repository of a registry mounts its blobs
// from the first rather than uploading them again; a registry that refuses
// mounts gets them uploaded.
func TestPushToASecondRepositoryMounts(t *testing.T) {
	t.Parallel()
	home := useHome(t)
	reg := registrytest.New(t)
	pushExamples(t, reg.Host+"/acme/skills:1.0.0")

	reg.ResetRequests()
	pushExamples(t, reg.Host+"/other/skills:1.0.0")
	mounted, refused, others := mountRequests(reg)
	t.Logf("second repository: %d mounts, %d refused, %d other upload requests, %d requests in all", mounted, refused, others, len(reg.Requests()))
	if mounted != 2 || refused != 0 || others != 0 || reg.CountBlobUploads() != 2 {
		t.Errorf("second repository: %d mounted, %d refused, %d other upload requests (%d in all); want 2 mounts only",
			mounted, refused, others, reg.CountBlobUploads())
	}

	// A registry that answers a mount with an error gets the blob uploaded.
	reg.AddFaults(registrytest.Fail(http.MethodPost, "/blobs/uploads/", http.StatusMethodNotAllowed).WithQuery("mount=").Times(-1))
	reg.ResetRequests()
	pushExamples(t, reg.Host+"/third/skills:1.0.0")
	mounted, refused, others = mountRequests(reg)
	t.Logf("refusing registry: %d mounts, %d refused, %d other upload requests, %d requests in all", mounted, refused, others, len(reg.Requests()))
	if mounted != 0 || refused == 0 || others < 4 {
		t.Errorf("refusing registry: %d mounted, %d refused, %d upload requests; want refusals, then 2 uploads", mounted, refused, others)
	}
	out := filepath.Join(t.TempDir(), "out")
	if r := runStax(t, "pull", reg.Host+"/third/skills:1.0.0", "-o", out); r.Code != 0 {
		t.Fatalf("pull after refused mounts: %d %s", r.Code, r.Stderr)
	}
	assertSameTree(t, filepath.Join(examples, "skills"), out)

	// A record that is garbage is ignored, and replaced.
	if err := os.WriteFile(filepath.Join(home, "mounts.json"), []byte("{\"registries\": 7"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runStax(t, "push", examples, reg.Host+"/fourth/skills:1.0.0"); r.Code != 0 {
		t.Fatalf("push with a garbage record: %d %s", r.Code, r.Stderr)
	}
}
