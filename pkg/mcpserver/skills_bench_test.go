package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stax-dev/stax/pkg/agent"
)

// BenchmarkSkillsExtension: with 5,000 skills, building the server (the
// index included), listing every page of skills/list, and one skills/get;
// the heap the index keeps is reported as index-MiB.
func BenchmarkSkillsExtension(b *testing.B) {
	const n = maxIndexedSkills
	opts := benchSkills(b, n)
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
		var pages []time.Duration
		for b.Loop() {
			got, cursor := 0, ""
			for {
				start := time.Now()
				res, err := mcp.CallCustomMethod[*SkillsListParams, *SkillsListResult](ctx, cs, MethodSkillsList, &SkillsListParams{Cursor: cursor})
				if err != nil {
					b.Fatal(err)
				}
				pages = append(pages, time.Since(start))
				got += len(res.Skills)
				if cursor = res.NextCursor; cursor == "" {
					break
				}
			}
			if got != n {
				b.Fatalf("listed %d skills", got)
			}
		}
		b.ReportMetric(p95(pages), "p95-page-ms")
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "index-MiB")
	})
	b.Run("get", func(b *testing.B) {
		var gets []time.Duration
		for b.Loop() {
			start := time.Now()
			if _, err := getSkill(cs, "skill://skill-2500/SKILL.md"); err != nil {
				b.Fatal(err)
			}
			gets = append(gets, time.Since(start))
		}
		b.ReportMetric(p95(gets), "p95-ms")
	})
}

// p95 is the 95th percentile of ds, in milliseconds: the rows the issue
// sets its targets in.
func p95(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return float64(ds[len(ds)*95/100]) / float64(time.Millisecond)
}

// benchSkills writes n skills, each with a reference and frontmatter as
// skills usually have, and returns the Options of a server of them.
func benchSkills(b *testing.B, n int) Options {
	b.Helper()
	base := b.TempDir()
	f := fixture{project: filepath.Join(base, "project"), home: filepath.Join(base, "home")}
	for i := range n {
		dir := filepath.Join(f.projectSkills(), fmt.Sprintf("skill-%04d", i))
		if err := os.MkdirAll(filepath.Join(dir, "references"), 0o755); err != nil {
			b.Fatal(err)
		}
		name := filepath.Base(dir)
		md := "---\nname: " + name + "\ndescription: Skill " + name + ", for the tasks it names\nlicense: Apache-2.0\n" +
			"allowed-tools: Read Grep Bash(git:*)\nmetadata:\n  version: \"1.4\"\n  tags: [review, go]\n---\nbody\n"
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "references", "guide.md"), []byte("# guide\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	rt, _ := agent.Lookup("claude-code")
	return Options{Runtime: rt, Project: f.project, Home: f.home}
}

// BenchmarkSkillsListPage: what the server spends on one skills/list page
// of 5,000 skills, the answer encoded as the SDK sends it, without a
// client or transport: the part of a page that is stax's.
func BenchmarkSkillsListPage(b *testing.B) {
	srv, err := New(benchSkills(b, maxIndexedSkills))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	cursor := ""
	b.ReportAllocs()
	for b.Loop() {
		res, err := srv.skillsList(ctx, nil, &SkillsListParams{Cursor: cursor})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(res); err != nil {
			b.Fatal(err)
		}
		cursor = res.NextCursor
	}
}
