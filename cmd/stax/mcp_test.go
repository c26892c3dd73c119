package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stax-dev/stax/internal/filetest"
)

// staxCommand is an exec.Cmd that runs stax with args in env: the test
// binary itself, which TestMain turns into stax, so that no test builds
// and links another binary.
func staxCommand(t testing.TB, env []string, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(append(os.Environ(), runAsStaxEnv+"=1"), env...)
	return cmd
}

func mcpSkillMD(name, description, body string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body
}

// mcpFixture is a project and a home with claude-code skills: a plain
// skill shadowing a user one, a stateful skill, one too big for the
// budget, and one that does not parse.
func mcpFixture(t *testing.T) (project, home string) {
	t.Helper()
	base := t.TempDir()
	project, home = filepath.Join(base, "project"), filepath.Join(base, "home")
	filetest.Write(t, filepath.Join(project, ".claude", "skills"), map[string]string{
		"review/SKILL.md":            mcpSkillMD("review", "Review a pull request the project way", "Review PR $ARGUMENTS[0] in ${STAX_WORKSPACE}.\n"),
		"review/references/rules.md": "# Rules\n",
		"postmortem/SKILL.md":        mcpSkillMD("postmortem", "Write an incident postmortem", "Write the postmortem of $ARGUMENTS.\n"),
		"postmortem/CALIBRATION.md":  "## Terminology\n\nSay customer impact.\n",
		"postmortem/EXAMPLES.md":     "## Example: outage\n\n### Input\nINC-1\n\n### Output\nA timeline.\n",
		"postmortem/MEMORY.md": "---\nversion: 1.0.0\ncontributors: 2\nlastUpdated: 2026-05-19\n---\n## What worked\n\n" +
			"- Old lesson, @ann, 2026-01-02\n" + "- New lesson, @bob, 2026-05-19\n" +
			"- " + strings.Repeat("long old detail ", 30) + "@cy, 2025-12-01\n",
		"big/SKILL.md":    mcpSkillMD("big", "A skill too big for the budget", strings.Repeat("Step. ", 200)+"\n"),
		"broken/SKILL.md": "---\nname: broken\ndescription: Use it: when asked\n---\nbody\n",
	})
	filetest.Write(t, filepath.Join(home, ".claude", "skills"), map[string]string{
		"review/SKILL.md": mcpSkillMD("review", "Review a pull request the user way", "user\n"),
		"deploy/SKILL.md": mcpSkillMD("deploy", "Deploy the service", "Deploy.\n"),
	})
	return project, home
}

// lockedBuffer collects a subprocess's stderr, written by os/exec's
// copying goroutine while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func mcpText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPStdioSubprocess drives the built binary over stdio with the SDK's
// client, as an agent does: initialize, the tools, resources, a parse
// failure, and list_changed after a real stax install.
func TestMCPStdioSubprocess(t *testing.T) {
	t.Parallel()
	project, home := mcpFixture(t)
	staxHome := useHome(t)

	cmd := staxCommand(t, []string{"HOME=" + home, "STAX_HOME=" + staxHome}, "mcp", "--dir", project, "--budget", "60")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	changed := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	if info := cs.InitializeResult().ServerInfo; info.Name != "stax" {
		t.Errorf("server name = %q", info.Name)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var desc string
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Name == "Skill" {
			desc = tl.Description
		}
	}
	if strings.Join(names, ",") != "ListSkills,Skill" {
		t.Errorf("tools = %v, want ListSkills and Skill", names)
	}
	for _, want := range []string{"- deploy: Deploy the service\n", "- postmortem: Write an incident postmortem\n", "- review: Review a pull request the project way\n"} {
		if !strings.Contains(desc, want) {
			t.Errorf("Skill description lacks %q:\n%s", want, desc)
		}
	}
	if strings.Contains(desc, "user way") || strings.Contains(desc, "broken") {
		t.Errorf("Skill description lists a shadowed or broken skill:\n%s", desc)
	}

	callSkill := func(name, args string) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "Skill", Arguments: map[string]any{"name": name, "arguments": args}})
		if err != nil {
			t.Fatal(err)
		}
		return mcpText(res), res.IsError
	}
	if text, isErr := callSkill("review", "42"); isErr || !strings.Contains(text, "Review PR 42 in "+project+".\n") {
		t.Errorf("Skill review = %q (error %v)", text, isErr)
	}
	text, isErr := callSkill("postmortem", "INC-42")
	if isErr {
		t.Fatalf("Skill postmortem: %s", text)
	}
	if !regexp.MustCompile(`(?s)Write the postmortem of INC-42\..*customer impact.*Example: outage.*New lesson.*Old lesson`).MatchString(text) {
		t.Errorf("Skill postmortem not in load order:\n%s", text)
	}
	if strings.Contains(text, "long old detail") || len(text) > 60*4 {
		t.Errorf("Skill postmortem not fitted to 60 tokens (the oldest, long entry dropped), %d bytes:\n%s", len(text), text)
	}
	if text, isErr := callSkill("big", ""); !isErr || !strings.Contains(text, "budget of 60 tokens") || strings.Contains(text, "Step.") {
		t.Errorf("Skill big = %q (error %v), want a refusal with the reason", text, isErr)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ListSkills", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(project, ".claude", "skills", "broken", "SKILL.md")
	if text := mcpText(res); !strings.Contains(text, broken+":3: skill broken cannot load") {
		t.Errorf("ListSkills does not show the parse failure with file and line:\n%s", text)
	}

	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range resources.Resources {
		found = found || r.URI == "skill://review/references/rules.md" && r.MIMEType == "text/markdown"
	}
	if !found {
		t.Errorf("resources/list lacks skill://review/references/rules.md: %+v", resources.Resources)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://review/references/rules.md"})
	if err != nil || read.Contents[0].Text != "# Rules\n" {
		t.Errorf("resources/read = %+v, %v", read, err)
	}

	// A real install of a package directory into the project.
	pkg := filepath.Join(t.TempDir(), "team")
	filetest.Write(t, pkg, map[string]string{
		"stax.yaml":             "name: team\nversion: 1.0.0\nskills: skills\n",
		"skills/greet/SKILL.md": mcpSkillMD("greet", "Greet the team", "Hello.\n"),
	})
	if r := runStax(t, "install", pkg, "--dir", project, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("stax install: exit %d\n%s", r.Code, r.Stderr)
	}
	select {
	case <-changed:
	case <-time.After(15 * time.Second):
		t.Fatalf("no tools/list_changed after stax install\n%s", stderr.String())
	}
	tools, err = cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "Skill" && !strings.Contains(tl.Description, "- greet: Greet the team\n") {
			t.Errorf("after stax install the Skill tool does not list greet:\n%s", tl.Description)
		}
	}
	if text, isErr := callSkill("greet", ""); isErr || !strings.Contains(text, "Hello.\n") {
		t.Errorf("Skill greet = %q (error %v)", text, isErr)
	}
	if !strings.Contains(stderr.String(), broken+":3: skill broken cannot load") {
		t.Errorf("stderr does not log the parse failure:\n%s", stderr.String())
	}
	// Closing stdin ends the server, successfully.
	if err := cs.Close(); err != nil {
		t.Errorf("closing the session: %v\n%s", err, stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("stax mcp exited %d after stdin closed\n%s", code, stderr.String())
	}
}

// TestMCPHTTP serves the streamable HTTP transport on a loopback port, with
// --inline-limit, and lists and calls the tools through it.
func TestMCPHTTP(t *testing.T) {
	t.Parallel()
	project, home := mcpFixture(t)
	cmd := staxCommand(t, []string{"HOME=" + home, "STAX_HOME=" + t.TempDir()}, "mcp", "--dir", project, "--http", "127.0.0.1:0", "--inline-limit", "1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	lines := bufio.NewScanner(stderr)
	var url string
	for lines.Scan() {
		if m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		t.Fatal("stax mcp --http did not say where it listens")
	}
	go func() {
		for lines.Scan() {
		}
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "Skill" && (!strings.Contains(tl.Description, "- big:") || strings.Contains(tl.Description, "- deploy:") ||
			!strings.Contains(tl.Description, "These are 1 of 4 skills. Call ListSkills")) {
			t.Errorf("with --inline-limit 1 the Skill tool does not list big alone and point at ListSkills:\n%s", tl.Description)
		}
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ListSkills", Arguments: map[string]any{"query": "deploy"}})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Skills []struct{ Name string } `json:"skills"`
	}
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil || len(out.Skills) != 1 || out.Skills[0].Name != "deploy" {
		t.Errorf("ListSkills deploy over HTTP = %s (%v)", data, err)
	}
	cs.Close()
	// An interrupt ends the server, successfully.
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("stax mcp --http after an interrupt: %v", err)
	}
}

func TestMCPFlags(t *testing.T) {
	t.Parallel()
	useHome(t)
	for _, args := range [][]string{
		{"mcp", "--inline-limit", "0"},
		{"mcp", "--budget", "-1"},
		{"mcp", "--runtime", "nope"},
		{"mcp", "--http", "8080"},
	} {
		if r := runStax(t, args...); r.Code != 1 {
			t.Errorf("stax %v: exit %d, want 1\n%s", args, r.Code, r.Stderr)
		}
	}
}
