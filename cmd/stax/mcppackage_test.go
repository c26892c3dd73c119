package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stax-dev/stax/internal/filetest"
)

// stax mcp --package serves a package's skills to a client of the built
// binary, and writes nothing into the project it runs in.
func TestMCPPackageSubprocess(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	project, pkg := filepath.Join(base, "project"), filepath.Join(base, "pkg")
	filetest.Write(t, pkg, map[string]string{
		"stax.yaml":                 "name: served\nversion: 1.0.0\n",
		"skills/hello/SKILL.md":     mcpSkillMD("hello", "Say hello the org way", "Hello from the package.\n"),
		"skills/hello/notes/tip.md": "A tip.\n",
	})
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := staxCommand(t, []string{"HOME=" + t.TempDir(), "STAX_HOME=" + t.TempDir()}, "mcp", "--dir", project, "--package", pkg)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://hello/SKILL.md"})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "Hello from the package.") {
		t.Fatalf("read SKILL.md: %v %v\n%s", res, err, stderr.String())
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://hello/notes/tip.md"}); err != nil {
		t.Errorf("read notes/tip.md: %v", err)
	}
	if entries, err := os.ReadDir(project); err != nil || len(entries) != 0 {
		t.Errorf("the project holds %v (%v), want nothing", entries, err)
	}
}

func TestMCPPackageFlags(t *testing.T) {
	t.Parallel()
	useHome(t)
	for _, args := range [][]string{
		{"mcp", "--package", "a", "--file", "stax.yaml"},
		{"mcp", "--refresh", "1m"},
		{"mcp", "--package", "a", "--refresh", "-1s"},
	} {
		if r := runStax(t, args...); r.Code != 1 {
			t.Errorf("stax %v: exit %d, want 1\n%s", args, r.Code, r.Stderr)
		}
	}
}

// stax mcp --package takes a git source as install does: the skills of
// its tree are served, nothing installed.
func TestMCPPackageGit(t *testing.T) {
	t.Parallel()
	_, repo, _ := serveAnthropics(t)
	project := t.TempDir()
	cmd := staxCommand(t, []string{"HOME=" + t.TempDir(), "STAX_HOME=" + t.TempDir()}, "mcp", "--dir", project, "--package", "git+"+repo.URL+"//skills/pdf#v1.0.0")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf/SKILL.md"})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "name: pdf") {
		t.Fatalf("read pdf's SKILL.md: %v %v\n%s", res, err, stderr.String())
	}
	if entries, err := os.ReadDir(project); err != nil || len(entries) != 0 {
		t.Errorf("the project holds %v (%v), want nothing", entries, err)
	}
}
