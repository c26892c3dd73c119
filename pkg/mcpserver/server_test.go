package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/agent"
	"github.com/stax-dev/stax/pkg/render"
	"github.com/stax-dev/stax/pkg/substitute"
)

// fixture is a project and a home with skills in claude-code's folders.
type fixture struct {
	project, home string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	base := t.TempDir()
	f := fixture{project: filepath.Join(base, "project"), home: filepath.Join(base, "home")}
	for _, d := range []string{f.project, f.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f fixture) projectSkills() string { return filepath.Join(f.project, ".claude", "skills") }
func (f fixture) userSkills() string    { return filepath.Join(f.home, ".claude", "skills") }

func skillMD(name, description, body string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body
}

// connect starts a server for f and returns a client session talking to
// it over the SDK's in-memory transport.
func connect(t *testing.T, f fixture, opts Options, copts *mcp.ClientOptions) (*Server, *mcp.ClientSession) {
	t.Helper()
	rt, ok := agent.Lookup("claude-code")
	if !ok {
		t.Fatal("no claude-code runtime")
	}
	opts.Runtime, opts.Project, opts.Home = rt, f.project, f.home
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return srv, cs
}

func tool(t *testing.T, cs *mcp.ClientSession, name string) *mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("tools/list has no %s tool", name)
	return nil
}

// call calls a tool and returns its text and whether it is a tool error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return textOf(res), res.IsError, res
}

// textOf is the text content of a tool result.
func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestSkillToolDescriptionListsSkillsWithShadowing(t *testing.T) {
	f := newFixture(t)
	filetest.Write(t, f.projectSkills(), map[string]string{
		"review/SKILL.md": skillMD("review", "Review a pull request the project way", "project review\n"),
	})
	filetest.Write(t, f.userSkills(), map[string]string{
		"review/SKILL.md": skillMD("review", "Review a pull request the user way", "user review\n"),
		"deploy/SKILL.md": skillMD("deploy", "Deploy the service", "deploy it\n"),
		"hidden/SKILL.md": "---\nname: hidden\ndescription: Only users run this\ndisable-model-invocation: true\n---\nx\n",
	})
	_, cs := connect(t, f, Options{}, nil)

	desc := tool(t, cs, SkillTool).Description
	for _, want := range []string{"- deploy: Deploy the service\n", "- review: Review a pull request the project way\n"} {
		if !strings.Contains(desc, want) {
			t.Errorf("Skill description lacks %q:\n%s", want, desc)
		}
	}
	for _, unwanted := range []string{"the user way", "hidden"} {
		if strings.Contains(desc, unwanted) {
			t.Errorf("Skill description has %q (shadowed or user-only):\n%s", unwanted, desc)
		}
	}
	// The menu is stax list --prompt's: sorted by name, deploy before review.
	if strings.Index(desc, "- deploy") > strings.Index(desc, "- review") {
		t.Errorf("menu not in stax list order:\n%s", desc)
	}

	text, isErr, _ := call(t, cs, SkillTool, map[string]any{"name": "review"})
	if isErr || !strings.Contains(text, "project review\n") || strings.Contains(text, "user review") {
		t.Errorf("Skill review = %q (error %v), want the project skill's body", text, isErr)
	}
	text, isErr, _ = call(t, cs, SkillTool, map[string]any{"name": "hidden"})
	if !isErr || !strings.Contains(text, "disable-model-invocation") {
		t.Errorf("Skill hidden = %q (error %v), want a refusal naming disable-model-invocation", text, isErr)
	}
	text, isErr, _ = call(t, cs, SkillTool, map[string]any{"name": "nope"})
	if !isErr || !strings.Contains(text, ListSkillsTool) {
		t.Errorf("Skill nope = %q (error %v), want an error pointing at ListSkills", text, isErr)
	}
}

func TestSkillInvokeSubstitutes(t *testing.T) {
	f := newFixture(t)
	filetest.Write(t, f.projectSkills(), map[string]string{
		"fix-issue/SKILL.md": skillMD("fix-issue", "Fix an issue",
			"Fix issue $ARGUMENTS[0] (title $ARGUMENTS[1], none: [$ARGUMENTS[5]]).\n"+
				"All: $ARGUMENTS\nRun ${STAX_SKILL_DIR}/scripts/check.sh in ${STAX_WORKSPACE}.\nLiteral \\$ARGUMENTS.\n"),
	})
	workspace := t.TempDir()
	_, cs := connect(t, f, Options{Workspace: workspace}, nil)

	text, isErr, _ := call(t, cs, SkillTool, map[string]any{"name": "fix-issue", "arguments": `123 "flaky test"`})
	if isErr {
		t.Fatalf("Skill fix-issue failed: %s", text)
	}
	dir := filepath.Join(f.projectSkills(), "fix-issue")
	want := "Fix issue 123 (title flaky test, none: []).\nAll: 123 flaky test\n" +
		"Run " + dir + "/scripts/check.sh in " + workspace + ".\nLiteral $ARGUMENTS.\n"
	if !strings.Contains(text, want) {
		t.Errorf("Skill fix-issue =\n%s\nwant the body\n%s", text, want)
	}
}

// statefulSkill has all three siblings, with MEMORY.md entries of three
// dates, so that the load order and the budget can be seen.
var statefulSkill = map[string]string{
	"postmortem/SKILL.md":       skillMD("postmortem", "Write an incident postmortem", "Write the postmortem of $ARGUMENTS.\n"),
	"postmortem/CALIBRATION.md": "## Terminology\n\nSay customer impact, not user pain.\n",
	"postmortem/EXAMPLES.md":    "## Example: outage\n\n### Input\nINC-1\n\n### Output\nA timeline.\n",
	"postmortem/MEMORY.md": "---\nversion: 1.0.0\ncontributors: 2\nlastUpdated: 2026-05-19\n---\n" +
		"## What worked\n\n" +
		"- Old lesson from the first run, @ann, 2026-01-02\n" +
		"- Newest lesson learned recently, @bob, 2026-05-19\n" +
		"- Middle lesson from spring, @cy, 2026-03-10\n",
}

func TestSkillInvokeStatefulLoadOrder(t *testing.T) {
	f := newFixture(t)
	filetest.Write(t, f.projectSkills(), statefulSkill)
	_, cs := connect(t, f, Options{}, nil)

	text, isErr, _ := call(t, cs, SkillTool, map[string]any{"name": "postmortem", "arguments": "INC-42"})
	if isErr {
		t.Fatalf("Skill postmortem failed: %s", text)
	}
	order := []string{"Write the postmortem of INC-42.", "Say customer impact", "## Example: outage", "Newest lesson", "Middle lesson", "Old lesson"}
	at := -1
	for _, s := range order {
		i := strings.Index(text, s)
		if i <= at {
			t.Fatalf("%q is not after the previous pieces (SKILL.md, CALIBRATION.md, EXAMPLES.md, MEMORY.md newest first):\n%s", s, text)
		}
		at = i
	}

	// The Skill tool returns exactly what stax render returns.
	files, err := render.ReadDir(filepath.Join(f.projectSkills(), "postmortem"))
	if err != nil {
		t.Fatal(err)
	}
	files.Name = "postmortem"
	dir := filepath.Join(f.projectSkills(), "postmortem")
	res, err := render.Render(files, render.Options{Substitute: substitute.Options{Arguments: []string{"INC-42"}, SkillDir: dir, Workspace: f.project}})
	if err != nil {
		t.Fatal(err)
	}
	if want := res.Text; text != want {
		t.Errorf("Skill returned\n%s\nstax render returns\n%s", text, want)
	}
}

func TestSkillInvokeBudget(t *testing.T) {
	f := newFixture(t)
	filetest.Write(t, f.projectSkills(), statefulSkill)
	dir := filepath.Join(f.projectSkills(), "postmortem")
	files, err := render.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	full, err := render.Render(files, render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	oldest := int64(len("- Old lesson from the first run, @ann, 2026-01-02\n"))

	t.Run("truncation drops the oldest memory first", func(t *testing.T) {
		_, cs := connect(t, f, Options{Budget: render.Budget{Bytes: full.Bytes - oldest}}, nil)
		text, isErr, res := call(t, cs, SkillTool, map[string]any{"name": "postmortem"})
		if isErr {
			t.Fatalf("Skill postmortem failed: %s", text)
		}
		var meta struct {
			Files   []string
			Dropped []struct {
				File, Date string
				Line       int
			}
		}
		data, _ := json.Marshal(res.Meta[RenderMetaKey])
		if err := json.Unmarshal(data, &meta); err != nil {
			t.Fatal(err)
		}
		if len(meta.Dropped) != 1 || meta.Dropped[0].File != "MEMORY.md" || meta.Dropped[0].Date != "2026-01-02" ||
			strings.Join(meta.Files, ",") != "SKILL.md,CALIBRATION.md,EXAMPLES.md,MEMORY.md" {
			t.Errorf("_meta %s = %s, want the files in load order and the oldest entry dropped", RenderMetaKey, data)
		}
		if strings.Contains(text, "Old lesson") || !strings.Contains(text, "Newest lesson") || !strings.Contains(text, "## Example: outage") {
			t.Errorf("with a budget one entry short, want the oldest MEMORY.md entry dropped and the rest kept:\n%s", text)
		}
		if int64(len(text)) > full.Bytes-oldest {
			t.Errorf("returned %d bytes, over the budget of %d", len(text), full.Bytes-oldest)
		}
	})
	t.Run("refusal when SKILL.md and CALIBRATION.md exceed the budget", func(t *testing.T) {
		_, cs := connect(t, f, Options{Budget: render.Budget{Tokens: 5}}, nil)
		text, isErr, _ := call(t, cs, SkillTool, map[string]any{"name": "postmortem"})
		if !isErr {
			t.Fatalf("Skill postmortem over budget returned the skill instead of a tool error:\n%s", text)
		}
		if strings.Contains(text, "Write the postmortem") || !strings.Contains(text, "never cut") || !strings.Contains(text, "budget of 5 tokens") {
			t.Errorf("refusal = %q, want the reason and no part of the skill", text)
		}
	})
}

func TestInlineLimitAndListSkills(t *testing.T) {
	f := newFixture(t)
	filetest.Write(t, f.projectSkills(), map[string]string{
		"alpha/SKILL.md": skillMD("alpha", "First skill about databases", "a\n"),
		"beta/SKILL.md":  skillMD("beta", "Second skill about deploys", "b\n"),
		"gamma/SKILL.md": skillMD("gamma", "Third skill about Databases too", "gamma body\n"),
	})
	_, cs := connect(t, f, Options{InlineLimit: 2}, nil)

	desc := tool(t, cs, SkillTool).Description
	if !strings.Contains(desc, "- alpha:") || !strings.Contains(desc, "- beta:") || strings.Contains(desc, "- gamma:") {
		t.Errorf("with --inline-limit 2, want alpha and beta listed and gamma not:\n%s", desc)
	}
	if !strings.Contains(desc, "These are 2 of 3 skills. Call ListSkills") {
		t.Errorf("description does not point at ListSkills for the rest:\n%s", desc)
	}
	// The third skill is still invocable.
	if text, isErr, _ := call(t, cs, SkillTool, map[string]any{"name": "gamma"}); isErr || !strings.Contains(text, "gamma body\n") {
		t.Errorf("Skill gamma = %q (error %v)", text, isErr)
	}

	text, isErr, res := call(t, cs, ListSkillsTool, map[string]any{"query": "DATABASES"})
	if isErr {
		t.Fatal(text)
	}
	if text != "- alpha: First skill about databases\n- gamma: Third skill about Databases too\n" {
		t.Errorf("ListSkills databases = %q", text)
	}
	var out ListSkillsOutput
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Skills) != 2 || out.Skills[1].Name != "gamma" || out.Skills[1].Dir != filepath.Join(f.projectSkills(), "gamma") {
		t.Errorf("structured ListSkills = %+v", out)
	}
	if text, _, _ := call(t, cs, ListSkillsTool, nil); strings.Count(text, "\n- ") != 2 || !strings.HasPrefix(text, "- alpha") {
		t.Errorf("ListSkills without a query = %q, want all three", text)
	}
}

func TestParseFailureIsVisible(t *testing.T) {
	f := newFixture(t)
	filetest.Write(t, f.projectSkills(), map[string]string{
		"good/SKILL.md":   skillMD("good", "A good skill", "fine\n"),
		"broken/SKILL.md": "---\nname: broken\ndescription: Use it: when asked\n---\nbody\n",
	})
	logs := make(chan string, 10)
	_, cs := connect(t, f, Options{}, &mcp.ClientOptions{
		//lint:ignore SA1019 log notifications are what is tested
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			s, _ := req.Params.Data.(string)
			logs <- string(req.Params.Level) + " " + s
		},
	})
	file := filepath.Join(f.projectSkills(), "broken", "SKILL.md")

	_, _, res := call(t, cs, ListSkillsTool, nil)
	var out ListSkillsOutput
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Unloadable) != 1 || out.Unloadable[0].File != file || out.Unloadable[0].Line != 3 || out.Unloadable[0].Key != "broken" {
		t.Fatalf("ListSkills unloadable = %+v, want broken/SKILL.md line 3", out.Unloadable)
	}
	text, _, _ := call(t, cs, ListSkillsTool, map[string]any{"query": "good"})
	if !strings.Contains(text, file+":3: skill broken cannot load") {
		t.Errorf("ListSkills text does not name the broken skill with file and line:\n%s", text)
	}
	if text, isErr, _ := call(t, cs, SkillTool, map[string]any{"name": "broken"}); !isErr || !strings.Contains(text, "does not parse") {
		t.Errorf("Skill broken = %q (error %v), want the parse failure", text, isErr)
	}

	//lint:ignore SA1019 log notifications are what is tested
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	select {
	case msg := <-logs:
		if !strings.HasPrefix(msg, "warning "+file+":3: skill broken cannot load") {
			t.Errorf("log notification = %q", msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no log notification of the broken skill")
	}
}

func TestResources(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	filetest.Write(t, filepath.Dir(outside), map[string]string{"secret.txt": "secret"})
	filetest.Write(t, f.projectSkills(), map[string]string{
		"tool/SKILL.md":                skillMD("tool", "A skill with files", "x\n"),
		"tool/references/api guide.md": "# API\n",
		"tool/scripts/run.sh":          "#!/bin/sh\necho hi\n",
		"tool/assets/logo.png":         "\x89PNG\r\n\x1a\n\x00\x00binary",
		"tool/.git/config":             "hidden",
	})
	if err := os.Symlink(outside, filepath.Join(f.projectSkills(), "tool", "references", "leak.txt")); err != nil {
		t.Fatal(err)
	}
	_, cs := connect(t, f, Options{}, nil)

	res, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range res.Resources {
		got[r.URI] = r.MIMEType
	}
	want := map[string]string{
		"skill://tool/SKILL.md":                  "text/markdown",
		"skill://tool/references/api%20guide.md": "text/markdown",
		"skill://tool/scripts/run.sh":            "text/x-shellscript",
		"skill://tool/assets/logo.png":           "image/png",
	}
	if len(got) != len(want) {
		t.Errorf("resources = %v, want %v (no hidden files, no link out of the skill)", got, want)
	}
	for uri, typ := range want {
		if got[uri] != typ {
			t.Errorf("resource %s has type %q, want %q", uri, got[uri], typ)
		}
	}

	read, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://tool/scripts/run.sh"})
	if err != nil {
		t.Fatal(err)
	}
	if c := read.Contents[0]; c.Text != "#!/bin/sh\necho hi\n" || c.MIMEType != "text/x-shellscript" {
		t.Errorf("read run.sh = %+v", c)
	}
	read, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://tool/assets/logo.png"})
	if err != nil {
		t.Fatal(err)
	}
	if c := read.Contents[0]; string(c.Blob) != "\x89PNG\r\n\x1a\n\x00\x00binary" || c.Text != "" {
		t.Errorf("read logo.png = %+v, want the bytes as a blob", c)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://tool/references/leak.txt"}); err == nil {
		t.Error("a link out of the skill was read")
	}
}

// A skill installed after the server read the folders but before Watch
// placed its watches is not missed: Watch reads the folders again once it
// watches them.
func TestWatchSeesWhatChangedBeforeIt(t *testing.T) {
	f := newFixture(t)
	changed := make(chan struct{}, 10)
	srv, cs := connect(t, f, Options{}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	filetest.Write(t, f.projectSkills(), map[string]string{"greet/SKILL.md": skillMD("greet", "Greet the team", "hi\n")})
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan error, 1)
	go func() { watched <- srv.Watch(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-watched; err != nil {
			t.Error(err)
		}
	})
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no tools/list_changed for a skill installed before Watch began")
	}
	if desc := tool(t, cs, SkillTool).Description; !strings.Contains(desc, "- greet: Greet the team") {
		t.Fatalf("the Skill tool does not list greet:\n%s", desc)
	}
}

func TestListChangedAfterInstallAndEdit(t *testing.T) {
	f := newFixture(t)
	changed := make(chan struct{}, 10)
	srv, cs := connect(t, f, Options{}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan error, 1)
	placed := make(chan struct{})
	srv.onWatching = func() { close(placed) }
	go func() { watched <- srv.Watch(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-watched; err != nil {
			t.Error(err)
		}
	})
	select {
	case <-placed:
	case err := <-watched:
		watched <- err // for the cleanup
		t.Fatalf("Watch returned before watching: %v", err)
	}

	waitChanged := func(what string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("no tools/list_changed after %s", what)
		}
	}
	// An install into a skills folder that did not exist: stage, then
	// rename into place, as stax install does.
	staging := filepath.Join(f.project, ".claude", "skills", ".stax-staging-1")
	filetest.Write(t, staging, map[string]string{"greet/SKILL.md": skillMD("greet", "Greet the team", "hi\n")})
	if err := os.Rename(filepath.Join(staging, "greet"), filepath.Join(f.projectSkills(), "greet")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(staging)
	waitChanged("an install")
	if desc := tool(t, cs, SkillTool).Description; !strings.Contains(desc, "- greet: Greet the team") {
		t.Fatalf("after the install the Skill tool does not list greet:\n%s", desc)
	}

	// An edit of the description.
	filetest.Write(t, f.projectSkills(), map[string]string{"greet/SKILL.md": skillMD("greet", "Greet the whole company", "hi\n")})
	waitChanged("an edit")
	if desc := tool(t, cs, SkillTool).Description; !strings.Contains(desc, "- greet: Greet the whole company") {
		t.Fatalf("after the edit the Skill tool has the old description:\n%s", desc)
	}

	// A body edit changes no menu, but the next invocation reads it.
	filetest.Write(t, f.projectSkills(), map[string]string{"greet/SKILL.md": skillMD("greet", "Greet the whole company", "hello\n")})
	if text, _, _ := call(t, cs, SkillTool, map[string]any{"name": "greet"}); !strings.Contains(text, "hello\n") {
		t.Errorf("Skill greet after a body edit = %q", text)
	}
}

// URI escapes the key and each segment of the path, never the slashes
// between them.
func TestURI(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ key, rel, want string }{
		{"review", "SKILL.md", "skill://review/SKILL.md"},
		{"review", "references/guide.md", "skill://review/references/guide.md"},
		{"a b", "notes/50% off/x?.md", "skill://a%20b/notes/50%25%20off/x%3F.md"},
		{"ünï", "dir/é#.md", "skill://%C3%BCn%C3%AF/dir/%C3%A9%23.md"},
		{"k", "", "skill://k/"},
	} {
		if got := URI(tt.key, tt.rel); got != tt.want {
			t.Errorf("URI(%q, %q) = %q, want %q", tt.key, tt.rel, got, tt.want)
		}
	}
}
