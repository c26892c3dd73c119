// Package regularfile reads the files a user or a package names: a
// stax.yaml, a key, a token file, a skill's files. Such a path may name
// anything: a named pipe blocks whoever opens it for reading until a
// writer comes, with no descriptor to check and no signal to end the wait,
// a device never ends, and a huge file takes memory several times its
// size to decode. So only regular files (after links) are read, checked on
// the descriptor that is read, opened without blocking, and never past a
// limit that suits what the file holds.
package regularfile

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/stax-dev/stax/internal/bytesize"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// ErrNotRegular is wrapped by the error for a file that is not a regular
// file: a named pipe, a device, a socket or a directory.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error for a file over its limit.
var ErrTooLarge = errors.New("too large")

// ReadFile reads name, a regular file of at most limit bytes. The
// refusals, of a file that is not regular or is over limit, are invalid
// arguments naming the file, wrapping ErrNotRegular or ErrTooLarge; a
// failure to open or read is returned as the os package gives it, so that
// errors.Is(err, fs.ErrNotExist) holds for a missing file.
func ReadFile(name string, limit int64) ([]byte, error) {
	f, err := Open(name)
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

// ReadAll reads r, which holds the file name, refusing, without reading
// further, more than limit bytes: for a file opened with Open or OpenIn,
// or read from a layer rather than from the disk.
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
			return nil, errdefs.Invalid(fmt.Errorf("%s is %w: it holds more than %s, the limit", name, ErrTooLarge, bytesize.Format(limit)))
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

// Open opens name for reading only if it is a regular file, following
// links. The file is opened without blocking (see openFlags) and checked
// on the open descriptor, so a file swapped for a pipe between a check and
// the open cannot block the caller.
func Open(name string) (*os.File, error) {
	return openRegular(name, func(flag int) (*os.File, error) { return os.OpenFile(name, flag, 0) })
}

// OpenIn is Open for the file name inside root.
func OpenIn(root *os.Root, name string) (*os.File, error) {
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
		return nil, errdefs.Invalid(fmt.Errorf("%s is %w (%s): stax reads only regular files; give the path of a file", name, ErrNotRegular, describeMode(info.Mode())))
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
