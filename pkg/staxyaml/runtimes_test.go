package staxyaml_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/staxyaml"
)

// TestInstallRuntimesDefineARuntime pins that install.runtimes takes, beside
// the names of the runtimes stax knows, a runtime defined by its folders,
// so that a new agent needs no release of stax.
func TestInstallRuntimesDefineARuntime(t *testing.T) {
	t.Parallel()
	body := "install:\n  runtimes:\n    - claude-code\n    - name: zed-agent\n      project: .zed/skills\n      user: .config/zed/skills\n"
	def, err := staxyaml.Parse("stax.yaml", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if got := def.Install.Runtimes; !slices.Equal(got, []string{"claude-code", "zed-agent"}) {
		t.Errorf("runtimes %v: want both names, in order", got)
	}
	want := []staxyaml.RuntimeDefinition{{Name: "zed-agent", Project: ".zed/skills", User: ".config/zed/skills"}}
	if got := def.Install.Defined; !slices.Equal(got, want) {
		t.Errorf("defined %+v, want %+v", got, want)
	}

	// Written back, the definition stays a definition.
	path := filepath.Join(t.TempDir(), "stax.yaml")
	if err := staxyaml.Write(path, def, false); err != nil {
		t.Fatal(err)
	}
	again, err := staxyaml.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.Install.Runtimes, def.Install.Runtimes) || !slices.Equal(again.Install.Defined, want) {
		t.Errorf("after a round trip: %+v", again.Install)
	}
}

// TestInstallRuntimeDefinitionsAreChecked pins that a runtime's name and
// folders, read from a project, go through the rules of names and paths:
// a folder is relative, clean and inside the project (or home).
func TestInstallRuntimeDefinitionsAreChecked(t *testing.T) {
	t.Parallel()
	entry := func(fields string) string { return "install:\n  runtimes:\n    - " + fields + "\n" }
	for _, tc := range []struct {
		name, body, want string
	}{
		{"escapes the project", entry("{name: x, project: ../skills, user: .x/skills}"), "line 3: runtime x: project folder \"../skills\""},
		{"absolute folder", entry("{name: x, project: /etc/skills, user: .x/skills}"), "absolute path"},
		{"backslash", entry(`{name: x, project: '.x\skills', user: .x/skills}`), "backslash"},
		{"not clean", entry("{name: x, project: ./.x/skills, user: .x/skills}"), "not clean"},
		{"stax's own folder", entry("{name: x, project: .stax/skills, user: .x/skills}"), "stax's own"},
		{"home in the project", entry("{name: x, project: ~/skills, user: .x/skills}"), `project folder "~/skills": ~ is not expanded there: name a folder relative to the project root`},
		{"another user's home", entry("{name: x, project: .x/skills, user: ~bob/skills}"), `user folder "~bob/skills": ~ is not expanded there`},
		{"missing folder", entry("{name: x, project: .x/skills}"), "runtime x needs a project and a user folder"},
		{"missing name", entry("{project: .x/skills, user: .x/skills}"), "line 3: a runtime needs a name"},
		{"bad name", entry("{name: ../x, project: .x/skills, user: .x/skills}"), "runtime name \"../x\""},
		{"built-in name", entry("{name: claude, project: .x/skills, user: .x/skills}"), "claude is a runtime stax knows"},
		{"defined twice", "install:\n  runtimes:\n    - {name: x, project: .x/skills, user: .x/skills}\n    - {name: x, project: .y/skills, user: .y/skills}\n", "runtime x is defined twice"},
		{"unknown field", entry("{name: x, project: .x/skills, user: .x/skills, plugins: .x/p}"), `line 3: unknown key "plugins" in an item of install.runtimes (the keys here are name, project, user)`},
		{"unknown install field", "install:\n  runtime: [claude-code]\n", `line 2: unknown key "runtime" in install: did you mean runtimes?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := staxyaml.Parse("stax.yaml", []byte(tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) || errdefs.Of(err) != errdefs.InvalidArgument {
				t.Errorf("error %v: want one of class invalid containing %q", err, tc.want)
			}
		})
	}
}

// A user folder written from the home directory, ~/FOLDER, is FOLDER: the
// folder is relative to the home directory, and ~ would otherwise name a
// directory called ~ in it.
func TestRuntimeUserFolderFromTheHomeDirectory(t *testing.T) {
	t.Parallel()
	def, err := staxyaml.Parse("stax.yaml", []byte("install:\n  runtimes:\n    - {name: x, project: .x/skills, user: ~/.config/x/skills}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []staxyaml.RuntimeDefinition{{Name: "x", Project: ".x/skills", User: ".config/x/skills"}}
	if got := def.Install.Defined; !slices.Equal(got, want) {
		t.Errorf("defined %+v, want %+v", got, want)
	}
	if got := def.Install.Defined[0].Runtime().User; !slices.Equal(got, []string{".config/x/skills"}) {
		t.Errorf("the runtime's user folders are %q", got)
	}
}
