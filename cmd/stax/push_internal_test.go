package main

import "testing"

func TestPrecedingTag(t *testing.T) {
	tests := []struct {
		tags     []string
		tag      string
		want     string
		wantSome bool
	}{
		{[]string{"1.0.0", "1.0.1"}, "1.0.1", "1.0.1", true},                    // re-push: the same tag
		{[]string{"0.9.0", "1.0.0", "2.0.0", "latest"}, "1.1.0", "1.0.0", true}, // highest below
		{[]string{"1.10.0", "1.9.0"}, "1.11.0", "1.10.0", true},                 // semver order, not text
		{[]string{"2.0.0"}, "1.0.0", "", false},                                 // nothing below
		{[]string{"latest", "main"}, "1.0.0", "", false},                        // no versions
		{[]string{"1.0.0"}, "nightly", "", false},                               // not a version
		{nil, "1.0.0", "", false},
	}
	for _, tt := range tests {
		got, ok := precedingTag(tt.tags, tt.tag)
		if got != tt.want || ok != tt.wantSome {
			t.Errorf("precedingTag(%v, %q) = %q, %v; want %q, %v", tt.tags, tt.tag, got, ok, tt.want, tt.wantSome)
		}
	}
}
