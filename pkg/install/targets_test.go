package install

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/staxyaml"
)

func TestPlace(t *testing.T) {
	proj, home := t.TempDir(), t.TempDir()
	tests := []struct {
		name     string
		where    PlaceOptions
		dirs     []string
		runtimes [][]string
		root     string
		class    errdefs.Class
	}{
		{name: "default runtime, project scope", where: PlaceOptions{ProjectDir: proj},
			dirs: []string{filepath.Join(proj, ".claude/skills")}, runtimes: [][]string{{"claude-code"}}, root: proj},
		{name: "stax.yaml defaults", where: PlaceOptions{ProjectDir: proj, Defaults: &staxyaml.InstallSpec{Runtimes: []string{"codex"}, Scope: "user"}, Home: home},
			dirs: []string{filepath.Join(home, ".agents/skills")}, runtimes: [][]string{{"codex"}}, root: home},
		{name: "flags win over stax.yaml", where: PlaceOptions{ProjectDir: proj, Runtimes: []string{"claude-code"}, Scope: "project", Defaults: &staxyaml.InstallSpec{Runtimes: []string{"codex"}, Scope: "user"}},
			dirs: []string{filepath.Join(proj, ".claude/skills")}, runtimes: [][]string{{"claude-code"}}, root: proj},
		{name: "runtimes sharing a folder share a target", where: PlaceOptions{ProjectDir: proj, Runtimes: []string{"codex", "claude-code", "agents"}},
			dirs: []string{filepath.Join(proj, ".agents/skills"), filepath.Join(proj, ".claude/skills")}, runtimes: [][]string{{"codex", "agents"}, {"claude-code"}}, root: proj},
		{name: "unknown runtime", where: PlaceOptions{ProjectDir: proj, Runtimes: []string{"nope"}}, class: errdefs.InvalidArgument},
		{name: "unknown scope", where: PlaceOptions{ProjectDir: proj, Scope: "system"}, class: errdefs.InvalidArgument},
	}
	for _, tt := range tests {
		p, err := Place(tt.where)
		if tt.class != errdefs.Unclassified {
			if errdefs.Of(err) != tt.class {
				t.Errorf("%s: error %v, want class %v", tt.name, err, tt.class)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(p.Dirs(), tt.dirs) || p.Root != tt.root {
			t.Errorf("%s: dirs %v root %s; want %v %s", tt.name, p.Dirs(), p.Root, tt.dirs, tt.root)
		}
		for i, target := range p.Targets {
			if !slices.Equal(Names(target.Runtimes), tt.runtimes[i]) {
				t.Errorf("%s: target %d runtimes %v, want %v", tt.name, i, Names(target.Runtimes), tt.runtimes[i])
			}
		}
	}
}
