package termtext_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/termtext"
)

// A shell reads the line Command prints back into the arguments given.
func TestCommandReadsBackInAShell(t *testing.T) {
	t.Parallel()
	args := []string{"stax", "install", "--dir", "/tmp/it's my \"project\"", "$HOME", "a;b", "", "~/x", "plain/path-1.0"}
	line := termtext.Command(args...)
	out, err := exec.Command("sh", "-c", `printf '%s\0' `+line).Output()
	if err != nil {
		t.Fatalf("sh cannot read %s: %v", line, err)
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); !slices.Equal(got, args) {
		t.Errorf("sh reads %s as %q, want %q", line, got, args)
	}
	if got := termtext.Command("stax", "install", "--dir", "plain/path-1.0"); got != "stax install --dir plain/path-1.0" {
		t.Errorf("Command of plain words: %s, want them as they are", got)
	}
}
