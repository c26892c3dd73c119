package staxyaml_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/staxyaml"
)

// A YAML error names the file and the line at fault, says what is wrong
// in the words of the file (keys, lists, strings) and never a Go type,
// and offers the known key nearest to a mistyped one.
func TestParseYAMLErrorsInTheUsersWords(t *testing.T) {
	t.Parallel()
	const header = "# stax package definition: https://github.com/stax-dev/stax#staxyaml\n"
	tests := []struct {
		name, body string
		want       string // the whole message after "stax.yaml: "
	}{
		{
			// yaml reports the line where the top-level mapping starts,
			// line 1 under stax init's comment.
			name: "bad indentation",
			body: header + "name: team\nversion: 1.0.0\n  skills: src\ninstall:\n  sources: [.]\n",
			want: "line 4: mapping values are not allowed in this context",
		},
		{
			name: "item dedented out of its list",
			body: header + "name: team\ninstall:\n  sources:\n    - ghcr.io/acme/a:1\n - ghcr.io/acme/b:1\n",
			want: "line 6: did not find expected key",
		},
		{
			name: "key dedented out of its mapping",
			body: header + "name: team\ninstall:\n    sources: [.]\n  runtimes: [claude-code]\n",
			want: "line 5: did not find expected key",
		},
		{
			name: "a string for a list",
			body: header + "name: team\ninstall:\n  sources: [.]\n  runtimes: claude-code\n",
			want: `line 5: install.runtimes must be a list, not the string "claude-code": write [claude-code]`,
		},
		{
			name: "a mapping for a string",
			body: "name:\n  first: team\n",
			want: `line 2: name must be a string, not a mapping`,
		},
		{
			name: "mistyped key",
			body: header + "name: team\ninstal:\n  sources: [.]\n",
			want: `line 3: unknown key "instal": did you mean install? (the keys here are name, version, description, author, license, tags, skills, packages, install, trust)`,
		},
		{
			name: "mistyped key of install",
			body: "install:\n  sources: [.]\n  runtime: [claude-code]\n",
			want: `line 3: unknown key "runtime" in install: did you mean runtimes?`,
		},
		{
			name: "mistyped key of a package",
			body: "packages:\n  - {ref: ghcr.io/acme/a, verison: ^1.0.0}\n",
			want: `line 2: unknown key "verison" in an item of packages: did you mean version?`,
		},
		{
			name: "mistyped key of the trust section",
			body: "trust:\n  mod: enforce\n",
			want: `line 2: unknown key "mod" in trust: did you mean mode?`,
		},
	}
	goType := regexp.MustCompile(`\[\]yaml|staxyaml\.|trustpolicy\.|!!|not found in type`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := staxyaml.Parse("stax.yaml", []byte(tt.body))
			if err == nil {
				t.Fatal("Parse succeeded")
			}
			if !strings.HasPrefix(err.Error(), "stax.yaml: "+tt.want) {
				t.Errorf("error\n  %v\nwant it to start\n  stax.yaml: %s", err, tt.want)
			}
			if goType.MatchString(err.Error()) {
				t.Errorf("error %q names a Go type or a YAML tag", err)
			}
		})
	}
}
