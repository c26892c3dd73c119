package layers

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/stax-dev/stax/pkg/hiddentext"
)

// The limits of a path in a layer, in bytes and in elements. Real skills
// stay far below them. Past them a hostile layer would make each check
// and each extraction cost in proportion to depth times length (every
// parent of an entry is checked, created and opened), and its files would
// not open by their absolute paths, where the folder a skill is installed
// in comes in front of the path: Linux allows 4096 bytes in all
// (PATH_MAX) and the common file systems 255 bytes an element (NAME_MAX).
// 1024 bytes leave 3 KiB for that folder; 32 elements are a skill
// directory and 31 levels below it.
const (
	maxPathBytes    = 1024
	maxPathSegments = 32
	maxSegmentBytes = 255
)

// unsafeName says why a slash-separated entry path (without the trailing
// slash of a directory) cannot appear in a layer, or returns "" when it can.
// The writer and the reader share it so that Write never produces a layer
// that Walk refuses.
func unsafeName(p string) string {
	switch {
	case p == "":
		return "empty path"
	case len(p) > maxPathBytes:
		return fmt.Sprintf("path is %d bytes long, over the limit of %d", len(p), maxPathBytes)
	case strings.Count(p, "/") >= maxPathSegments:
		return fmt.Sprintf("path has %d elements, over the limit of %d", strings.Count(p, "/")+1, maxPathSegments)
	case longestSegment(p) > maxSegmentBytes:
		return fmt.Sprintf("path has an element of %d bytes, over the limit of %d", longestSegment(p), maxSegmentBytes)
	case strings.HasPrefix(p, "/"):
		return "absolute path"
	case strings.ContainsRune(p, '\\'):
		return "backslash in path"
	case hasControl(p):
		// Control characters (NUL and newline included) would make the
		// line-based TreeDigest ambiguous and listings misleading.
		return "control character in path"
	case hiddenInName(p) != "":
		return "hidden character " + hiddenInName(p) + " in path"
	case hasDotDot(p):
		return "path traversal (.. segment)"
	case path.Clean(p) != p || p == ".":
		return "path is not clean"
	}
	return ""
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// hiddenInName describes the first character of name, a path or one
// element, that readers cannot see (see package hiddentext), or returns "".
// Listings, diffs and MCP clients show names to people and models alike:
// a right-to-left override makes a name read as another, and tag
// characters carry text only a model reads.
func hiddenInName(name string) string {
	if found := hiddentext.ScanName(name); len(found) > 0 {
		return found[0].Describe()
	}
	return ""
}

// hasDotDot checks segments rather than substrings: "v1..2.md" is a fine name.
func hasDotDot(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

func longestSegment(p string) int {
	longest := 0
	for seg := range strings.SplitSeq(p, "/") {
		longest = max(longest, len(seg))
	}
	return longest
}

// layerKey is the sort key of an entry: directories compare as "path/" so
// that each one comes right before its children.
func layerKey(e Entry) string {
	if e.Dir {
		return e.Path + "/"
	}
	return e.Path
}

// CheckPath says why p cannot be a path inside a layer, or returns nil.
// Whoever turns a path read from elsewhere (a package config) into a file
// system path applies the same rules the reader applies to entries.
func CheckPath(p string) error {
	if why := unsafeName(p); why != "" {
		return fmt.Errorf("%q: %s", p, why)
	}
	return nil
}

// Reserved are the names stax gives its own files and directories inside
// the folders it installs into and extracts beside. No skill may take one:
// a package that did would make stax mistake the skill for its own state,
// or its state for a skill.
var Reserved = []string{".stax", ".stax-install.json", ".stax-journal.json", StagingPrefix}

// UnsafeNameError reports a name that cannot be used as one directory name.
type UnsafeNameError struct {
	Name   string
	Reason string
}

func (e *UnsafeNameError) Error() string {
	return fmt.Sprintf("%q cannot be a skill directory name: %s", e.Name, e.Reason)
}

// CheckName is the one rule for a name read from outside (a package, a
// layer, an install record, stax.lock, a project) that stax then uses as a
// directory in a folder it writes to: exactly one path element, not empty,
// not "." or "..", no separator, no NUL or other control character, not
// starting with "-" (it would read as an option to the tools users point at
// it), no hidden text (hiddenInName), and not hidden or stax's own
// (hiddenName).
func CheckName(name string) error {
	why := ""
	switch {
	case name == "":
		why = "it is empty"
	case name == "." || name == "..":
		why = "it names a directory itself, not one inside"
	case strings.ContainsAny(name, `/\`):
		why = "it holds a path separator"
	case hasControl(name):
		why = "it holds a control character"
	case hiddenInName(name) != "":
		why = "it holds hidden character " + hiddenInName(name)
	case strings.HasPrefix(name, "-"):
		why = `it starts with "-"`
	case hiddenName(name) != "":
		why = "it " + hiddenName(name)
	}
	if why != "" {
		return &UnsafeNameError{Name: name, Reason: why}
	}
	return nil
}

// hiddenName says why one path element is hidden or stax's own, or returns
// "": it starts with "." (version control, tool settings, stax's state),
// it is the short name Windows also gives a .git beside it, or it is one of
// the Reserved names.
func hiddenName(name string) string {
	switch {
	case strings.HasPrefix(name, "."):
		return `starts with "."`
	case isNTFSDotGit(name):
		return "is the short name Windows gives .git"
	case slices.ContainsFunc(Reserved, func(r string) bool { return strings.EqualFold(name, r) || strings.HasPrefix(name, StagingPrefix) }):
		return "is reserved by stax"
	}
	return ""
}

// misplacedEntry says why an entry cannot be where it is in a skills
// layer, or returns "" when it can: every top-level entry is a skill
// directory, named as CheckName says. A file at the top belongs to no
// skill, yet another reader would extract it. The writer and the reader
// share it, as they share unsafeName.
func misplacedEntry(p string, isDir bool) string {
	top := topLevelDir(p, isDir)
	if top == "" {
		return "file at the top level of the layer, where only skill directories belong"
	}
	var bad *UnsafeNameError
	if errors.As(CheckName(top), &bad) {
		return "skill directory name: " + bad.Reason
	}
	return ""
}

// isNTFSDotGit reports whether NTFS resolves name to the .git beside it by
// its 8.3 short name: "git~1" in any letter case, with the trailing dots and
// spaces Windows drops, or followed by a ":stream" suffix. Git refuses the
// same names for the same reason.
func isNTFSDotGit(name string) bool {
	name, _, _ = strings.Cut(name, ":")
	return strings.EqualFold(strings.TrimRight(name, ". "), "git~1")
}

// CheckVisiblePath is CheckPath for a file written into a skill's folder
// on someone else's word (an agent's proposal): no element of p may be
// hidden or stax's own, by the rule CheckName applies to a skill's folder.
// Pack leaves .git and .stax out of a package, but written into a working
// tree a hidden file acts before anything is packaged: a .git/config runs
// its fsmonitor at the next git status in the folder, and a .gitignore or
// .gitattributes hides a change from the review of the repository around
// it.
func CheckVisiblePath(p string) error {
	if err := CheckPath(p); err != nil {
		return err
	}
	for elem := range strings.SplitSeq(p, "/") {
		if why := hiddenName(elem); why != "" {
			return fmt.Errorf("%q: %q %s", p, elem, why)
		}
	}
	return nil
}

// topLevelDir is the skill directory an entry path belongs to, "" for a
// file at the top of the layer.
func topLevelDir(p string, isDir bool) string {
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	if isDir {
		return p
	}
	return ""
}

// CaseCollisions finds sibling paths that differ only in letter case, as
// pairs (first seen, other), in the order given. On the case-insensitive
// file systems of macOS and Windows each pair is one path, so extracting
// both would make one overwrite the other.
func CaseCollisions(paths []string) [][2]string {
	first := map[string]string{}
	var out [][2]string
	for _, p := range paths {
		key := path.Dir(p) + "/" + strings.ToLower(path.Base(p))
		if prev, ok := first[key]; ok {
			if prev != p {
				out = append(out, [2]string{prev, p})
			}
			continue
		}
		first[key] = p
	}
	return out
}
