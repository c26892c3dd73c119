package main

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/registrytest"
)

// Helm writes a registry as oci://HOST/REPO:TAG; stax takes it as the
// registry reference it is, not as an OCI layout at /HOST/REPO.
func TestOCISchemeIsARegistryReference(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	strayLayout := "/" + reg.Host
	t.Cleanup(func() { os.RemoveAll(strayLayout) })

	pushed := pushExamples(t, "oci://"+reg.Host+"/acme/x:1.0.0")
	if _, err := os.Stat(strayLayout); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("push to oci://%s wrote a layout at %s on the local disk (%v)", reg.Host, strayLayout, err)
	}
	if r := runStax(t, "resolve", reg.Host+"/acme/x:1.0.0"); r.Code != 0 || strings.TrimSpace(r.Stdout) != pushed.Digest {
		t.Errorf("the registry does not hold the package pushed to oci://: exit %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runStax(t, "resolve", "oci://"+reg.Host+"/acme/x:1.0.0"); r.Code != 0 || strings.TrimSpace(r.Stdout) != pushed.Digest {
		t.Errorf("resolve oci://: exit %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
}
