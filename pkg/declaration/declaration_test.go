package declaration

import (
	"errors"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/semver"
)

func TestParseKinds(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		kind    Kind
		remote  bool
		pkgName string
	}{
		"ghcr.io/acme/x:1.0.0": {Registry, true, "ghcr.io/acme/x"},
		"team-skills:1.0.0":    {Registry, false, "docker.io/library/team-skills"},
		"oci:./out:1":          {Layout, false, "oci:out"},
		"./shared/":            {Directory, false, "shared"},
		"..":                   {Directory, false, ".."},
		// A git repository's SUBDIR is the package, whatever its REF, and
		// its credentials are no part of its name.
		"github.com/acme/skills/tools#v1.0.0":            {Git, false, "git+https://github.com/acme/skills.git//tools"},
		"git+https://u:tok@git.example.com/a/b.git#main": {Git, false, "git+https://git.example.com/a/b.git"},
	}
	for written, want := range tests {
		d, err := Parse(written, Where{})
		if err != nil {
			t.Fatalf("%s: %v", written, err)
		}
		if d.Kind != want.kind || d.IsRemote() != want.remote || d.Package() != want.pkgName || d.String() != written {
			t.Errorf("%s: %v, remote %v, package %q; want %v, %v, %q", written, d.Kind, d.IsRemote(), d.Package(), want.kind, want.remote, want.pkgName)
		}
	}
	if _, err := Parse("Not A Reference", Where{}); !errors.Is(err, reference.ErrInvalid) {
		t.Errorf("an invalid reference: %v", err)
	}
}

// A layout is its directory, however the path to it is spelled: stax
// add and install save one named on the command line as ./PATH
// (source.Declaration), and stax remove oci:lay:1 must still find the
// oci:lay:1.0.0 a stax.yaml lists, as add must replace it.
func TestLayoutPackageIsItsDirectory(t *testing.T) {
	t.Parallel()
	for _, written := range []string{"oci:lay:1.0.0", "oci:./lay:2", "oci:lay/:1", "oci:./x/../lay"} {
		d, err := Parse(written, Where{})
		if err != nil {
			t.Fatalf("%s: %v", written, err)
		}
		if got := d.Package(); got != "oci:lay" {
			t.Errorf("%s: package %q, want oci:lay", written, got)
		}
	}
}

// A failure of a declaration written in a file names the file and line,
// keeping its class; one of the command line is left as it is.
func TestWrapNamesThePlace(t *testing.T) {
	t.Parallel()
	cause := errdefs.Resolution(errors.New("no version matches"))
	d, err := Parse("ghcr.io/acme/x", Where{File: "stax.yaml", Line: 7})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Wrap(cause); got.Error() != "stax.yaml:7: no version matches" || errdefs.Of(got) != errdefs.Unresolved {
		t.Errorf("Wrap = %v (%v)", got, errdefs.Of(got))
	}
	d.Where = Where{}
	if got := d.Wrap(cause); got != cause || d.Where.String() != CommandLine {
		t.Errorf("Wrap of the command line = %v, place %q", got, d.Where)
	}
	if got := (Where{File: "stax.lock"}).String(); got != "stax.lock" {
		t.Errorf("a place without a line = %q", got)
	}
}

func TestInRange(t *testing.T) {
	t.Parallel()
	rng, err := semver.ParseRange("^1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	for written, ok := range map[string]bool{"ghcr.io/acme/x": true, "ghcr.io/acme/x:1.0.0": false, "./dir": false} {
		d, err := Parse(written, Where{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.InRange(rng)
		if (err == nil) != ok || (ok && got.Range != rng) {
			t.Errorf("%s in ^1.0.0: %+v, %v", written, got, err)
		}
	}
}

// A git declaration takes a version range when it names no REF.
func TestInRangeGit(t *testing.T) {
	t.Parallel()
	rng, err := semver.ParseRange("^1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse("github.com/acme/skills", Where{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := d.InRange(rng); err != nil || got.Range != rng {
		t.Errorf("a range for a git repository: %v, %v", got.Range, err)
	}
	d, err = Parse("github.com/acme/skills#v1.0.0", Where{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.InRange(rng); err == nil {
		t.Error("a range for a git reference naming a REF was taken")
	}
}

// A git repository's URL written with credentials where stax takes it
// without them (https://USER:TOKEN@github.com/OWNER/REPO) is told how git
// takes them, not stax login, which gives a registry's: without printing
// them.
func TestParseGitURLWithCredentials(t *testing.T) {
	t.Parallel()
	_, err := Parse("https://bob:s3cr3t@github.com/anthropics/skills/tree/main/skills", Where{})
	if !errors.Is(err, gitsource.ErrInvalid) || strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "stax login") ||
		!strings.Contains(err.Error(), "git+https://USER:TOKEN@") || !strings.Contains(err.Error(), "write https://github.com/anthropics/skills/tree/main/skills,") {
		t.Errorf("Parse = %v; want a git reference error giving the forms git takes credentials in, and none printed", err)
	}
	if _, err := Parse("https://bob:s3cr3t@ghcr.io/acme/x:1.0", Where{}); !errors.Is(err, reference.ErrInvalid) || !strings.Contains(err.Error(), "stax login ghcr.io") {
		t.Errorf("Parse of a registry reference with credentials = %v; want stax login", err)
	}
}
