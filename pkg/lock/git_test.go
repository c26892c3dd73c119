package lock

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitsource"
)

// A git source is recorded without the credentials it was written with,
// and its record reads back as the commits a frozen install takes.
func TestGitRecordRoundTrip(t *testing.T) {
	t.Parallel()
	if got := Sources([]string{"git+https://someone:tok@git.example.com/a/b.git#v1", "ghcr.io/a/b:1"}); got[0] != "git+https://git.example.com/a/b.git#v1" || got[1] != "ghcr.io/a/b:1" {
		t.Errorf("Sources = %v", got)
	}
	commit := strings.Repeat("ab", 20)
	l := &Lock{LockVersion: Version, Sources: []string{"git+https://git.example.com/a/b.git"}, Packages: []Package{{
		Ref: "git+https://git.example.com/a/b.git", Digest: digest.FromString("p"),
		Git: &Git{URL: "https://git.example.com/a/b.git", Ref: "v1.0.0", Kind: "tag", Commit: commit, Plugin: "p",
			Followed: &GitFollowed{URL: "https://git.example.com/c/d.git", Subdir: "plugin", Ref: "main", Kind: "branch", Commit: commit}},
	}}}
	var b bytes.Buffer
	if err := l.Encode(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	locked, ok := back.GitLocked()["git+https://git.example.com/a/b.git"]
	if !ok || locked.Resolved.Commit != commit || locked.Resolved.Kind != gitsource.KindTag || locked.Followed == nil ||
		locked.Followed.Ref.Repository() != "https://git.example.com/c/d.git" || locked.Followed.Ref.Subdir != "plugin" {
		t.Errorf("GitLocked = %+v (%v)\n%s", locked, ok, b.String())
	}
}

// The lock of a git source is what yaml writes of the whole document, as
// every lock is.
func TestGitRecordEncodesAsYAML(t *testing.T) {
	t.Parallel()
	l := &Lock{LockVersion: Version, Sources: []string{"git+https://h/a.git"}, Packages: []Package{{
		Ref: "git+https://h/a.git", Digest: digest.FromString("p"), Skills: []Skill{{Path: "s", Digest: digest.FromString("s")}},
		Git: &Git{URL: "https://h/a.git", Subdir: "x", Ref: "main", Kind: "branch", Commit: strings.Repeat("0", 40), Skills: []string{"s"}},
	}}}
	got, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if want := wholeDocument(t, l); string(got) != string(want) {
		t.Errorf("Marshal:\n%s\nwant:\n%s", got, want)
	}
}

// Read refuses a git record stax would not write, value by value: what it
// holds reaches git, folders and messages.
func TestReadRefusesHostileGitRecord(t *testing.T) {
	t.Parallel()
	commit := strings.Repeat("ab", 20)
	good := func() *Git {
		return &Git{URL: "https://git.example.com/a/b.git", Subdir: "skills", Ref: "v1.0.0", Kind: "tag", Commit: commit, Plugin: "p@m", Skills: []string{"pdf"},
			Followed: &GitFollowed{URL: "https://git.example.com/c/d.git", Ref: "main", Kind: "branch", Commit: commit}}
	}
	tests := map[string]func(g *Git){
		"valid":                  func(g *Git) {},
		"commit kind":            func(g *Git) { g.Ref, g.Kind = commit, "commit" },
		"option commit":          func(g *Git) { g.Commit = "--upload-pack=touch /tmp/pwned" },
		"short commit":           func(g *Git) { g.Commit = "abababa" },
		"commit expression":      func(g *Git) { g.Commit = "HEAD~1" },
		"commit with newline":    func(g *Git) { g.Commit = commit + "\nHEAD" },
		"upper-case commit":      func(g *Git) { g.Commit = strings.ToUpper(commit) },
		"commit kind, other ref": func(g *Git) { g.Kind = "commit" },
		"unknown kind":           func(g *Git) { g.Kind = "note" },
		"option ref":             func(g *Git) { g.Ref = "--upload-pack=x" },
		"ref with escape":        func(g *Git) { g.Ref = "v1\x1b[2J" },
		"ext url":                func(g *Git) { g.URL = "ext::sh -c touch% /tmp/pwned" },
		"option url":             func(g *Git) { g.URL = "-oProxyCommand=x" },
		"url with credentials":   func(g *Git) { g.URL = "https://someone:s3cret@git.example.com/a/b.git" },
		"parent subdir":          func(g *Git) { g.Subdir = "../../etc" },
		"option subdir":          func(g *Git) { g.Subdir = "-x/skills" },
		"unsafe plugin":          func(g *Git) { g.Plugin = "../p" },
		"unsafe marketplace":     func(g *Git) { g.Plugin = "p@\x1b]0;x\a" },
		"unsafe skill":           func(g *Git) { g.Skills = []string{"a/../../b"} },
		"followed option commit": func(g *Git) { g.Followed.Commit = "-c" },
		"followed ext url":       func(g *Git) { g.Followed.URL = "ext::sh" },
		"followed parent subdir": func(g *Git) { g.Followed.Subdir = ".." },
		"followed option ref":    func(g *Git) { g.Followed.Ref = "-oProxyCommand=x" },
		"followed credentials":   func(g *Git) { g.Followed.URL = "https://t:s3cret@git.example.com/c/d.git" },
		"followed kind":          func(g *Git) { g.Followed.Kind = "" },
	}
	for name, edit := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := good()
			edit(g)
			l := &Lock{LockVersion: Version, Sources: []string{"git+https://git.example.com/a/b.git"}, Packages: []Package{{
				Ref: "git+https://git.example.com/a/b.git", Digest: digest.FromString("p"), Git: g}}}
			var b bytes.Buffer
			if err := l.Encode(&b); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), FileName)
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Read(path)
			switch {
			case name == "valid" || name == "commit kind":
				if err != nil {
					t.Fatalf("Read: %v\n%s", err, b.String())
				}
			case err == nil:
				t.Fatalf("Read took a hostile record:\n%s", b.String())
			case errdefs.Of(err) != errdefs.Local || !strings.Contains(err.Error(), "stax did not write this") ||
				strings.ContainsAny(err.Error(), "\x1b\a") || strings.Contains(err.Error(), "s3cret"):
				t.Errorf("Read: %v (%v), want a local error saying stax did not write it, escaped, with no credentials", err, errdefs.Of(err))
			}
		})
	}
}

// A SUBDIR named with a '#' (skills/c#), which stax writes as the
// directory's name, reads back: the record is held to gitsource.New,
// which took the '#' for the start of a REF.
func TestGitRecordSubdirWithHashReadsBack(t *testing.T) {
	t.Parallel()
	commit := strings.Repeat("ab", 20)
	l := &Lock{LockVersion: Version, Sources: Sources([]string{"git+https://git.example.com/a/b.git//skills/c%23#v1.0.0"}), Packages: []Package{{
		Ref: "git+https://git.example.com/a/b.git//skills/c%23#v1.0.0", Digest: digest.FromString("p"),
		Git: &Git{URL: "https://git.example.com/a/b.git", Subdir: "skills/c#", Ref: "v1.0.0", Kind: "tag", Commit: commit,
			Followed: &GitFollowed{URL: "https://git.example.com/c/d.git", Subdir: "plugins/c#", Ref: "main", Kind: "branch", Commit: commit}},
	}}}
	var b bytes.Buffer
	if err := l.Encode(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	locked := back.GitLocked()[l.Packages[0].Ref]
	if locked.Followed == nil || locked.Followed.Ref.Subdir != "plugins/c#" {
		t.Errorf("GitLocked = %+v\n%s", locked, b.String())
	}
}

// A record whose REF is not the one its reference names (the source
// takes main, the record says tag v1.0.0 at another commit) is not taken:
// the package resolves again, and is kept under the REF resolved.
func TestGitLockedTakesOnlyTheDeclaredRef(t *testing.T) {
	t.Parallel()
	commit := strings.Repeat("ab", 20)
	l := &Lock{Packages: []Package{
		{Ref: "git+https://h/a.git#main", Git: &Git{URL: "https://h/a.git", Ref: "v1.0.0", Kind: "tag", Commit: commit}},
		{Ref: "git+https://h/b.git#refs/heads/main", Git: &Git{URL: "https://h/b.git", Ref: "main", Kind: "tag", Commit: commit}},
		{Ref: "git+https://h/c.git#" + strings.ToUpper(commit), Git: &Git{URL: "https://h/c.git", Ref: commit, Kind: "commit", Commit: commit}},
		{Ref: "git+https://h/d.git#refs/tags/v1", Git: &Git{URL: "https://h/d.git", Ref: "v1", Kind: "tag", Commit: commit}},
		{Ref: "git+https://h/e.git", Git: &Git{URL: "https://h/e.git", Ref: "v2", Kind: "tag", Commit: commit}},
	}}
	got := l.GitLocked()
	for _, ref := range []string{"git+https://h/a.git#main", "git+https://h/b.git#refs/heads/main"} {
		if _, ok := got[ref]; ok {
			t.Errorf("GitLocked took the record of %s, which names another REF", ref)
		}
	}
	for _, ref := range []string{"git+https://h/c.git#" + strings.ToUpper(commit), "git+https://h/d.git#refs/tags/v1", "git+https://h/e.git"} {
		if _, ok := got[ref]; !ok {
			t.Errorf("GitLocked left out the record of %s", ref)
		}
	}
}
