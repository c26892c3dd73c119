package target

import "testing"

func TestBareTag(t *testing.T) {
	tests := []struct {
		layout, arg, want string
	}{
		{"", "1.0.0", "1.0.0"},                           // no --oci-layout: a Docker Hub name, as given
		{"/l", "1.0.0", "oci:/l:1.0.0"},                  // a bare tag of the layout
		{"/l", "latest", "oci:/l:latest"},                //
		{"/l", "acme/skills", "acme/skills"},             // a repository
		{"/l", "skills:1.0.0", "skills:1.0.0"},           // a name and tag
		{"/l", "skills@sha256:abc", "skills@sha256:abc"}, // a digest
		{"/l", "-bad", "-bad"},                           // not a valid tag
	}
	for _, tt := range tests {
		o := &Opener{Layout: tt.layout}
		if got := o.BareTag(tt.arg); got != tt.want {
			t.Errorf("BareTag(%q) with layout %q = %q, want %q", tt.arg, tt.layout, got, tt.want)
		}
	}
}
