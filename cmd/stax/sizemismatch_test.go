package main

import (
	"github.com/stax-dev/stax/pkg/workflow"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
)

// A registry that serves a blob or a manifest of another size than its
// descriptor says serves content that is not what was asked for: a
// verification failure (exit 6), not an unavailable registry (3), whether
// the body is longer or shorter, with a Content-Length or without, and
// whatever piece it is.
func TestPullSizeMismatchIsCorrupt(t *testing.T) {
	t.Parallel()
	for _, piece := range []struct {
		name string
		path func(pushed workflow.Transfer) string
	}{
		{"layer", func(pushed workflow.Transfer) string { return layerPath("acme/skills", pushed) }},
		{"manifest", func(pushed workflow.Transfer) string {
			return "^/v2/acme/skills/manifests/" + regexp.QuoteMeta(pushed.Digest) + "$"
		}},
	} {
		for _, tt := range []struct {
			name    string
			delta   int
			chunked bool
		}{
			{"shorter", -1, false}, {"longer", 1, false},
			{"shorter, chunked", -1, true}, {"longer, chunked", 1, true},
		} {
			t.Run(piece.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				reg := registrytest.New(t)
				useHome(t)
				pushed := pushExamples(t, reg.Host+"/acme/skills:1.0.0")
				fault := registrytest.ResizeBody(http.MethodGet, piece.path(pushed), tt.delta).Times(-1)
				if tt.chunked {
					fault.Chunked()
				}
				reg.AddFaults(fault)
				useHome(t)
				r := runStax(t, "pull", reg.Host+"/acme/skills@"+pushed.Digest, "-o", filepath.Join(t.TempDir(), "skills"))
				if fault.Hits() == 0 {
					t.Fatalf("the resized %s was never asked for: exit %d %s", piece.name, r.Code, r.Stderr)
				}
				if r.Code != 6 || !strings.Contains(r.Stderr, reg.Host) {
					t.Errorf("exit %d %s; want 6 naming %s", r.Code, r.Stderr, reg.Host)
				}
			})
		}
	}
}
