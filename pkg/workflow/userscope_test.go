package workflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/install"
)

// The user-scope directory is named after the folders, whichever runtime
// names them, so two runtimes that read one folder share its lock.
func TestUserFoldersName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		runtimes []string
		want     string
	}{
		{[]string{"claude-code"}, "claude-skills"},
		{[]string{"codex"}, "agents-skills"},
		{[]string{"goose", "agents"}, "agents-skills"},
		{[]string{"opencode"}, "config-opencode-skills"},
		{[]string{"cursor", "claude-code"}, "claude-skills+cursor-skills"},
	}
	for _, tt := range tests {
		p, err := install.Place(install.PlaceOptions{Runtimes: tt.runtimes, Scope: "user", Home: "/home/ana"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := userFoldersName(p)
		if err != nil || got != tt.want {
			t.Errorf("%v: %q %v, want %q", tt.runtimes, got, err, tt.want)
		}
	}
}

func TestReadUserConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	got, err := readUserConfig(write("runtimes.yaml", "install:\n  runtimes: [cursor, codex]\n"))
	if err != nil || got == nil || strings.Join(got.Runtimes, ",") != "cursor,codex" {
		t.Errorf("runtimes: %+v %v", got, err)
	}
	got, err = readUserConfig(write("defined.yaml", "install:\n  runtimes:\n    - {name: zed-agent, project: .zed/skills, user: .config/zed/skills}\n"))
	if err != nil || got == nil || len(got.Defined) != 1 || got.Defined[0].User != ".config/zed/skills" {
		t.Errorf("a defined runtime: %+v %v", got, err)
	}
	if got, err := readUserConfig(filepath.Join(dir, "none.yaml")); got != nil || err != nil {
		t.Errorf("no settings: %+v %v", got, err)
	}
	// Sources saved there would be installed by no command: refused, so
	// the user is not led to think otherwise.
	_, err = readUserConfig(write("sources.yaml", "install:\n  sources: [ghcr.io/acme/skills:1.0.0]\n"))
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "sources.yaml") {
		t.Errorf("sources in the settings: %v, want invalid naming the file", err)
	}
}
