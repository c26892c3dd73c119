package reference

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	const d = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	tests := []struct {
		in                     string
		layout, reg, repo, tag string
		digest                 string
		familiar               string
	}{
		{in: "ghcr.io/org/skills:1.0.0", reg: "ghcr.io", repo: "org/skills", tag: "1.0.0", familiar: "ghcr.io/org/skills:1.0.0"},
		{in: "ghcr.io/org/skills@" + d, reg: "ghcr.io", repo: "org/skills", digest: d, familiar: "ghcr.io/org/skills@" + d},
		{in: "org/skills", reg: "docker.io", repo: "org/skills", familiar: "org/skills"},
		{in: "skills:2", reg: "docker.io", repo: "library/skills", tag: "2", familiar: "skills:2"},
		{in: "docker.io/org/skills:1", reg: "docker.io", repo: "org/skills", tag: "1", familiar: "org/skills:1"},
		{in: "localhost:5000/team/skills:v1", reg: "localhost:5000", repo: "team/skills", tag: "v1", familiar: "localhost:5000/team/skills:v1"},
		{in: "127.0.0.1:5000/s:1@" + d, reg: "127.0.0.1:5000", repo: "s", tag: "1", digest: d, familiar: "127.0.0.1:5000/s:1@" + d},
		{in: "oci://ghcr.io/org/skills:1.0.0", reg: "ghcr.io", repo: "org/skills", tag: "1.0.0", familiar: "ghcr.io/org/skills:1.0.0"},
		{in: "oci://localhost:5000/s@" + d, reg: "localhost:5000", repo: "s", digest: d, familiar: "localhost:5000/s@" + d},
		{in: "oci:./out", layout: "./out", familiar: "oci:./out"},
		{in: "oci:/tmp/layout:1.0.0", layout: "/tmp/layout", tag: "1.0.0", familiar: "oci:/tmp/layout:1.0.0"},
		{in: "oci:dir@" + d, layout: "dir", digest: d, familiar: "oci:dir@" + d},
		{in: "oci:a:b/c", layout: "a:b/c", familiar: "oci:a:b/c"},
		{in: "oci:/x/org:1.0.0@" + d, layout: "/x/org", tag: "1.0.0", digest: d, familiar: "oci:/x/org:1.0.0@" + d},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got.Layout != tt.layout || got.Registry != tt.reg || got.Repository != tt.repo || got.Tag != tt.tag || string(got.Digest) != tt.digest {
				t.Errorf("Parse(%q) = %+v", tt.in, got)
			}
			if f := got.Familiar(); f != tt.familiar {
				t.Errorf("Familiar() = %q, want %q", f, tt.familiar)
			}
			again, err := Parse(got.String())
			if err != nil || again != got {
				t.Errorf("String() %q does not round-trip: %+v, %v", got.String(), again, err)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "empty reference"},
		{"ghcr.io/Org/Skills:1", `must be lowercase (GHCR and most registries reject uppercase); use "ghcr.io/org/skills:1"`},
		{"Foo/Bar:1", `use "foo/bar:1"`},
		{"localhost:5000/Team/S:V1", `use "localhost:5000/team/s:V1"`},
		{"org/skills@sha256:abc", "@sha256:<64 hex digits>"},
		// A version after @, as npm writes it, is a tag or a range.
		{"ghcr.io/acme/tools@1.0.0", `a version is a tag, written after ":" (ghcr.io/acme/tools:1.0.0), or a range given with --version (stax add ghcr.io/acme/tools --version ^1.0.0)`},
		{"ghcr.io/acme/tools@^1.2.0", `a range given with --version (stax add ghcr.io/acme/tools --version '^1.2.0')`},
		{"ghcr.io/acme/tools@latest", `a tag is written after ":" (ghcr.io/acme/tools:latest)`},
		{"https://ghcr.io/acme/tools:1.0", `write it without "https://": ghcr.io/acme/tools:1.0`},
		{"org/skills:bad tag", "tag \"bad tag\" may hold only"},
		{"oci:", "no directory"},
		{"oci://skills:1", "with the registry's host"},
		{"oci://org/skills:1", "with the registry's host"},
		{"oci://", "with the registry's host"},
		{"oci:dir@sha256:zz", "digest"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := Parse(tt.in)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse(%q) error = %v, want one containing %q", tt.in, err, tt.want)
			}
		})
	}
}

// A reference written with credentials, as a URL carries them, is
// quoted and given back without them: an error message ends up in logs.
func TestParseErrorsMaskCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"https://bob:s3cr3t@ghcr.io/acme/x:1.0":   `"https://***@ghcr.io/acme/x:1.0"`,
		"http://bob:s3cr3t@localhost:5000/x":      `"http://***@localhost:5000/x"`,
		"oci://bob:s3cr3t@ghcr.io/acme/x:1.0":     `"***@ghcr.io/acme/x:1.0"`,
		"bob:s3cr3t@ghcr.io/acme/x:1.0":           `"***@ghcr.io/acme/x:1.0"`,
		"s3cr3t@ghcr.io/acme/x@1.0.0":             `"***@ghcr.io/acme/x@1.0.0"`,
		"https://s3cr3t@ghcr.io/acme/Tools:1.0":   `"https://***@ghcr.io/acme/Tools:1.0"`,
		"bob:s3cr3t@ghcr.io/acme/x:bad tag":       `"***@ghcr.io/acme/x:bad tag"`,
		"https://bob:s3cr3t@ghcr.io/acme/x@1.0.0": `"https://***@ghcr.io/acme/x@1.0.0"`,
	} {
		_, err := Parse(in)
		if !errors.Is(err, ErrInvalid) || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) error = %v, want one quoting %s and no credentials", in, err, want)
		}
		if err != nil && !strings.Contains(err.Error(), "stax login") {
			t.Errorf("Parse(%q) error = %v, want the way to give credentials (stax login)", in, err)
		}
	}
}

func TestInvalidTagSaysWhy(t *testing.T) {
	for tag, want := range map[string]string{
		strings.Repeat("a", 129): "is 129 characters long; a tag has at most 128",
		".hidden":                "starts with .",
		"a+b":                    "may hold only letters, digits, _, . and -",
	} {
		_, err := Parse("localhost:5000/acme/skills:" + tag)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("tag %q: %v; want %q", tag, err, want)
		}
	}
}

func TestNamesHost(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"ghcr.io/org/skills:1":     true,
		"localhost:5000/skills":    true,
		"localhost/skills":         true,
		"127.0.0.1:5000/s@sha256:": true,
		"docker.io/library/skills": true,
		"oci://ghcr.io/org/skills": true,
		"skills":                   false,
		"skills:1.0.0":             false,
		"org/skills:1.0.0":         false,
		"team-skils:0.1.0":         false,
		"localhost":                false,
		"ghcr.io":                  false,
	}
	for in, want := range tests {
		if got := NamesHost(in); got != want {
			t.Errorf("NamesHost(%q) = %v, want %v", in, got, want)
		}
	}
}

// A reference with a tag and a version after "@" is told how a digest is
// written, not to write the version as a second tag (tools:1.0:1.0.0).
func TestParseTagAndVersionAfterAt(t *testing.T) {
	_, err := Parse("ghcr.io/acme/tools:1.0@1.0.0")
	if err == nil || !strings.HasSuffix(err.Error(), "a digest is written @sha256:<64 hex digits>") {
		t.Errorf("Parse of a tag and a version after @: %v, want only how a digest is written", err)
	}
}
