package lock_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/declaration"
	"github.com/stax-dev/stax/pkg/lock"
	"github.com/stax-dev/stax/pkg/semver"
)

// A lock written before ranges (no range, version or tag) reads as it
// did, and one for a source whose range changed since is not followed.
func TestLockRanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := "lockVersion: 1\nsources:\n  - ghcr.io/acme/a:1.0.0\npackages:\n  - ref: ghcr.io/acme/a:1.0.0\n    digest: sha256:" + strings.Repeat("a", 64) + "\n"
	path := filepath.Join(dir, lock.FileName)
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := lock.Read(path)
	if err != nil || l.Packages[0].Ref != "ghcr.io/acme/a:1.0.0" || l.Packages[0].Range != "" {
		t.Fatalf("an older lock: %+v, %v", l, err)
	}
	if err := l.CheckRanges(nil); err != nil {
		t.Errorf("an older lock, no ranges: %v", err)
	}
	if err := l.CheckRanges(inRange(t, "ghcr.io/acme/a:1.0.0", "^1.0.0")); err == nil {
		t.Errorf("a range the lock was not written for was accepted")
	}

	ranged := &lock.Lock{LockVersion: lock.Version, Sources: []string{"ghcr.io/acme/b"},
		Packages: []lock.Package{{Ref: "ghcr.io/acme/b", Range: "^1.0.0", Version: "1.2.0", Tag: "v1.2.0", Digest: l.Packages[0].Digest}}}
	if _, err := ranged.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := lock.Read(path)
	if got, want := back.Packages[0], ranged.Packages[0]; err != nil || got.Range != want.Range || got.Version != want.Version || got.Tag != want.Tag || got.Digest != want.Digest {
		t.Fatalf("read back %+v, %v; want %+v", back.Packages, err, ranged.Packages[0])
	}
	if err := back.CheckRanges(inRange(t, "ghcr.io/acme/b", "^1.0.0")); err != nil {
		t.Errorf("the range locked: %v", err)
	}
	for _, ranges := range [][]declaration.Declaration{nil, inRange(t, "ghcr.io/acme/b", "^2.0.0")} {
		if err := back.CheckRanges(ranges); err == nil || !strings.Contains(err.Error(), "run stax install") {
			t.Errorf("ranges %v: %v, want a refusal", ranges, err)
		}
	}
}

// A lock whose range is the one stax.yaml asks for, but whose version that
// range does not allow (written by an older stax's update, or by hand), is
// not followed.
func TestCheckRangesRefusesAVersionOutOfItsRange(t *testing.T) {
	t.Parallel()
	l := &lock.Lock{LockVersion: lock.Version, Sources: []string{"ghcr.io/acme/b"},
		Packages: []lock.Package{{Ref: "ghcr.io/acme/b", Range: "^2.0.0", Version: "1.0.0", Tag: "1.0.0", Digest: digest.Digest("sha256:" + strings.Repeat("b", 64))}}}
	err := l.CheckRanges(inRange(t, "ghcr.io/acme/b", "^2.0.0"))
	if err == nil || !strings.Contains(err.Error(), "1.0.0") || !strings.Contains(err.Error(), "run stax install") {
		t.Errorf("a version out of its range: %v, want a refusal naming it", err)
	}
}

// inRange is the source written in the range rng, as stax.yaml declares
// it.
func inRange(t *testing.T, written, rng string) []declaration.Declaration {
	t.Helper()
	d, err := declaration.Parse(written, declaration.Where{File: "stax.yaml", Line: 3})
	if err != nil {
		t.Fatal(err)
	}
	if d.Range, err = semver.ParseRange(rng); err != nil {
		t.Fatal(err)
	}
	return []declaration.Declaration{d}
}
