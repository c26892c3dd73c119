package main

import (
	"path/filepath"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
)

// A pull asks the registry for each thing once: the manifest by its tag
// (one GET, which gives its digest too), the config and the layer. Storing the package after resolving
// it reuses the manifest and config already fetched and checked, rather
// than looking the package up and fetching them again; with -o the layer
// streams into the store and the extractor in the same GET.
func TestPullFetchesEachBlobOnce(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	pushExamples(t, reg.Host+"/acme/skills:1.0.0")
	for name, extra := range map[string][]string{"to the store": nil, "with -o": {"-o", "skills"}} {
		t.Run(name, func(t *testing.T) {
			useHome(t)
			args := []string{"pull", reg.Host + "/acme/skills:1.0.0"}
			for _, a := range extra {
				if a == "skills" {
					a = filepath.Join(t.TempDir(), a)
				}
				args = append(args, a)
			}
			reg.ResetRequests()
			if r := runStax(t, args...); r.Code != 0 {
				t.Fatalf("pull: exit %d %s", r.Code, r.Stderr)
			}
			requests := reg.Requests()
			seen := map[string]bool{}
			for _, q := range requests {
				t.Logf("%s %s -> %d", q.Method, q.Path, q.Status)
				if seen[q.Method+" "+q.Path] {
					t.Errorf("%s %s asked twice", q.Method, q.Path)
				}
				seen[q.Method+" "+q.Path] = true
			}
			if len(requests) != 3 {
				t.Errorf("the pull made %d requests, want 3: the manifest by tag, the config, the layer", len(requests))
			}
		})
	}
}
