package skill

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// ErrNotRegular is wrapped by the error of ReadFile for a file that is not
// a regular file: a named pipe, a device or a socket.
var ErrNotRegular = errors.New("not a regular file")

// ReadFile reads the skill file name (a SKILL.md or a stateful sibling) of
// at most limit bytes. It is the one way commands read the files of an
// installed skill, because those files are whatever a package or a user
// put there: a named pipe would block a reader forever and a device would
// never end, so anything but a regular file (after links) is refused
// without a byte read, and a file over limit without reading past it.
// Those refusals are invalid arguments, wrapping ErrNotRegular or
// ErrTooLarge; a failure to open or read is returned as the os package
// gives it.
func ReadFile(name string, limit int64) ([]byte, error) {
	f, err := OpenFile(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readAtMost(f, name, info.Size(), limit)
}

// ReadAll reads what r holds of the skill file name, refusing, without
// reading further, more than limit bytes: for a file read from a layer
// rather than from the disk.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	return readAtMost(r, name, 0, limit)
}

// readAtMost reads r, expected to hold size bytes, up to limit.
func readAtMost(r io.Reader, name string, size, limit int64) ([]byte, error) {
	// One allocation when the size is right; a byte more than the limit
	// tells a file over it.
	data := make([]byte, 0, min(max(size, 511), limit)+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if int64(len(data)) > limit {
			return nil, errdefs.Invalid(fmt.Errorf("%s is %w: it holds more than %s, the limit", name, ErrTooLarge, layers.FormatSize(limit)))
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// OpenFile opens name for reading only if it is a regular file, following
// links. The file is opened without blocking (see openFlags) and checked
// on the open descriptor, so a file swapped for a pipe between a check and
// the open cannot block the caller.
func OpenFile(name string) (*os.File, error) {
	return openRegular(name, func(flag int) (*os.File, error) { return os.OpenFile(name, flag, 0) })
}

// OpenFileIn is OpenFile for the file name inside root.
func OpenFileIn(root *os.Root, name string) (*os.File, error) {
	return openRegular(name, func(flag int) (*os.File, error) { return root.OpenFile(name, flag, 0) })
}

func openRegular(name string, open func(flag int) (*os.File, error)) (*os.File, error) {
	f, err := open(os.O_RDONLY | openFlags)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, errdefs.Invalid(fmt.Errorf("%s is %w (%s); skill files must be regular files", name, ErrNotRegular, describeMode(info.Mode())))
	}
	return f, nil
}

func describeMode(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.String()
}
