package mcpserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/discover"
)

// TestSkillsIndexedAsWritten: a skill that Options.Written gives, indexed
// by IndexWritten as it was written, is served as a server that lists it
// from its record serves it, entry for entry, and as indexed then: its
// SKILL.md edited after the writing is listed as written, once; the read
// of the edited file is refused, and the skill's next entry is the file's
// on disk, as for a file changed after any listing.
func TestSkillsIndexedAsWritten(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	manySkills(t, f.projectSkills(), 2)
	dir := filepath.Join(f.projectSkills(), "skill-0000")
	filetest.Write(t, dir, map[string]string{"assets/data.unknownext": "\x00binary"})
	rec := &Installed{Package: "example.com/acme/skills:1.0.0", Digest: "sha256:" + strings.Repeat("a", 64), Files: recordOf(t, dir), Written: true}
	installed := func(*discover.Listing) (map[string]*Installed, []string) { return map[string]*Installed{dir: rec}, nil }
	_, plain := skillsServer(t, f, Options{Installed: installed}, "stdio")
	want := listAll(t, plain)

	rt, _ := agent.Lookup("claude-code")
	path := filepath.Join(dir, "SKILL.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w := IndexWritten(discover.Parse(rt, agent.Location{Scope: agent.ScopeProject, Dir: f.projectSkills()}, "skill-0000", data), dir, rec)
	edited := skillMD("skill-0000", "Edited after the writing", "body\n")
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Unix(0, rec.Files["SKILL.md"].ModTime).Add(time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	// Given once, as stax mcp --package gives it: a later listing reads
	// the folder.
	var taken atomic.Bool
	_, cs := skillsServer(t, f, Options{Installed: installed, Written: func() map[string]*Written {
		if !taken.CompareAndSwap(false, true) {
			return nil
		}
		return map[string]*Written{dir: w}
	}}, "stdio")
	got := listAll(t, cs)
	if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
		t.Errorf("skills/list =\n%s\nwant, as listed from the record,\n%s", g, w)
	}
	if !taken.Load() {
		t.Error("the skill written was not taken")
	}
	for _, r := range got[0].Resources {
		if strings.HasSuffix(r.URI, "/SKILL.md") {
			fresh, _ := refusedThenRefreshed(t, cs, got[0], r)
			if fresh.Frontmatter["description"] != "Edited after the writing" {
				t.Errorf("refreshed entry's description %v, want the SKILL.md on disk's", fresh.Frontmatter["description"])
			}
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestSkillWrittenAgainInAFolderIndexed: a skill Options.Written gives
// for a folder the index already serves it from (a package extracted
// again where it was, by a later Refresh) is read from its folder, as a
// skill indexed before is, and still served: what IndexWritten made of
// it, parse let go, does not stand for it.
func TestSkillWrittenAgainInAFolderIndexed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	manySkills(t, f.projectSkills(), 2)
	dir := filepath.Join(f.projectSkills(), "skill-0000")
	rec := &Installed{Package: "example.com/acme/skills:1.0.0", Digest: "sha256:" + strings.Repeat("a", 64), Files: recordOf(t, dir), Written: true}
	installed := func(*discover.Listing) (map[string]*Installed, []string) { return map[string]*Installed{dir: rec}, nil }
	_, plain := skillsServer(t, f, Options{Installed: installed}, "stdio")
	want := mustJSON(t, listAll(t, plain))

	rt, _ := agent.Lookup("claude-code")
	data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	w := IndexWritten(discover.Parse(rt, agent.Location{Scope: agent.ScopeProject, Dir: f.projectSkills()}, "skill-0000", data), dir, rec)
	var refreshes atomic.Int32
	srv, cs := skillsServer(t, f, Options{Installed: installed, Written: func() map[string]*Written {
		if refreshes.Add(1) != 2 {
			return nil
		}
		return map[string]*Written{dir: w}
	}}, "stdio")
	if got := mustJSON(t, listAll(t, cs)); got != want {
		t.Fatalf("skills/list =\n%s\nwant\n%s", got, want)
	}
	if err := srv.Refresh(); err != nil {
		t.Fatal(err)
	}
	if refreshes.Load() != 2 {
		t.Fatal("the skill written was not given")
	}
	if got := mustJSON(t, listAll(t, cs)); got != want {
		t.Errorf("skills/list after the skill was written again =\n%s\nwant\n%s", got, want)
	}
}
