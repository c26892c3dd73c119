package main

import (
	"github.com/stax-dev/stax/pkg/workflow"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

// A directory built by inspect and resolve gets the digest pack gives it:
// the same build options, SOURCE_DATE_EPOCH included.
func TestDirectoryDigestSameInEveryCommand(t *testing.T) {
	t.Parallel()
	useHome(t)
	setenv(t, "SOURCE_DATE_EPOCH", "1700000000")
	dir := filepath.Join(t.TempDir(), "pkg")
	copyTree(t, examples, dir)
	packed := runStax(t, "pack", dir, "-t", "oci:"+t.TempDir())
	if packed.Code != 0 {
		t.Fatalf("pack: %d %s", packed.Code, packed.Stderr)
	}
	want := strings.TrimSpace(packed.Stdout)
	resolved := runStax(t, "resolve", dir)
	if got := strings.TrimSpace(resolved.Stdout); resolved.Code != 0 || got != want {
		t.Errorf("resolve DIR: %q (exit %d %s), pack: %q", got, resolved.Code, resolved.Stderr, want)
	}
	var inspected workflow.InspectResult
	r := runStax(t, "inspect", dir, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("inspect: %d %s", r.Code, r.Stderr)
	}
	decodeJSON(t, r.Stdout, &inspected)
	if got := inspected.Descriptor.Digest.String(); got != want {
		t.Errorf("inspect DIR: %s, pack: %s", got, want)
	}
}

// bigPackage is a package directory whose skills layer is over the
// default 64 MiB limit (a sparse file: cheap to write, cheap to gzip). Its
// first byte is not UTF-8, so the file is binary, as a large asset is, and
// validation does not scan all of it for hidden text.
func bigPackage(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "big")
	filetest.WriteFile(t, filepath.Join(dir, "stax.yaml"), "name: big\nversion: 1.0.0\n")
	writeSkillFiles(t, filepath.Join(dir, "skills"), map[string]string{"large/SKILL.md": skillMD("large", "Large.")})
	f, err := os.Create(filepath.Join(dir, "skills", "large", "assets", "blob.bin"))
	if os.IsNotExist(err) {
		os.MkdirAll(filepath.Join(dir, "skills", "large", "assets"), 0o755)
		f, err = os.Create(filepath.Join(dir, "skills", "large", "assets", "blob.bin"))
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{0xff}); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(65 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return dir
}

// --max-size is the one limit of a command: inspect builds a directory
// with it, push checks the release it follows with it, and validate
// --against reads the published package with it.
func TestMaxSizeReachesEveryBuildAndRead(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	useHome(t)
	dir := bigPackage(t)
	packed := runStax(t, "pack", dir, "--max-size", "200MiB")
	if packed.Code != 0 {
		t.Fatalf("pack: %d %s", packed.Code, packed.Stderr)
	}
	// One byte formatter: the large-file warning says MiB, as the size
	// limit does.
	if !strings.Contains(packed.Stderr, "65.0 MiB") || strings.Contains(packed.Stderr, " MB") {
		t.Errorf("sizes not in MiB: %s", packed.Stderr)
	}
	if r := runStax(t, "inspect", dir, "--max-size", "200MiB"); r.Code != 0 {
		t.Errorf("inspect DIR --max-size 200MiB: exit %d %s", r.Code, r.Stderr)
	}
	ref := reg.Host + "/acme/big:1.0.0"
	if r := runStax(t, "push", dir, ref, "--max-size", "200MiB"); r.Code != 0 {
		t.Fatalf("push: %d %s", r.Code, r.Stderr)
	}
	// A changed skill makes push read the published layer it follows.
	filetest.WriteFile(t, filepath.Join(dir, "skills", "large", "SKILL.md"), skillMD("large", "Larger."))
	if r := runStax(t, "push", dir, ref, "--max-size", "200MiB"); r.Code != 0 {
		t.Errorf("push again --max-size 200MiB: exit %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "validate", filepath.Join(dir, "skills"), "--against", ref, "--max-size", "200MiB"); r.Code != 0 {
		t.Errorf("validate --against --max-size 200MiB: exit %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runStax(t, "validate", filepath.Join(dir, "skills"), "--against", ref); r.Code == 0 {
		t.Errorf("validate --against a package over the default limit passed: %s", r.Stderr)
	}
}

// A name that is a directory is a directory to every command, install
// and pull included, and relative to where stax runs, not to --dir.
func TestDirectoryRuleSameInEveryCommand(t *testing.T) {
	useHome(t)
	work := t.TempDir()
	copyTree(t, examples, filepath.Join(work, "base"))
	project := t.TempDir()
	t.Chdir(work)
	r := runStax(t, "install", "base", "--dir", project)
	if r.Code != 0 {
		t.Fatalf("install base (a directory here): exit %d %s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "base") || !strings.Contains(r.Stderr, "directory") {
		t.Errorf("no warning that base is both a directory and a reference: %s", r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(project, ".claude", "skills")); err != nil {
		t.Errorf("nothing installed: %v", err)
	}
	if r := runStax(t, "pull", "base", "-o", filepath.Join(t.TempDir(), "out")); r.Code != 0 {
		t.Errorf("pull base (a directory here): exit %d %s", r.Code, r.Stderr)
	}
	if r := runStax(t, "install", "./base", "--dir", project); r.Code != 0 {
		t.Errorf("install ./base, relative to the working directory: exit %d %s", r.Code, r.Stderr)
	}
}
