package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stax-dev/stax/pkg/agent"
)

// BenchmarkSkillsExtension: with 5,000 skills, building the server (the
// index included), listing every page of skills/list, and one skills/get;
// the heap the index keeps is reported as index-MiB.
func BenchmarkSkillsExtension(b *testing.B) {
	const n = maxIndexedSkills
	base := b.TempDir()
	f := fixture{project: filepath.Join(base, "project"), home: filepath.Join(base, "home")}
	for i := range n {
		dir := filepath.Join(f.projectSkills(), fmt.Sprintf("skill-%04d", i))
		if err := os.MkdirAll(filepath.Join(dir, "references"), 0o755); err != nil {
			b.Fatal(err)
		}
		name := filepath.Base(dir)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD(name, "Skill "+name, "body\n")), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "references", "guide.md"), []byte("# guide\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	rt, _ := agent.Lookup("claude-code")
	opts := Options{Runtime: rt, Project: f.project, Home: f.home}
	b.Run("start", func(b *testing.B) {
		for b.Loop() {
			if _, err := New(opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	srv, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	_ = mcp.AddSendingCustomMethod[*SkillsListParams, *SkillsListResult](c, MethodSkillsList)
	_ = mcp.AddSendingCustomMethod[*SkillsGetParams, *SkillsGetResult](c, MethodSkillsGet)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	b.Run("list-all-pages", func(b *testing.B) {
		for b.Loop() {
			got, cursor := 0, ""
			for {
				res, err := mcp.CallCustomMethod[*SkillsListParams, *SkillsListResult](ctx, cs, MethodSkillsList, &SkillsListParams{Cursor: cursor})
				if err != nil {
					b.Fatal(err)
				}
				got += len(res.Skills)
				if cursor = res.NextCursor; cursor == "" {
					break
				}
			}
			if got != n {
				b.Fatalf("listed %d skills", got)
			}
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "index-MiB")
	})
	b.Run("get", func(b *testing.B) {
		for b.Loop() {
			if _, err := getSkill(cs, "skill://skill-2500/SKILL.md"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
