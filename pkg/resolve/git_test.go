package resolve

import (
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/gitpackage"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/store"
)

// A git source's key in the local store is its reference at the REF it
// resolved through, without credentials, with the plugin and the skills
// chosen (sorted: the same choice is one package); no registry
// reference is keyed the same.
func TestGitNodeStoreKey(t *testing.T) {
	ref, err := gitsource.Parse("git+https://someone:s3cret@git.example.com/acme/skills.git//plugins#main")
	if err != nil {
		t.Fatal(err)
	}
	resolved := gitpackage.Locked{Resolved: gitsource.Resolved{Ref: "main", Kind: gitsource.KindBranch, Commit: strings.Repeat("a", 40)}}
	for _, tc := range []struct {
		choice GitChoice
		want   string
	}{
		{GitChoice{}, "git+https://git.example.com/acme/skills.git//plugins#main"},
		{GitChoice{Plugin: "docs@market", Skills: []string{"pdf", "docx"}}, "git+https://git.example.com/acme/skills.git//plugins#main?plugin=docs%40market&skill=docx&skill=pdf"},
	} {
		key := (&GitNode{Reference: ref, GitChoice: tc.choice, Locked: resolved}).StoreKey()
		if key != tc.want {
			t.Errorf("StoreKey of %+v = %q, want %q", tc.choice, key, tc.want)
		}
		if r, err := reference.Parse(key); err == nil {
			t.Errorf("%q parses as the registry reference %s, whose key %q may be the same", key, r, store.Key(r))
		}
	}
}

// Two sources of one repository whose SUBDIR and REF split the same text
// at another '#' are two keys: a tree kept under one is never read as
// the other's.
func TestGitNodeStoreKeySubdirWithHash(t *testing.T) {
	key := func(subdir, ref string) string {
		r, err := gitsource.Parse("git+https://git.example.com/acme/skills.git//" + subdir)
		if err != nil {
			t.Fatal(err)
		}
		resolved := gitpackage.Locked{Resolved: gitsource.Resolved{Ref: ref, Kind: gitsource.KindBranch, Commit: strings.Repeat("a", 40)}}
		return (&GitNode{Reference: r, Locked: resolved}).StoreKey()
	}
	if a, b := key("a%23b", "main"), key("a", "b#main"); a == b {
		t.Errorf("SUBDIR a#b at main and SUBDIR a at b#main are both kept as %q", a)
	}
}
