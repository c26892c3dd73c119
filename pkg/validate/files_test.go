package validate

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestFirstInvalidUTF8(t *testing.T) {
	// A character split across the 32 KiB chunk boundary must not be
	// mistaken for an invalid sequence, nor an invalid byte there missed.
	pad := strings.Repeat("a", 32<<10-1)
	tests := []struct {
		name string
		in   string
		line int
	}{
		{"empty", "", 0},
		{"ascii", "# Title\n\ntext\n", 0},
		{"multibyte", "Café — 日本語 🎉\n", 0},
		{"replacement character is valid", "\uFFFD\n", 0},
		{"latin-1", "line 1\nCaf\xe9\n", 2},
		{"invalid on first line", "\xff", 1},
		{"truncated at end of file", "ok\n\xe6\x97", 2},
		{"overlong encoding", "\xc0\xaf", 1},
		{"surrogate half", "\xed\xa0\x80", 1},
		{"split across chunks", pad + "é" + "\n", 0},
		{"four bytes split across chunks", pad[1:] + "🎉\n", 0},
		{"invalid at chunk boundary", pad + "\xe9x\n", 1},
		{"invalid after chunk boundary", pad + "\n" + strings.Repeat("b", 40<<10) + "\n\xff", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []struct {
				name string
				r    io.Reader
			}{
				{"whole", strings.NewReader(tt.in)},
				{"one byte at a time", iotest.OneByteReader(strings.NewReader(tt.in))},
				{"half", iotest.HalfReader(strings.NewReader(tt.in))},
				{"data with EOF", iotest.DataErrReader(strings.NewReader(tt.in))},
			} {
				line, err := firstInvalidUTF8(r.r, make([]byte, 32<<10))
				if err != nil {
					t.Fatalf("%s: %v", r.name, err)
				}
				if line != tt.line {
					t.Errorf("%s: line = %d, want %d", r.name, line, tt.line)
				}
			}
		})
	}
}

func TestFirstInvalidUTF8ReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := firstInvalidUTF8(io.MultiReader(bytes.NewReader([]byte("ok")), iotest.ErrReader(boom)), make([]byte, 32<<10))
	if !errors.Is(err, boom) {
		t.Errorf("error = %v, want %v", err, boom)
	}
}
