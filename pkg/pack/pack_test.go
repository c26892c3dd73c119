package pack

import (
	"errors"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/validate"
)

func TestCheckPublishable(t *testing.T) {
	tests := []struct {
		name string
		deps []artifact.PackageRef
		path string // the directory refused, "" for none
	}{
		{"no dependencies", nil, ""},
		{"references only", []artifact.PackageRef{{Ref: "ghcr.io/acme/base:1.0.0"}, {Ref: "oci:./out:1"}}, ""},
		{"a relative directory", []artifact.PackageRef{{Ref: "ghcr.io/acme/base:1.0.0"}, {Ref: "../base"}}, "../base"},
		{"an absolute directory", []artifact.PackageRef{{Ref: "/src/base"}}, "/src/base"},
	}
	for _, tt := range tests {
		err := CheckPublishable("team", tt.deps)
		var pathErr *PathDependencyError
		switch {
		case tt.path == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.path != "" && (!errors.As(err, &pathErr) || pathErr.Path != tt.path || errdefs.Of(err) != errdefs.Unresolved):
			t.Errorf("%s: %v (class %v), want the directory %s refused as unresolved", tt.name, err, errdefs.Of(err), tt.path)
		}
	}
}

func TestInvalidErrorCountsErrors(t *testing.T) {
	one := &InvalidError{Dir: "skills", Report: &validate.Report{Errors: []validate.Diagnostic{{Message: "bad"}}}}
	two := &InvalidError{Dir: "skills", Report: &validate.Report{Errors: []validate.Diagnostic{{Message: "a"}, {Message: "b"}}}}
	if !strings.Contains(one.Error(), "(1 error)") || !strings.Contains(two.Error(), "(2 errors)") {
		t.Errorf("counts: %q / %q", one.Error(), two.Error())
	}
}
