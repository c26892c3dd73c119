package skill

import (
	"strings"
	"testing"
)

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		err  string // substring; empty means valid
	}{
		{"pdf-processing", ""},
		{"a", ""},
		{"v2", ""},
		{"a-b-c", ""},
		{strings.Repeat("a", 64), ""},
		{"", "empty"},
		{strings.Repeat("a", 65), "65 characters long; the limit is 64"},
		{"PDF-Processing", `use "pdf-processing"`},
		{"My_Skill", "uppercase letters; use only lowercase"},
		{"my_skill", `contains '_'`},
		{"my skill", `contains ' '`},
		{"café", `contains 'é'`},
		{"-pdf", "starts with a hyphen"},
		{"pdf-", "ends with a hyphen"},
		{"pdf--proc", "consecutive hyphens"},
	}
	for _, tt := range tests {
		err := ValidName(tt.name)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("ValidName(%q) = %v, want nil", tt.name, err)
		case tt.err != "" && err == nil:
			t.Errorf("ValidName(%q) = nil, want an error containing %q", tt.name, tt.err)
		case tt.err != "" && !strings.Contains(err.Error(), tt.err):
			t.Errorf("ValidName(%q) = %v, want it to contain %q", tt.name, err, tt.err)
		}
	}
}

func TestValidNameCountsRunes(t *testing.T) {
	// 64 characters but 65 bytes: rejected for the character, not the length.
	err := ValidName(strings.Repeat("a", 63) + "é")
	if err == nil || strings.Contains(err.Error(), "characters long") {
		t.Errorf("ValidName = %v, want a character error", err)
	}
}
