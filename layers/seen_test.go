package layers

import "testing"

// sortsAfter orders top-level directories as stax writes them, by their
// names with a slash.
func TestSortsAfterOrdersNamesWithASlash(t *testing.T) {
	t.Parallel()
	names := []string{"a", "a-b", "a.b", "a0", "ab", "b", "a-", "aa", "a_b"}
	for _, a := range names {
		for _, b := range names {
			if got, want := sortsAfter(a, b), a+"/" > b+"/"; got != want {
				t.Errorf("sortsAfter(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}
