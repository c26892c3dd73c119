package merge_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filetest"
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
	g, err := resolve.Resolve(context.Background(), sources, root, resolve.Options{Opener: &target.Opener{StoreDir: t.TempDir()}})
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

			dest := filepath.Join(t.TempDir(), "skills")
			if err := res.Materialize(context.Background(), dest, merge.Options{}); err != nil {
				t.Fatal(err)
			}
			body, err := os.ReadFile(filepath.Join(dest, "shared", "SKILL.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(body), "From "+strings.TrimPrefix(tt.winner, "./")) {
				t.Errorf("shared/SKILL.md is\n%s\nwant the winner's", body)
			}
			_, err = os.Stat(filepath.Join(dest, "shared", "references", "only-org.md"))
			if survived := err == nil; survived != (tt.winner == "./org") {
				t.Errorf("org's extra file present = %v with %s winning: a losing skill's files must not survive beside the winner", survived, tt.winner)
			}
		})
	}
}

func TestMaterializeDestination(t *testing.T) {
	root := layered(t)
	g := resolveDirs(t, root, "./org", "./team")
	tests := []struct {
		name    string
		prepare func(t *testing.T, dest string)
		wantErr string
	}{
		{"absent", func(*testing.T, string) {}, ""},
		{"empty directory", func(t *testing.T, dest string) { os.MkdirAll(dest, 0o755) }, ""},
		{"directory with a user's file", func(t *testing.T, dest string) { filetest.WriteFile(t, filepath.Join(dest, "mine.md"), "mine") }, "is not an empty directory"},
		{"a file", func(t *testing.T, dest string) { filetest.WriteFile(t, dest, "mine") }, "is not an empty directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			dest := filepath.Join(parent, "skills")
			tt.prepare(t, dest)
			err := merge.Merge(g.Order).Materialize(context.Background(), dest, merge.Options{})
			if tt.wantErr == "" && err != nil {
				t.Fatalf("Materialize: %v", err)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Materialize: %v, want %q", err, tt.wantErr)
				}
				if got, _ := os.ReadFile(filepath.Join(dest, "mine.md")); tt.name == "directory with a user's file" && string(got) != "mine" {
					t.Errorf("the user's file is gone or changed: %q", got)
				}
			}
			// Nothing is left staged beside dest.
			entries, _ := os.ReadDir(parent)
			if len(entries) != 1 || entries[0].Name() != "skills" {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("parent holds %v, want only skills", names)
			}
		})
	}
}

func TestMaterializeChecksSkillDigests(t *testing.T) {
	root := layered(t)
	g := resolveDirs(t, root, "./org", "./team")
	res := merge.Merge(g.Order)
	for i := range res.Skills {
		if res.Skills[i].Path == "team-own" {
			res.Skills[i].Digest = digest.FromString("not these files")
		}
	}
	dest := filepath.Join(t.TempDir(), "skills")
	err := res.Materialize(context.Background(), dest, merge.Options{})
	if err == nil || !strings.Contains(err.Error(), "skill team-own of ./team: its files hash to") {
		t.Fatalf("Materialize of a skill whose files do not match its recorded digest: %v", err)
	}
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Errorf("dest appeared after a failed merge: %v", err)
	}
}

// The limits bound what Materialize extracts: over either, nothing lands.
func TestMaterializeLimits(t *testing.T) {
	root := layered(t)
	g := resolveDirs(t, root, "./org", "./team")
	tests := []struct {
		name     string
		maxSize  int64
		maxFiles int
		ok       bool
	}{
		{"defaults", 0, 0, true},
		{"no limits", -1, -1, true},
		{"size over the limit", 16, 0, false},
		{"files over the limit", 0, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := merge.Merge(g.Order)
			res.MaxFiles = tt.maxFiles
			dest := filepath.Join(t.TempDir(), "skills")
			err := res.Materialize(context.Background(), dest, merge.Options{MaxSize: tt.maxSize})
			if (err == nil) != tt.ok {
				t.Fatalf("Materialize: %v, want success %v", err, tt.ok)
			}
			if _, statErr := os.Stat(dest); (statErr == nil) != tt.ok {
				t.Errorf("dest present = %v after Materialize returned %v", statErr == nil, err)
			}
		})
	}
}
