package staxyaml_test

import (
	"reflect"
	"testing"

	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/trustpolicy"
)

func TestTrustPolicyIsRelativeToTheProject(t *testing.T) {
	section := &trustpolicy.Policy{Mode: trustpolicy.ModeRequire, Keys: []string{"acme.pub"}}
	for _, c := range []struct {
		name string
		def  *staxyaml.Definition
		want *trustpolicy.Policy
	}{
		{"no project", nil, nil},
		{"no trust section", &staxyaml.Definition{}, nil},
		{"section", &staxyaml.Definition{Trust: section}, &trustpolicy.Policy{Mode: trustpolicy.ModeRequire, Keys: []string{"acme.pub"}, Dir: "/proj"}},
	} {
		if got := c.def.TrustPolicy("/proj"); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	if section.Dir != "" {
		t.Fatalf("TrustPolicy changed the definition's section: %+v", section)
	}
}
