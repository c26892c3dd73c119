//go:build unix

package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stax-dev/stax/internal/filetest"
)

// TestSkillInvokeNamedPipe: a stateful file replaced by a named pipe after
// the listing is no file any more, as one removed is not: the Skill call
// serves the skill without it, never blocking on the pipe, and the server
// keeps answering.
func TestSkillInvokeNamedPipe(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	filetest.Write(t, f.projectSkills(), map[string]string{
		"piped/SKILL.md":       skillMD("piped", "A skill with a pipe", "body\n"),
		"piped/CALIBRATION.md": "calibrated\n",
		"good/SKILL.md":        skillMD("good", "A good skill", "good body\n"),
	})
	_, cs := connect(t, f, Options{}, nil)
	// Made after connecting, so that on failure its cleanup, which frees
	// a blocked reader, runs before the session's, which waits for it.
	pipe := filepath.Join(f.projectSkills(), "piped", "CALIBRATION.md")
	if err := os.Remove(pipe); err != nil {
		t.Fatal(err)
	}
	filetest.Mkfifo(t, pipe)

	invoke := func(name string) (res *mcp.CallToolResult, err error) {
		filetest.Finishes(t, "Skill "+name, func() {
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: SkillTool, Arguments: map[string]any{"name": name}})
		})
		return res, err
	}
	res, err := invoke("piped")
	if err != nil {
		t.Fatal(err)
	}
	if text := textOf(res); res.IsError || !strings.Contains(text, "body") || strings.Contains(text, "calibrated") {
		t.Errorf("Skill piped = %q (error %v), want the skill without its CALIBRATION.md", text, res.IsError)
	}
	res, err = invoke("good")
	if err != nil {
		t.Fatal(err)
	}
	if text := textOf(res); res.IsError || !strings.Contains(text, "good body") {
		t.Errorf("Skill good after the pipe = %q (error %v)", text, res.IsError)
	}
}

// TestReadResourceNamedPipe: a resource listed as a file and replaced by a
// named pipe before it is read is refused, and the server keeps answering.
func TestReadResourceNamedPipe(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	filetest.Write(t, f.projectSkills(), map[string]string{
		"tool/SKILL.md": skillMD("tool", "A skill with notes", "x\n"),
		"tool/notes.md": "notes\n",
	})
	_, cs := connect(t, f, Options{}, nil)
	notes := filepath.Join(f.projectSkills(), "tool", "notes.md")
	if err := os.Remove(notes); err != nil {
		t.Fatal(err)
	}
	filetest.Mkfifo(t, notes)

	read := func(uri string) (res *mcp.ReadResourceResult, err error) {
		filetest.Finishes(t, "reading "+uri, func() {
			res, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		})
		return res, err
	}
	if _, err := read("skill://tool/notes.md"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("reading a named pipe = %v, want a refusal", err)
	}
	if res, err := read("skill://tool/SKILL.md"); err != nil || !strings.Contains(res.Contents[0].Text, "x\n") {
		t.Errorf("reading SKILL.md after the pipe = %v, %v", res, err)
	}
}

// TestSkillInvokeSocket: a stateful file replaced by a socket after the
// listing, which cannot be opened (ENXIO), is no file any more, as a
// named pipe is not: the Skill call serves the skill without it.
func TestSkillInvokeSocket(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	filetest.Write(t, f.projectSkills(), map[string]string{
		"socketed/SKILL.md":       skillMD("socketed", "A skill with a socket", "body\n"),
		"socketed/CALIBRATION.md": "calibrated\n",
	})
	_, cs := connect(t, f, Options{}, nil)
	sock := filepath.Join(f.projectSkills(), "socketed", "CALIBRATION.md")
	if err := os.Remove(sock); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(sock, syscall.S_IFSOCK|0o644, 0); err != nil {
		t.Skipf("mknod of a socket: %v", err)
	}
	var res *mcp.CallToolResult
	var err error
	filetest.Finishes(t, "Skill socketed", func() {
		res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: SkillTool, Arguments: map[string]any{"name": "socketed"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	if text := textOf(res); res.IsError || !strings.Contains(text, "body") || strings.Contains(text, "calibrated") {
		t.Errorf("Skill socketed = %q (error %v), want the skill without its CALIBRATION.md", text, res.IsError)
	}
}
