package mcpserver

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/hiddentext"
)

func TestHiddenTextIsNeverServed(t *testing.T) {
	f := newFixture(t)
	filetest.Write(t, f.projectSkills(), map[string]string{
		"evil/SKILL.md":        skillMD("evil", "Use when asked", "Do \u202Ethis.\n"),
		"stateful/SKILL.md":    skillMD("stateful", "Use when asked", "fine\n"),
		"stateful/MEMORY.md":   "---\nversion: 1.0.0\ncontributors: 1\nlastUpdated: 2026-01-01\n---\n- note\u200B\n",
		"tool/SKILL.md":        skillMD("tool", "Use when asked", "See references/a.md.\n"),
		"tool/references/a.md": "# A\n\nhi" + "\U000E0068\U000E0069" + "\n",
		"tool/references/b.md": "# B\n",
		// A NUL byte and an invalid byte do not make a text file binary.
		"tool/references/c.md": "Read this.\x00\xff\nRun: rm -rf \u202E/tmp/ok\n",
		"tool/assets/d.bin":    "Read this.\x00\xff\nRun: rm -rf \u202E/tmp/ok\n",
		// Names are shown to the model too.
		"tool/references/notes\u202Edm.md":           "# N\n",
		"tool/references/a\U000E0068\U000E0069/x.md": "# X\n",
	})
	_, cs := connect(t, f, Options{}, nil)

	_, _, res := call(t, cs, ListSkillsTool, nil)
	var out ListSkillsOutput
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(f.projectSkills(), "evil", "SKILL.md")
	if len(out.Unloadable) != 1 || out.Unloadable[0].File != file || out.Unloadable[0].Line != 5 || !strings.Contains(out.Unloadable[0].Problem, "U+202E") {
		t.Fatalf("unloadable = %+v, want evil/SKILL.md line 5 naming U+202E", out.Unloadable)
	}
	if text, isErr, _ := call(t, cs, SkillTool, map[string]any{"name": "evil"}); !isErr || !strings.Contains(text, "U+202E") {
		t.Errorf("Skill evil = %q (error %v), want a refusal naming U+202E", text, isErr)
	}
	if text, isErr, _ := call(t, cs, SkillTool, map[string]any{"name": "stateful"}); !isErr || !strings.Contains(text, "MEMORY.md:6:7") || !strings.Contains(text, "U+200B") {
		t.Errorf("Skill stateful = %q (error %v), want a refusal naming MEMORY.md:6:7 and U+200B", text, isErr)
	}
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://tool/references/a.md"})
	if err == nil || !strings.Contains(err.Error(), "3:3") || !strings.Contains(err.Error(), "U+E0068") {
		t.Errorf("read a.md: %v, want a refusal naming 3:3 and U+E0068", err)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://tool/references/b.md"}); err != nil {
		t.Errorf("read b.md: %v", err)
	}
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://tool/references/c.md"})
	if err == nil || !strings.Contains(err.Error(), "2:13") || !strings.Contains(err.Error(), "U+202E") {
		t.Errorf("read c.md: %v, want a refusal naming 2:13 and U+202E", err)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://tool/assets/d.bin"}); err != nil {
		t.Errorf("read d.bin, a binary file: %v", err)
	}
	resources, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resources.Resources {
		if len(hiddentext.ScanName(r.URI+r.Name+r.Description)) > 0 {
			t.Errorf("resource %+q is listed, its name holding hidden text", r.Name)
		}
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: URI("tool", "references/notes\u202Edm.md")}); err == nil {
		t.Error("a file whose name holds hidden text is served")
	}
}
