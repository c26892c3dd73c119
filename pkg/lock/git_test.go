package lock

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

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
