package substitute

import (
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"123", []string{"123"}},
		{"  a  b\tc\n", []string{"a", "b", "c"}},
		{`"hello world" second`, []string{"hello world", "second"}},
		{`'a b'c "" d`, []string{"a bc", "", "d"}},
		{`"unterminated rest`, []string{"unterminated rest"}},
		{`$ARGUMENTS[0] \n`, []string{"$ARGUMENTS[0]", `\n`}},
	}
	for _, tt := range tests {
		if got := Split(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Split(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
