package yamlerr_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/stax-dev/stax/pkg/yamlerr"
)

type server struct {
	Host    string   `yaml:"host"`
	Port    int      `yaml:"port"`
	Enabled bool     `yaml:"enabled"`
	Tags    []string `yaml:"tags"`
	Limits  struct {
		Memory string `yaml:"memory"`
		CPU    string `yaml:"cpu"`
	} `yaml:"limits"`
	Backends []struct {
		URL    string `yaml:"url"`
		Weight int    `yaml:",omitempty"`
	} `yaml:"backends"`
	Internal string `yaml:"-"`
}

type config struct {
	Servers map[string]server `yaml:"servers"`
	Default server            `yaml:",inline"`
}

// decode decodes data strictly, as stax's readers do, and gives the
// message of the error it must fail with.
func decode(t *testing.T, data string) string {
	t.Helper()
	var c config
	dec := yaml.NewDecoder(strings.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(&c)
	if err == nil {
		t.Fatalf("decode %q: want an error", data)
	}
	return yamlerr.Translate(err, []byte(data), &c).Error()
}

func TestTranslate(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, data, want string }{
		{"unknown top-level key", "host: a\nprot: 80\n",
			`line 2: unknown key "prot": did you mean port? (the keys here are servers, host, port, enabled, tags, limits, backends)`},
		{"unknown nested key", "limits:\n  memroy: 1G\n",
			`line 2: unknown key "memroy" in limits: did you mean memory? (the keys here are memory, cpu)`},
		{"unknown key in a list item", "backends:\n  - url: x\n    wieght: 2\n",
			`line 3: unknown key "wieght" in an item of backends: did you mean weight? (the keys here are url, weight)`},
		{"unknown key in a map value", "servers:\n  a:\n    limits: {cpu: 1, gpu: 2}\n",
			`line 3: unknown key "gpu" in servers.a.limits: did you mean cpu? (the keys here are memory, cpu)`},
		{"nothing near", "colour: red\n", `line 1: unknown key "colour" (the keys here are`},
		{"a string for a list, shown whole", "tags: a-long-tag-name\n",
			`line 1: tags must be a list, not the string "a-long-tag-name": write [a-long-tag-name], or each item on a line of its own after "- "`},
		{"a string for a number", "port: eighty\n", `line 1: port must be a whole number, not the string "eighty"`},
		{"a list for a string", "host: [a, b]\n", `line 1: host must be a string, not a list`},
		{"a mapping for a list", "backends:\n  url: x\n", `line 2: backends must be a list, not a mapping`},
		{"a string for a mapping in a list", "backends:\n  - x\n", `line 2: an item of backends must be a mapping, not the string "x"`},
		{"a number for true or false", "enabled: 3\n", `line 1: enabled must be true or false, not 3`},
		{"several problems", "port: x\nenabled: maybe\n", `line 1: port must be a whole number, not the string "x" (and 1 more problem)`},
		{"key given twice", "host: a\nhost: b\n", `line 2: key "host" is already on line 1: keep one`},
		{"control characters of a key path escaped", "servers:\n  \"a\\e]0;x\\a\":\n    limits: {gpu: 2}\n",
			`line 3: unknown key "gpu" in servers.a\x1b]0;x\a.limits: did you mean cpu?`},
		{"control characters of a list hint escaped", "tags: \"a\\e[31m\"\n",
			`line 1: tags must be a list, not the string "a\x1b[31m": write [a\x1b[31m]`},
		{"control character escaped", "host: a\nport: \"\\e[31m\"\n", `line 2: port must be a whole number, not the string "\x1b[31m"`},
		{"a merge of a list of lists", "limits: &l\n  cpu: 1\nbackends: []\n<<: [*l, [1]]\n",
			"line 4: map merge requires map or sequence of maps as the value (after <<, write a mapping, an alias of one (*name), or a list of them)"},
		{"a merge of a string, nested", "limits:\n  memory: 1G\n  <<: big\n", "line 3: map merge requires"},
		// Only << merges, as the decoder reads it: a key tagged !!merge is
		// an ordinary key, whatever its value.
		{"a merge after a key tagged !!merge", "host: a\n!!merge port: 1\nlimits:\n  <<: big\n", "line 4: map merge requires"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decode(t, tt.data)
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("got\n  %s\nwant it to start\n  %s", got, tt.want)
			}
			for _, goWord := range []string{"!!", "type ", "yamlerr_test", "[]string", "unmarshal"} {
				if strings.Contains(got, goWord) {
					t.Errorf("%q says %q, a Go or YAML library term", got, goWord)
				}
			}
		})
	}
}

// yaml gives, for a parser error, the line where the enclosing block
// starts, 0-based; Translate finds the line at fault.
func TestTranslateSyntaxErrorLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data string
		line       int
		problem    string
	}{
		{"dedented key under a comment", "# header\nhost: a\nlimits:\n    memory: 1G\n  cpu: 2\n", 5, "did not find expected key (check the indentation"},
		{"dedented list item", "# header\ntags:\n    - a\n  - b\n", 4, "did not find expected"},
		{"list item in a mapping", "host: a\nport: 1\n- c\n", 3, "did not find expected key"},
		{"unclosed flow list", "host: a\ntags: [a, b\nport: 1\n", 2, "did not find expected ',' or ']'"},
		{"value over indented", "host: a\nport: 1\n  enabled: true\n", 3, "mapping values are not allowed in this context (a value that contains"},
		{"tab indentation", "limits:\n\tcpu: 1\n", 2, "found character that cannot start any token (indent with spaces"},
		{"control character", "host: a\nport: \x01\n", 2, "control characters are not allowed"},
		{"unknown anchor", "host: a\nport: *p\n", 2, "unknown anchor 'p' referenced"},
		{"no newline at the end", "host: a\n- b", 2, "did not find expected key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc yaml.Node
			err := yaml.Unmarshal([]byte(tt.data), &doc)
			if err == nil {
				t.Fatal("no error")
			}
			var e *yamlerr.Error
			if !errors.As(yamlerr.Translate(err, []byte(tt.data), nil), &e) {
				t.Fatalf("Translate(%v) is not an *Error", err)
			}
			if e.Line != tt.line || !strings.HasPrefix(e.Message, tt.problem) {
				t.Errorf("Translate(%v) = line %d: %s\nwant line %d: %s…", err, e.Line, e.Message, tt.line, tt.problem)
			}
		})
	}
}

// An error that is not yaml's passes through; one of an UnmarshalYAML
// method that says which key is unknown is completed with where it is.
func TestTranslateOtherErrors(t *testing.T) {
	t.Parallel()
	other := errors.New("version range \"^x\": not a version")
	if got := yamlerr.Translate(other, nil, nil); got != other {
		t.Errorf("Translate(%v) = %v, want it unchanged", other, got)
	}
	data := []byte("install:\n  runtimes:\n    - {name: x, folder: y}\n")
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	err := yamlerr.UnknownKey(3, "folder", []string{"name", "project", "user"})
	want := `line 3: unknown key "folder" in an item of install.runtimes (the keys here are name, project, user)`
	if got := yamlerr.Translate(err, data, nil); got.Error() != want {
		t.Errorf("Translate(UnknownKey) = %v, want %s", got, want)
	}
}
