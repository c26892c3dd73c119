package main

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

// TestInstallLooksUpAProjectOfTenAtOnceByDefault: with no --concurrency,
// the ten packages of a project are looked up at once, as ten `oras pull`
// run side by side would: the registry answers a manifest only once all
// ten are asked for together. An install asking fewer at a time is held
// until its deadline, which fails the test; nothing is timed.
func TestInstallLooksUpAProjectOfTenAtOnceByDefault(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	const packages = 10
	refs := make([]string, packages)
	for i := range refs {
		name := fmt.Sprintf("s%d", i)
		dir := t.TempDir()
		filetest.Write(t, dir, map[string]string{
			"stax.yaml":                    "name: " + name + "\nversion: 1.0.0\n",
			"skills/" + name + "/SKILL.md": "---\nname: " + name + "\ndescription: A skill. Use when testing.\n---\nBody.\n",
		})
		refs[i] = fmt.Sprintf("%s/acme/%s:1.0.0", reg.Host, name)
		if r := runStax(t, "push", dir, refs[i]); r.Code != 0 {
			t.Fatalf("push %s: exit %d\n%s", refs[i], r.Code, r.Stderr)
		}
	}
	manifests := registrytest.Gate(http.MethodGet, `^/v2/acme/s\d/manifests/1\.0\.0$`, packages)
	reg.AddFaults(manifests)
	args := append([]string{"install", "--no-save", "--dir", t.TempDir(), "--runtime", "claude-code"}, refs...)
	r := runStaxWithin(t, time.Minute, args...)
	if !manifests.Released() {
		t.Fatalf("install asked for at most %d of the %d packages at once (exit %d), want all of them\n%s", manifests.MaxInFlight(), packages, r.Code, r.Stderr)
	}
	if r.Code != 0 {
		t.Fatalf("install: exit %d\n%s", r.Code, r.Stderr)
	}
}
