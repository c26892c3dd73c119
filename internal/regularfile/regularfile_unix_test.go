//go:build unix

package regularfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/errdefs"
)

func TestReadFileRefusesNamedPipe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pipe := filepath.Join(dir, "CALIBRATION.md")
	filetest.Mkfifo(t, pipe)
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(pipe, link); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{pipe, link} {
		var err error
		filetest.Finishes(t, "ReadFile of a named pipe", func() { _, err = ReadFile(name, 1<<20) })
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("ReadFile(%s) = %v, want ErrNotRegular naming the file and saying it is a named pipe", name, err)
		}
		if errdefs.Of(err) != errdefs.InvalidArgument {
			t.Errorf("class = %v, want invalid argument", errdefs.Of(err))
		}
	}
}
