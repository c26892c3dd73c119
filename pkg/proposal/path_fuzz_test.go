package proposal

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzSplitPath: a path splitPath accepts stays inside its skill's folder
// wherever the skills directory is, names the slug it returned, and has
// no hidden element.
func FuzzSplitPath(f *testing.F) {
	for _, s := range []string{"a/SKILL.md", "a/../b", "/etc/x", "a/./b", "a//b", "a\\b", "A/x", "a/b/", "..", "a/\x00", "a/b/../../c", "a-b/references/x.md", "a/.git/config", "a/GIT~1/config"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		slug, rel, err := splitPath(key)
		if err != nil {
			return
		}
		root := filepath.Join(string(filepath.Separator)+"skills", slug)
		full := filepath.Join(root, filepath.FromSlash(rel))
		if !strings.HasPrefix(full, root+string(filepath.Separator)) {
			t.Fatalf("%q → %q is outside %q", key, full, root)
		}
		if slug+"/"+rel != key || strings.ContainsAny(slug, "/\\.") {
			t.Fatalf("%q split into %q and %q", key, slug, rel)
		}
		if strings.Contains("/"+key, "/.") {
			t.Fatalf("%q has a hidden element", key)
		}
	})
}
