package layers

import (
	"errors"
	"fmt"
	"testing"
)

func TestCheckName(t *testing.T) {
	bad := []string{"", ".", "..", "a/b", `a\b`, "a\x00b", "a\nb", "-rf", "--force", ".git", ".hidden",
		".stax", ".stax-install.json", ".stax-journal.json", ".stax-staging-x", "../victim", "/abs"}
	for _, name := range bad {
		var e *UnsafeNameError
		if err := CheckName(name); !errors.As(err, &e) {
			t.Errorf("CheckName(%q) = %v, want an *UnsafeNameError", name, err)
		}
	}
	for _, name := range []string{"pdf", "v1..2", "a-b_c.d", "MEMORY", "ünïcode", "x-"} {
		if err := CheckName(name); err != nil {
			t.Errorf("CheckName(%q) = %v, want nil", name, err)
		}
	}
}

func TestCaseCollisions(t *testing.T) {
	got := CaseCollisions([]string{"A", "a", "b", "pdf/Ref.md", "pdf/ref.md", "x/a", "y/A", "A"})
	want := [][2]string{{"A", "a"}, {"pdf/Ref.md", "pdf/ref.md"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("CaseCollisions = %v, want %v", got, want)
	}
}
