package hiddentext

import (
	"bytes"
	"reflect"
	"testing"
	"unicode/utf8"
)

// FuzzBulkMatchesCharByChar: Write takes runs of ASCII in bulk; what it
// finds, and where, is what scanning one character at a time finds. (Once
// a file turns out binary nothing counts, so positions are not compared.)
func FuzzBulkMatchesCharByChar(f *testing.F) {
	for _, s := range []string{"hi\u200b there\n\x00\xff\u202e", "a\u200db", "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f x", "\ufeffa\n\nb\u0915\u094d\u200d\u0937", "x\ufe0f\ufe0f y",
		// Runs of ASCII longer than the eight bytes Write tests at once.
		"abcdefgh\u200b", "abcdefghijklmno\u202eabcdefghijklmnop\xff", "abcdefg\n\x00abcdefgh\x80"} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, text bool) {
		a := Scanner{Text: text}
		a.Write(data)
		a.Close()
		b := Scanner{Text: text}
		for i := 0; i < len(data); {
			r, size := utf8.DecodeRune(data[i:])
			if b.binary {
				break
			}
			b.char(r, size)
			i += size
		}
		b.closed = false
		b.Close()
		if !reflect.DeepEqual(a.Findings(), b.Findings()) || a.More() != b.More() || a.binary != b.binary || !a.binary && (a.line != b.line || a.column != b.column || a.offset != b.offset || a.ordinal != b.ordinal) {
			t.Fatalf("bulk %v %d (%d:%d) != char %v %d (%d:%d)", a.Findings(), a.More(), a.line, a.column, b.Findings(), b.More(), b.line, b.column)
		}
	})
}

// BenchmarkScanASCII is the cost of scanning the text of a skill, which is
// nearly all ASCII, as install does for every file it writes.
func BenchmarkScanASCII(b *testing.B) {
	line := []byte("Run the script with the project's settings, then compare its output with the reference.\n")
	data := bytes.Repeat(line, (64<<10)/len(line))
	b.SetBytes(int64(len(data)))
	var s Scanner
	for b.Loop() {
		s.Reset()
		s.Write(data)
		s.Close()
	}
}
