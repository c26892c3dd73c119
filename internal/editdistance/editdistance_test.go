package editdistance

import "testing"

func TestLevenshtein(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"team-skils", "team-skills", 1}} {
		if got := Levenshtein(tt.a, tt.b); got != tt.d {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
	}
}

func TestClosest(t *testing.T) {
	t.Parallel()
	keys := []string{"name", "version", "skills", "packages", "install", "trust"}
	for _, tt := range []struct{ typed, want string }{
		{"instal", "install"}, {"verison", "version"}, {"pakages", "packages"},
		{"skill", "skills"}, {"inst", "install"}, {"colour", ""}, {"x", ""},
	} {
		if got := Closest(tt.typed, keys); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}
