package layers

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	t.Parallel()
	bad := []string{"", ".", "..", "a/b", `a\b`, "a\x00b", "a\nb", "-rf", "--force", ".git", ".hidden", "GIT~1", "git~1.",
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

// A file written into a skill on someone else's word has no hidden
// element anywhere in its path, nor one Windows reads as .git.
func TestCheckVisiblePath(t *testing.T) {
	t.Parallel()
	bad := map[string]string{
		"s/.git/config":                     `".git" starts with "."`,
		"s/.GIT/config":                     `".GIT" starts with "."`,
		"s/references/.git":                 `".git" starts with "."`,
		"s/.gitignore":                      `".gitignore" starts with "."`,
		"s/a/b/.stax/state":                 `".stax" starts with "."`,
		"s/.stax-install.json":              `".stax-install.json" starts with "."`,
		"s/.stax-staging-x/f":               `".stax-staging-x" starts with "."`,
		"s/GIT~1/config":                    `"GIT~1" is the short name Windows gives .git`,
		"s/git~1./HEAD":                     `"git~1." is the short name Windows gives .git`,
		"s/git~1 /HEAD":                     `"git~1 " is the short name Windows gives .git`,
		"s/git~1::$INDEX_ALLOCATION/config": `"git~1::$INDEX_ALLOCATION" is the short name Windows gives .git`,
		".git/config":                       `".git" starts with "."`,
		"s/../x":                            "path traversal",
		"/s/x":                              "absolute path",
	}
	for p, want := range bad {
		err := CheckVisiblePath(p)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), fmt.Sprintf("%q", p)) {
			t.Errorf("CheckVisiblePath(%q) = %v, want an error naming the path and %s", p, err, want)
		}
	}
	for _, p := range []string{"s/SKILL.md", "s/references/v1..2.md", "s/a.b/c.", "s/git~2/x", "s/legit~1", "s/gitx/y", "s/-x"} {
		if err := CheckVisiblePath(p); err != nil {
			t.Errorf("CheckVisiblePath(%q) = %v, want nil", p, err)
		}
	}
}

func TestCaseCollisions(t *testing.T) {
	t.Parallel()
	got := CaseCollisions([]string{"A", "a", "b", "pdf/Ref.md", "pdf/ref.md", "x/a", "y/A", "A"})
	want := [][2]string{{"A", "a"}, {"pdf/Ref.md", "pdf/ref.md"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("CaseCollisions = %v, want %v", got, want)
	}
}

// A path has at most maxPathBytes bytes, maxPathSegments elements and
// maxSegmentBytes bytes an element: at each limit it is fine, one past it
// refused, by the one rule every path of a layer passes.
func TestUnsafeNameLimits(t *testing.T) {
	t.Parallel()
	// segments joins n elements of width bytes each, under "s/".
	segments := func(n, width int) string {
		elems := []string{"s"}
		for i := 1; i < n; i++ {
			elems = append(elems, strings.Repeat(string(rune('a'+i%26)), width))
		}
		return strings.Join(elems, "/")
	}
	longest := segments(5, 200)
	longest += "/" + strings.Repeat("z", maxPathBytes-len(longest)-1)
	for _, p := range []string{longest, segments(maxPathSegments, 1), "s/" + strings.Repeat("x", maxSegmentBytes)} {
		if why := unsafeName(p); why != "" {
			t.Errorf("unsafeName of a path of %d bytes, %d elements: %s", len(p), strings.Count(p, "/")+1, why)
		}
	}
	for p, want := range map[string]string{
		longest + "z":                                 "1025 bytes long, over the limit of 1024",
		segments(maxPathSegments+1, 1):                "33 elements, over the limit of 32",
		segments(2050, 1):                             "4099 bytes long",
		"s/" + strings.Repeat("x", maxSegmentBytes+1): "element of 256 bytes, over the limit of 255",
	} {
		if why := unsafeName(p); !strings.Contains(why, want) {
			t.Errorf("unsafeName of a path of %d bytes, %d elements = %q, want %q", len(p), strings.Count(p, "/")+1, why, want)
		}
		if err := CheckPath(p); err == nil {
			t.Errorf("CheckPath accepted a path of %d bytes, %d elements", len(p), strings.Count(p, "/")+1)
		}
	}
}

// No element of a path may hold hidden text (package hiddentext): the
// reason names the code point, never what tag characters spell.
func TestHiddenTextInNames(t *testing.T) {
	t.Parallel()
	bad := map[string]string{
		"s/references/notes\u202Edm.md":                "hidden character U+202E RIGHT-TO-LEFT OVERRIDE in path",
		"s/a\U000E0068\U000E0069.md":                   "hidden character U+E0068 TAG LATIN SMALL LETTER H and 1 more hidden character in path",
		"s/\uFEFFa.md":                                 "hidden character U+FEFF ZERO WIDTH NO-BREAK SPACE in path",
		"\uFEFFs/a.md":                                 "hidden character U+FEFF ZERO WIDTH NO-BREAK SPACE in path",
		"s/a\u200B/b.md":                               "hidden character U+200B ZERO WIDTH SPACE in path",
		"s/a\u2066.md":                                 "hidden character U+2066 LEFT-TO-RIGHT ISOLATE in path",
		"s/x\U000E0100\U000E0101.md":                   "hidden character U+E0100 VARIATION SELECTOR-17",
		"s/" + "\U0001F3F4" + "\U000E0067\U000E0062/x": "hidden character U+E0067 TAG LATIN SMALL LETTER G",
	}
	for p, want := range bad {
		err := CheckPath(p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckPath(%+q) = %v, want %q", p, err, want)
		}
		if err := CheckVisiblePath(p); err == nil {
			t.Errorf("CheckVisiblePath(%+q) = nil", p)
		}
	}
	// What writing needs stays allowed: emoji sequences and flags, the
	// joiners of scripts, and a selector after its character.
	for _, p := range []string{"s/\U0001F468\u200D\U0001F469\u200D\U0001F467.md", "s/\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F",
		"s/\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645.md", "s/\u263A\uFE0F.md", "s/caf\u00E9/\u65E5\u672C.md"} {
		if err := CheckPath(p); err != nil {
			t.Errorf("CheckPath(%+q) = %v, want nil", p, err)
		}
	}
	var e *UnsafeNameError
	if err := CheckName("evil\u202E"); !errors.As(err, &e) || !strings.Contains(e.Reason, "U+202E RIGHT-TO-LEFT OVERRIDE") {
		t.Errorf("CheckName of a name with U+202E = %v", err)
	}
	if err := CheckName("\U0001F600\uFE0F"); err != nil {
		t.Errorf("CheckName of an emoji = %v", err)
	}
}
