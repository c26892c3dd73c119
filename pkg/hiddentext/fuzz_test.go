package hiddentext

import "testing"

// FuzzChunks checks that where the input is cut does not change what is
// found: a Scanner fed the input in two chunks, then in chunks of a
// fuzzed size, finds what it finds fed all of it at once.
func FuzzChunks(f *testing.F) {
	f.Add([]byte("a\u202Eb"), uint8(1), uint8(1))
	f.Add([]byte("👨\u200D👩\u200D👧"), uint8(3), uint8(2))
	f.Add([]byte(england+tags("x")), uint8(5), uint8(3))
	f.Add([]byte("\uFEFF\u200Bمی\u200Cخواهم\xff\x00"), uint8(2), uint8(7))
	f.Add([]byte("😀\uFE0F\U000E0100\n\uFE0F葛\U000E0100"), uint8(4), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, cut, size uint8) {
		whole := Scan(data)
		var s Scanner
		at := min(int(cut), len(data))
		s.Write(data[:at])
		s.Write(data[at:])
		s.Close()
		if got := s.Findings(); !equalFindings(got, whole) {
			t.Fatalf("cut at %d: %v, whole: %v", at, got, whole)
		}
		if got := scanChunks(string(data), int(size)%16+1); !equalFindings(got, whole) {
			t.Fatalf("chunks of %d: %v, whole: %v", int(size)%16+1, got, whole)
		}
		for _, f := range whole {
			if Name(f.Rune) == "" && !isTag(f.Rune) {
				t.Fatalf("finding of %U, which is not hidden text", f.Rune)
			}
			if f.Line < 1 || f.Column < 1 || f.Count < 1 {
				t.Fatalf("finding at %d:%d of %d", f.Line, f.Column, f.Count)
			}
		}
	})
}
