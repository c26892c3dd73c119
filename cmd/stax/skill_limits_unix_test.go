//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/skill"
)

// A named pipe in place of a stateful file makes render fail naming it
// (exit 1) instead of blocking forever.
func TestRenderRefusesNamedPipe(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := filepath.Join(t.TempDir(), "piped")
	filetest.WriteFile(t, filepath.Join(dir, skill.FileName), "---\nname: piped\ndescription: Piped. Use when testing.\n---\nbody\n")
	pipe := filepath.Join(dir, "CALIBRATION.md")
	filetest.Mkfifo(t, pipe)
	var r result
	filetest.Finishes(t, "stax render", func() { r = runStax(t, "render", dir) })
	if r.Code != 1 || !strings.Contains(r.Stderr, pipe+" is not a regular file (a named pipe)") {
		t.Errorf("exit %d, want 1 naming the pipe:\n%s", r.Code, r.Stderr)
	}
}
