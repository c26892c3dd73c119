package install

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/stateful"
)

const (
	memoryV1 = "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: 2026-05-01\n---\n\n## What worked\n\n- Ask first. — @mira, 2026-05-01\n"
	memoryV2 = "---\nversion: 1.1.0\ncontributors: 1\nlastUpdated: 2026-05-20\n---\n\n## What worked\n\n- Ask first. — @mira, 2026-05-01\n\n- Then act. — @mira, 2026-05-20\n"
	mine     = "- Mine. — @ana, 2026-06-03\n"
)

// statefulSkill is a skill named memo whose directory holds files.
func statefulSkill(t *testing.T, files map[string]string) Skill {
	t.Helper()
	s := testSkill(t, "memo", files["SKILL.md"])
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(s.Source, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// installedWithMyEntry installs memo 1.0.0 into a new folder and appends
// an entry to its MEMORY.md, as the stateful format asks users to.
func installedWithMyEntry(t *testing.T) (dir, locks string) {
	t.Helper()
	dir, locks = t.TempDir(), t.TempDir()
	v1 := statefulSkill(t, map[string]string{"SKILL.md": "---\nname: memo\nversion: 1.0.0\n---\nv1\n", "MEMORY.md": memoryV1})
	if _, err := Install(context.Background(), []Skill{v1}, Options{Dir: dir, LockDir: locks}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "memo", "MEMORY.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(mine)
	f.Close()
	return dir, locks
}

func TestInstallMergesMemoryIntoNewVersion(t *testing.T) {
	t.Parallel()
	dir, locks := installedWithMyEntry(t)
	v2 := statefulSkill(t, map[string]string{"SKILL.md": "---\nname: memo\nversion: 1.1.0\n---\nv2\n", "MEMORY.md": memoryV2})
	res, err := Install(context.Background(), []Skill{v2}, Options{Dir: dir, LockDir: locks})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Merged) != 1 || !reflect.DeepEqual(res.Merged[0], MergedFile{Skill: "memo", File: "MEMORY.md", Kept: 1}) {
		t.Errorf("Merged = %+v", res.Merged)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "memo", "MEMORY.md"))
	want := strings.Replace(memoryV2, "2026-05-20\n---", "2026-06-03\n---", 1) + "\n" + mine
	if string(got) != want {
		t.Errorf("MEMORY.md:\n%s\nwant:\n%s", got, want)
	}
	if drift, err := CheckIn(dir, ""); err != nil || len(drift) != 0 {
		t.Errorf("Check after the merge: %+v, %v; want the record to hold the merged file", drift, err)
	}
}

// What a merge cannot settle fails the install with exit 5 and leaves the
// folder as it was: a new version without MEMORY.md, a broken file on
// either side, a change besides MEMORY.md. --force replaces as before,
// keeping the user's copy in a backup.
func TestInstallMemoryMergeRefusals(t *testing.T) {
	t.Parallel()
	skillMD := "---\nname: memo\nversion: 1.1.0\n---\nv2\n"
	tests := []struct {
		name  string
		v2    map[string]string
		local func(t *testing.T, dir string)
		want  []string
	}{
		{name: "no MEMORY.md in the new version", v2: map[string]string{"SKILL.md": skillMD},
			want: []string{"changed MEMORY.md", "--force"}},
		{name: "new MEMORY.md broken", v2: map[string]string{"SKILL.md": skillMD, "MEMORY.md": "---\nversion: [1\n---\n"},
			// The line of the list left open, not of the "---" after it.
			want: []string{"MEMORY.md of test:2:"}},
		{name: "my MEMORY.md broken", v2: map[string]string{"SKILL.md": skillMD, "MEMORY.md": memoryV2},
			local: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "memo", "MEMORY.md")
				data, _ := os.ReadFile(p)
				os.WriteFile(p, []byte(strings.Replace(string(data), "---\n", "", 1)), 0o644)
			},
			want: []string{filepath.Join("memo", "MEMORY.md") + ":1:", "frontmatter"}},
		{name: "another file changed too", v2: map[string]string{"SKILL.md": skillMD, "MEMORY.md": memoryV2},
			local: func(t *testing.T, dir string) {
				os.WriteFile(filepath.Join(dir, "memo", "notes.md"), []byte("mine\n"), 0o644)
			},
			want: []string{"changed MEMORY.md; added notes.md", "--force"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, locks := installedWithMyEntry(t)
			if tt.local != nil {
				tt.local(t, dir)
			}
			before := listTree(t, dir)
			_, err := Install(context.Background(), []Skill{statefulSkill(t, tt.v2)}, Options{Dir: dir, LockDir: locks})
			if errdefs.Of(err) != errdefs.FailedPrecondition {
				t.Fatalf("err = %v (%v), want a precondition failure", err, errdefs.Of(err))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if after := listTree(t, dir); after != before {
				t.Errorf("a refused install changed the folder:\n%s\nwas:\n%s", after, before)
			}
		})
	}

	t.Run("force", func(t *testing.T) {
		t.Parallel()
		dir, locks := installedWithMyEntry(t)
		root := filepath.Dir(dir)
		v2 := statefulSkill(t, map[string]string{"SKILL.md": skillMD, "MEMORY.md": memoryV2})
		res, err := Install(context.Background(), []Skill{v2}, Options{Dir: dir, Root: root, LockDir: locks, Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "memo", "MEMORY.md")); string(got) != memoryV2 || len(res.Merged) != 0 || len(res.Backups) != 1 {
			t.Errorf("--force: MEMORY.md %q, merged %v, backups %v; want the new file and the user's in a backup", got, res.Merged, res.Backups)
		}
		if b, _ := os.ReadFile(filepath.Join(res.Backups[0], stateful.MemoryFile)); !strings.Contains(string(b), mine) {
			t.Errorf("the backup does not hold the user's entry: %q", b)
		}
	})
}
