package termtext

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want, lines string }{
		{"1.2.0", "1.2.0", "1.2.0"},
		{"Known issues: naïve 日本 👩🏽‍💻", `Known issues: naïve 日本 👩🏽\u200d💻`, `Known issues: naïve 日本 👩🏽\u200d💻`},
		{`a "quoted" C:\path`, `a "quoted" C:\path`, `a "quoted" C:\path`},
		{"v1\x1b[2J", `v1\x1b[2J`, `v1\x1b[2J`},
		{"x\x1b]0;PWNED\x07", `x\x1b]0;PWNED\a`, `x\x1b]0;PWNED\a`},
		{"one\r\ntwo\tthree", `one\r\ntwo\tthree`, "one\\r\ntwo\tthree"},
		{"csi\u009b31m del\x7f", `csi\u009b31m del\x7f`, `csi\u009b31m del\x7f`},
		{"bidi\u202eevil", `bidi\u202eevil`, `bidi\u202eevil`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`, `bad\xffutf8\xc3`},
		{"nul\x00", `nul\x00`, `nul\x00`},
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := EscapeLines(c.in); got != c.lines {
			t.Errorf("EscapeLines(%q) = %q, want %q", c.in, got, c.lines)
		}
	}
}

// Whatever the input, no byte a terminal acts on survives: no C0 control
// but (in lines) newline and tab, no DEL, no C1 control, no byte that is
// not UTF-8.
func FuzzEscape(f *testing.F) {
	f.Add("x\x1b]0;t\x07\r\n\u009b\x7f\xff")
	f.Fuzz(func(t *testing.T, s string) {
		for _, lines := range []bool{false, true} {
			out := escape(s, lines)
			if !utf8.ValidString(out) {
				t.Fatalf("escape(%q, %v) = %q is not UTF-8", s, lines, out)
			}
			if i := strings.IndexFunc(out, func(r rune) bool {
				if lines && (r == '\n' || r == '\t') {
					return false
				}
				return r < 0x20 || r >= 0x7f && r <= 0x9f
			}); i >= 0 {
				t.Fatalf("escape(%q, %v) = %q holds a control at %d", s, lines, out, i)
			}
		}
	})
}

// JSON escapes what encoding/json leaves raw, and the JSON reads back the
// same.
func TestJSON(t *testing.T) {
	in := map[string]string{"tag": "x\x1b]0;PWNED\x07 csi\u009b31m del\x7f \u202e flag\U000E0041 日本 \"q\" \\ \r\n"}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(data)
	want := `{"tag":"x\u001b]0;PWNED\u0007 csi\u009b31m del\u007f \u202e flag\udb40\udc41 日本 \"q\" \\ \r\n"}`
	if string(out) != want {
		t.Errorf("JSON(%s) =\n%s\nwant\n%s", data, out, want)
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["tag"] != in["tag"] {
		t.Errorf("JSON's output reads back as %q (%v), want %q", back, err, in)
	}
	if plain := []byte(`{"a": [1, "b"]}` + "\n"); &JSON(plain)[0] != &plain[0] {
		t.Errorf("JSON copies text it does not change")
	}
}

func TestWriter(t *testing.T) {
	var out strings.Builder
	msg := "warning: x\x1b]0;PWNED\x07 moved\r\nnext line\n"
	n, err := fmt.Fprint(Writer{&out}, msg)
	if err != nil || n != len(msg) {
		t.Errorf("Fprint = %d, %v; want %d, nil", n, err, len(msg))
	}
	if want := "warning: x\\x1b]0;PWNED\\a moved\\r\\nnext line\n"; out.String() != want {
		t.Errorf("wrote %q, want %q", out.String(), want)
	}
}
