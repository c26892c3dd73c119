package merge_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/packagetest"
	"github.com/stax-dev/stax/pkg/cache"
	"github.com/stax-dev/stax/pkg/merge"
	"github.com/stax-dev/stax/pkg/resolve"
	"github.com/stax-dev/stax/pkg/target"
)

func skillMD(name, from string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill of " + from + ". Use when testing merges.\n---\nFrom " + from + ".\n"
}

// resolveDirs resolves package directories under root, as sources in order.
func resolveDirs(t *testing.T, root string, sources ...string) *resolve.Graph {
	t.Helper()
	g, err := resolve.Resolve(context.Background(), packagetest.Declared(t, sources...), root, resolve.Options{Source: cache.New(&target.Opener{StoreDir: t.TempDir()}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// layered writes two packages: org (lower) and team (higher), both with
// the skill "shared"; org's copy has an extra file team's lacks.
func layered(t *testing.T) string {
	root := t.TempDir()
	filetest.WriteFile(t, filepath.Join(root, "org", "stax.yaml"), "name: org\nversion: 1.0.0\n")
	filetest.WriteFile(t, filepath.Join(root, "org", "skills", "shared", "SKILL.md"), skillMD("shared", "org"))
	filetest.WriteFile(t, filepath.Join(root, "org", "skills", "shared", "references", "only-org.md"), "org's file\n")
	filetest.WriteFile(t, filepath.Join(root, "org", "skills", "org-own", "SKILL.md"), skillMD("org-own", "org"))
	filetest.WriteFile(t, filepath.Join(root, "team", "stax.yaml"), "name: team\nversion: 1.0.0\n")
	filetest.WriteFile(t, filepath.Join(root, "team", "skills", "shared", "SKILL.md"), skillMD("shared", "team"))
	filetest.WriteFile(t, filepath.Join(root, "team", "skills", "team-own", "SKILL.md"), skillMD("team-own", "team"))
	return root
}

func TestMergeWholeDirectoryPrecedence(t *testing.T) {
	root := layered(t)
	tests := []struct {
		name    string
		sources []string
		winner  string // package whose "shared" wins
		loser   string
	}{
		{"later source wins", []string{"./org", "./team"}, "./team", "./org"},
		{"order reversed", []string{"./team", "./org"}, "./org", "./team"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := resolveDirs(t, root, tt.sources...)
			res := merge.Merge(g.Order)

			var paths []string
			for _, s := range res.Skills {
				paths = append(paths, s.Path)
				if s.Path == "shared" && s.From.Ref != tt.winner {
					t.Errorf("shared comes from %s, want %s", s.From.Ref, tt.winner)
				}
			}
			if want := []string{"org-own", "shared", "team-own"}; !slices.Equal(paths, want) {
				t.Errorf("skills %v, want %v sorted", paths, want)
			}
			if len(res.Overrides) != 1 {
				t.Fatalf("overrides %v, want one", res.Overrides)
			}
			o := res.Overrides[0]
			if o.Skill != "shared" || o.Winner.Ref != tt.winner || o.Loser.Ref != tt.loser {
				t.Errorf("override %+v, want shared: %s over %s", o, tt.winner, tt.loser)
			}
			if s := o.String(); !strings.Contains(s, "skill shared: "+tt.winner+" (") || !strings.Contains(s, ") over "+tt.loser+" (") {
				t.Errorf("override reads %q; want it to name the skill, the winner and the loser with their standing", s)
			}

		})
	}
}
