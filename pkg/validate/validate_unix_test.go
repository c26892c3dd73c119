//go:build unix

package validate

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/hiddentext"
	"github.com/stax-dev/stax/pkg/skill"
)

// specialFileCases build files git cannot store: FIFOs, sockets, devices.
func specialFileCases() []validateCase {
	return []validateCase{
		{name: "fifo", build: buildFIFO,
			want: []finding{e(string(layers.ProblemFIFO), "tool/pipe", 0)}},
		{name: "socket", build: buildSocket,
			want: []finding{e(string(layers.ProblemSocket), "tool/sock", 0)}},
		{name: "device", build: buildDevice,
			want: []finding{e(string(layers.ProblemDevice), "tool/null", 0)}},
		{name: "unsafe name", build: buildUnsafeName,
			want:     []finding{e(string(layers.ProblemUnsafeName), "tool/bad\nname.md", 0)},
			messages: map[string]string{string(layers.ProblemUnsafeName): "control character in path; rename it"}},
		{name: "unreadable directory", build: buildUnreadableDir,
			// The directory is reported, and not also as empty.
			want: []finding{e(string(layers.ProblemUnreadable), "locked", 0)}},
	}
}

func TestDirSpecialFiles(t *testing.T) {
	runCases(t, specialFileCases())
}

func buildFIFO(t *testing.T) (string, string) {
	root := t.TempDir()
	goodSkill(t, root, "tool")
	if err := syscall.Mkfifo(filepath.Join(root, "tool", "pipe"), 0o644); err != nil {
		t.Skipf("cannot create a FIFO here: %v", err)
	}
	return root, ""
}

func buildSocket(t *testing.T) (string, string) {
	root := t.TempDir()
	goodSkill(t, root, "tool")
	l, err := net.Listen("unix", filepath.Join(root, "tool", "sock"))
	if err != nil {
		t.Skipf("cannot create a Unix socket here: %v", err)
	}
	// Closing a listener removes its socket file; keep it until the test
	// is over.
	t.Cleanup(func() { l.Close() })
	return root, ""
}

func buildDevice(t *testing.T) (string, string) {
	root := t.TempDir()
	goodSkill(t, root, "tool")
	// A character device like /dev/null (1, 3); creating one needs
	// privileges most test runs do not have.
	dev := 1<<8 | 3
	if err := syscall.Mknod(filepath.Join(root, "tool", "null"), syscall.S_IFCHR|0o644, dev); err != nil {
		t.Skipf("cannot create a device here: %v", err)
	}
	return root, ""
}

func buildUnsafeName(t *testing.T) (string, string) {
	root := t.TempDir()
	goodSkill(t, root, "tool")
	// Git cannot store this name; Linux file systems can.
	if err := os.WriteFile(filepath.Join(root, "tool", "bad\nname.md"), []byte("x\n"), 0o644); err != nil {
		t.Skipf("cannot create a file with a newline in its name here: %v", err)
	}
	return root, ""
}

func buildUnreadableDir(t *testing.T) (string, string) {
	if os.Geteuid() == 0 {
		t.Skip("root reads directories whatever their mode")
	}
	root := t.TempDir()
	goodSkill(t, root, "tool")
	goodSkill(t, root, "locked")
	locked := filepath.Join(root, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	return root, ""
}

// TestReadersRefuseNamedPipes: the scan refuses a named pipe, but one put
// in a file's place after the scan must not block validate either: every
// reader of skill files opens through regularfile.Open.
func TestReadersRefuseNamedPipes(t *testing.T) {
	t.Parallel()
	pipe := filepath.Join(t.TempDir(), "SKILL.md")
	filetest.Mkfifo(t, pipe)
	v := newValidator(Options{})
	var s hiddentext.Scanner
	for name, read := range map[string]func() error{
		"readFile":    func() error { _, err := readFile(pipe, 0, skill.MaxFileSize); return err },
		"invalidUTF8": func() error { _, err := v.invalidUTF8(pipe); return err },
		"scanFile":    func() error { return scanFile(&s, pipe, v.buf) },
	} {
		var err error
		filetest.Finishes(t, name+" of a named pipe", func() { err = read() })
		if !errors.Is(err, regularfile.ErrNotRegular) {
			t.Errorf("%s of a named pipe: %v, want %v", name, err, regularfile.ErrNotRegular)
		}
	}
}
