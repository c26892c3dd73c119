package workflow

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/gittest"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/semver"
)

// Outdated lists each git repository's refs with one git ls-remote
// however many sources name it, and finds a newer tag in a range, a newer
// release beside a pinned tag, a tag pushed over and a branch that moved.
func TestOutdatedGitSourcesListEachRepositoryOnce(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	skill := func(version string) map[string]string {
		return map[string]string{"skills/pdf/SKILL.md": "---\nname: pdf\ndescription: PDF " + version + ". Use for PDFs.\n---\n\nRead PDFs.\n"}
	}
	tagged := srv.NewRepo(t, "tagged")
	tagged.Write(skill("1.0.0"))
	v100 := tagged.Commit("1.0.0")
	tagged.Tag("v1.0.0", "release")
	tagged.Tag("v2.0.0-rc.1", "")
	tagged.Write(skill("1.1.0"))
	v110 := tagged.Commit("1.1.0")
	tagged.Tag("v1.1.0", "")
	branch := srv.NewRepo(t, "branch")
	branch.Write(skill("main 1"))
	main1 := branch.Commit("main 1")
	branch.Write(skill("main 2"))
	main2 := branch.Commit("main 2")
	branch.Tag("v0.1.0", "")
	branch.Git("tag", "-f", "v0.1.0", main1) // pushed over: locked at main2, now main1

	env, cache := envWithGitCache(t)
	entry := func(s, rng string, locked gitsource.Resolved) outdatedEntry {
		ref, err := gitsource.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		e := outdatedEntry{git: &gitOutdated{ref: ref, locked: &locked}}
		if rng != "" {
			if e.rng, err = semver.ParseRange(rng); err != nil {
				t.Fatal(err)
			}
		}
		return e
	}
	entries := []outdatedEntry{
		entry("git+"+tagged.URL, "^1.0.0", gitsource.Resolved{Ref: "v1.0.0", Kind: gitsource.KindTag, Commit: v100}),
		entry("git+"+tagged.URL+"//skills/pdf#v1.0.0", "", gitsource.Resolved{Ref: "v1.0.0", Kind: gitsource.KindTag, Commit: v100}),
		entry("git+"+tagged.URL+"//skills#v1.1.0", "", gitsource.Resolved{Ref: "v1.1.0", Kind: gitsource.KindTag, Commit: v110}),
		entry("git+"+branch.URL+"#main", "", gitsource.Resolved{Ref: "main", Kind: gitsource.KindBranch, Commit: main1}),
		entry("git+"+branch.URL+"//skills#main", "", gitsource.Resolved{Ref: "main", Kind: gitsource.KindBranch, Commit: main2}),
		entry("git+"+branch.URL+"#v0.1.0", "", gitsource.Resolved{Ref: "v0.1.0", Kind: gitsource.KindTag, Commit: main2}),
	}
	entries = append(entries, outdatedEntry{}) // a registry source, which this leaves alone

	srv.Reset()
	if _, err := cache.ListRefs(context.Background(), entries[0].git.ref); err != nil {
		t.Fatal(err)
	}
	perListing := srv.Requests()
	srv.Reset()
	if err := compareWithGitRepositories(context.Background(), env, entries); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests(); got != 2*perListing {
		t.Errorf("two repositories cost %d requests, want %d: one ls-remote each (%d requests)", got, 2*perListing, perListing)
	}
	short := func(c string) string { return c[:7] }
	want := []struct {
		locked, wanted, latest string
		moved, outdated        bool
	}{
		{"1.0.0", "1.1.0", "1.1.0", false, true},
		{"1.0.0", "1.0.0", "1.1.0", false, true},
		{"1.1.0", "1.1.0", "1.1.0", false, false},
		{"main@" + short(main1), "main@" + short(main2), "0.1.0", false, true},
		{"main@" + short(main2), "main@" + short(main2), "0.1.0", false, false},
		{"0.1.0", "0.1.0", "0.1.0", true, true},
	}
	for i, w := range want {
		got := entries[i].OutdatedPackage
		if got.Locked != w.locked || got.Wanted != w.wanted || got.Latest != w.latest || got.Moved != w.moved || got.Outdated != w.outdated {
			t.Errorf("%s: locked %q wanted %q latest %q moved %v outdated %v; want %+v", entries[i].git.ref, got.Locked, got.Wanted, got.Latest, got.Moved, got.Outdated, w)
		}
	}
	if last := entries[len(entries)-1]; last.Outdated || last.Wanted != "" {
		t.Errorf("a registry source was compared as a git one: %+v", last.OutdatedPackage)
	}
}

// update lists the tags of a repository once however it is written,
// as outdated does (gitsource.Reference.SameRepository): here the same
// server under its host name in two cases, which DNS does not tell apart.
func TestListGitTagsListsEachRepositoryOnce(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "tagged")
	repo.Write(map[string]string{"skills/pdf/SKILL.md": "---\nname: pdf\ndescription: PDF. Use for PDFs.\n---\n\nRead PDFs.\n"})
	repo.Commit("1.0.0")
	repo.Tag("v1.0.0", "")
	var refs []gitsource.Reference
	for _, host := range []string{"localhost", "LOCALHOST"} {
		ref, err := gitsource.Parse("git+" + strings.Replace(repo.URL, "127.0.0.1", host, 1) + "#v1.0.0")
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, ref)
	}
	env, cache := envWithGitCache(t)
	srv.Reset()
	if _, err := cache.ListRefs(context.Background(), refs[0]); err != nil {
		t.Fatal(err)
	}
	perListing := srv.Requests()
	srv.Reset()
	tags, err := listGitTags(context.Background(), env, refs)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests(); got != perListing {
		t.Errorf("one repository written two ways cost %d requests, want %d: one ls-remote", got, perListing)
	}
	for _, r := range refs {
		if got := tags[r.SameRepository()]; len(got) != 1 || got[0] != "v1.0.0" {
			t.Errorf("tags of %s: %v, want [v1.0.0]", r, got)
		}
	}
}

// envWithGitCache is an Env of its own $STAX_HOME, and its git cache.
func envWithGitCache(t *testing.T) (*Env, *gitsource.Cache) {
	t.Helper()
	home := t.TempDir()
	env := &Env{Getenv: func(k string) string {
		if k == "STAX_HOME" {
			return home
		}
		return os.Getenv(k)
	}}
	cache, err := env.gitCache()
	if err != nil {
		t.Fatal(err)
	}
	return env, cache
}
