package layers

import (
	"fmt"
	"path"
	"strings"
)

// unsafeName says why a slash-separated entry path (without the trailing
// slash of a directory) cannot appear in a layer, or returns "" when it can.
// The writer and the reader share it so that Write never produces a layer
// that Walk refuses.
func unsafeName(p string) string {
	switch {
	case p == "":
		return "empty path"
	case strings.HasPrefix(p, "/"):
		return "absolute path"
	case strings.ContainsRune(p, '\\'):
		return "backslash in path"
	case hasControl(p):
		// Control characters (NUL and newline included) would make the
		// line-based TreeDigest ambiguous and listings misleading.
		return "control character in path"
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

// hasDotDot checks segments rather than substrings: "v1..2.md" is a fine name.
func hasDotDot(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
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
