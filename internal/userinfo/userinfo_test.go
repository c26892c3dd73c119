package userinfo

import "testing"

func TestMask(t *testing.T) {
	t.Parallel()
	if got := Mask("fatal: unable to access 'https://bob:tok3n@example.com/r.git/': 403"); got != "fatal: unable to access 'https://***@example.com/r.git/': 403" {
		t.Errorf("Mask = %q", got)
	}
}

func TestMaskReference(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://bob:tok3n@ghcr.io/acme/x:1.0": "https://***@ghcr.io/acme/x:1.0",
		"bob:tok3n@ghcr.io/acme/x:1.0":         "***@ghcr.io/acme/x:1.0",
		"tok3n@localhost:5000/x@1.0.0":         "***@localhost:5000/x@1.0.0",
		// An "@" after the repository is a digest's or a version's.
		"ghcr.io/acme/x@1.0.0":    "ghcr.io/acme/x@1.0.0",
		"tools:1.0@1.0.0":         "tools:1.0@1.0.0",
		"skills@sha256:abc":       "skills@sha256:abc",
		"oci:/x/org:1.0.0@sha256": "oci:/x/org:1.0.0@sha256",
	} {
		if got := MaskReference(in); got != want {
			t.Errorf("MaskReference(%q) = %q, want %q", in, got, want)
		}
	}
}
