package validate

import (
	"io"
	"unicode/utf8"

	"github.com/stax-dev/stax/internal/bytesize"
	"github.com/stax-dev/stax/internal/regularfile"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/hiddentext"
)

// files checks every regular file of the tree: its size, and the encoding
// of the files agents read as text (hiddentext.IsTextName): bytes are
// packaged unchanged, so a file in another encoding reaches the agent
// garbled.
func (v *validator) files(entries []layers.Entry) {
	for _, e := range entries {
		if e.Dir {
			continue
		}
		if e.Size > layers.LargeFileSize {
			v.warnf(e.Path, 0, CodeLargeFile,
				"file is %s, over the %s that draws this warning; every install downloads it: keep large assets out of skills",
				bytesize.Format(e.Size), bytesize.Format(layers.LargeFileSize))
		}
		if !hiddentext.IsTextName(e.Path) {
			continue
		}
		line, err := v.invalidUTF8(e.Source)
		switch {
		case err != nil && v.unreadable[e.Path]:
		case err != nil:
			v.errorf(e.Path, 0, CodeReadError, "cannot read file: %v", err)
		case line > 0:
			v.warnf(e.Path, line, CodeNonUTF8,
				"file is not valid UTF-8; it is packaged byte for byte, so convert it to UTF-8 for agents to read it")
		}
	}
}

func (v *validator) invalidUTF8(name string) (int, error) {
	f, err := regularfile.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return firstInvalidUTF8(f, v.buf)
}

// firstInvalidUTF8 is the 1-based line of the first byte sequence of r
// that is not UTF-8, or 0 when all of r is. It reads in chunks through
// buf (at least utf8.UTFMax bytes), so that a large file costs no more
// memory than a small one and every file the same buffer; a character
// split across two chunks is carried over to the next one.
func firstInvalidUTF8(r io.Reader, buf []byte) (int, error) {
	carry, line := 0, 1
	for {
		n, err := r.Read(buf[carry:])
		eof := err == io.EOF
		if err != nil && !eof {
			return 0, err
		}
		data := buf[:carry+n]
		i := 0
		for i < len(data) {
			c := data[i]
			if c < utf8.RuneSelf {
				if c == '\n' {
					line++
				}
				i++
				continue
			}
			if !eof && !utf8.FullRune(data[i:]) {
				break // the rest of the character is in the next chunk
			}
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return line, nil
			}
			i += size
		}
		if eof {
			return 0, nil
		}
		carry = copy(buf, data[i:])
	}
}
