package semver

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Version
		err  string
	}{
		{in: "1.2.3", want: Version{Major: 1, Minor: 2, Patch: 3}},
		{in: "0.0.0", want: Version{}},
		{in: "10.20.30-rc.1+build.5", want: Version{Major: 10, Minor: 20, Patch: 30, Pre: "rc.1", Build: "build.5"}},
		{in: "1.0.0-alpha-beta", want: Version{Major: 1, Pre: "alpha-beta"}},
		{in: "1.0", err: "not MAJOR.MINOR.PATCH"},
		{in: "1.0.0.0", err: "not MAJOR.MINOR.PATCH"},
		{in: "v1.0.0", err: "not a number"},
		{in: "01.0.0", err: "leading zeros"},
		{in: "1.x.0", err: "not a number"},
		{in: "", err: "not MAJOR.MINOR.PATCH"},
		{in: "1.0.0-", err: "pre-release"},
		{in: "1.0.0-01", err: "pre-release"},
		{in: "1.0.0+", err: "build"},
		{in: "1.0.0-a..b", err: "pre-release"},
		{in: "99999999999999999999.0.0", err: "too large"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Parse(%q) error = %v, want %q", tt.in, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("Parse(%q): %v", tt.in, err)
		case tt.err == "" && got != tt.want:
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
		case tt.err == "" && got.String() != tt.in:
			t.Errorf("String() = %q, want %q", got.String(), tt.in)
		}
	}
}

func TestNext(t *testing.T) {
	tests := []struct {
		from string
		part Part
		want string
	}{
		{"1.2.3", Patch, "1.2.4"},
		{"1.2.3", Minor, "1.3.0"},
		{"1.2.3", Major, "2.0.0"},
		{"0.9.9", Patch, "0.9.10"},
		{"1.2.3-rc.1+b", Patch, "1.2.4"},
		{"1.2.3-rc.1", Major, "2.0.0"},
	}
	for _, tt := range tests {
		v, _ := Parse(tt.from)
		got, err := v.Next(tt.part)
		if err != nil || got.String() != tt.want {
			t.Errorf("%s %s = %s, %v; want %s", tt.from, tt.part, got, err, tt.want)
		}
		if Compare(got, v) <= 0 {
			t.Errorf("%s %s = %s is not greater", tt.from, tt.part, got)
		}
	}
	if _, err := (Version{}).Next("huge"); err == nil {
		t.Error("unknown part accepted")
	}
}

func TestCompare(t *testing.T) {
	// Each version is lower than the next (semver.org §11 and more).
	order := []string{
		"0.9.9", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
		"1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "1.10.0", "2.0.0",
	}
	for i := range order {
		for j := range order {
			a, _ := Parse(order[i])
			b, _ := Parse(order[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := Compare(a, b); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
	a, _ := Parse("1.0.0+a")
	b, _ := Parse("1.0.0+b")
	if Compare(a, b) != 0 {
		t.Error("build metadata counts in precedence")
	}
}

// TestSkillEditsOnlyTheVersion checks byte for byte that a bump changes
// the version values and nothing else, whatever style they are written in.
