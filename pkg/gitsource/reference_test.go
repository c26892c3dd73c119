package gitsource

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in                     string
		url, subdir, ref, repo string
		str                    string
	}{
		{in: "git+https://example.com/org/skills.git", url: "https://example.com/org/skills.git", str: "git+https://example.com/org/skills.git"},
		{in: "git+https://example.com/org/skills.git//skills/pdf#v1.2.0", url: "https://example.com/org/skills.git", subdir: "skills/pdf", ref: "v1.2.0"},
		{in: "git+https://example.com/org/skills//skills/pdf/#main", url: "https://example.com/org/skills", subdir: "skills/pdf", ref: "main", str: "git+https://example.com/org/skills//skills/pdf#main"},
		{in: "git+https://bob:s3cret@example.com/org/skills.git#feature/x", url: "https://bob:s3cret@example.com/org/skills.git", ref: "feature/x", repo: "https://example.com/org/skills.git", str: "git+https://example.com/org/skills.git#feature/x"},
		{in: "git+http://127.0.0.1:8080/r.git", url: "http://127.0.0.1:8080/r.git"},
		{in: "git+http://localhost/r.git", url: "http://localhost/r.git"},
		{in: "git+http://LocalHost/r.git", url: "http://LocalHost/r.git"}, // DNS reads a name without its case
		{in: "git+http://[::1]:9/r.git", url: "http://[::1]:9/r.git"},
		{in: "git+ssh://git@example.com/org/skills.git//skills#0123456789abcdef0123456789abcdef01234567", url: "ssh://git@example.com/org/skills.git", subdir: "skills", ref: "0123456789abcdef0123456789abcdef01234567"},
		{in: "git+ssh://git:pw@example.com:2222/r", url: "ssh://git:pw@example.com:2222/r", repo: "ssh://git@example.com:2222/r", str: "git+ssh://git@example.com:2222/r"},
		{in: "git+file:///srv/git/skills.git//a/b#v1", url: "file:///srv/git/skills.git", subdir: "a/b", ref: "v1"},
		{in: "git+file://localhost/srv/git/skills.git", url: "file://localhost/srv/git/skills.git"},
		{in: "git+file://LOCALHOST/srv/git/skills.git", url: "file://LOCALHOST/srv/git/skills.git"}, // as git takes it
		{in: "git://example.com/r.git", url: "git://example.com/r.git", str: "git://example.com/r.git"},
		{in: "github.com/anthropics/skills", url: "https://github.com/anthropics/skills.git", str: "git+https://github.com/anthropics/skills.git"},
		{in: "github.com/anthropics/skills/skills/pdf#v1.0.0", url: "https://github.com/anthropics/skills.git", subdir: "skills/pdf", ref: "v1.0.0"},
		{in: "GitHub.com/anthropics/skills.git", url: "https://github.com/anthropics/skills.git"},
		{in: "gitlab.com/group/repo/sub", url: "https://gitlab.com/group/repo.git", subdir: "sub"},
		{in: "https://github.com/anthropics/skills", url: "https://github.com/anthropics/skills.git"},
		{in: "https://github.com/anthropics/skills/", url: "https://github.com/anthropics/skills.git"},
		{in: "https://github.com/anthropics/skills/tree/main/skills/pdf", url: "https://github.com/anthropics/skills.git", subdir: "skills/pdf", ref: "main"},
		{in: "https://github.com/anthropics/skills/tree/v1.0.0", url: "https://github.com/anthropics/skills.git", ref: "v1.0.0"},
		{in: "https://github.com/anthropics/skills/blob/main/skills/pdf/SKILL.md", url: "https://github.com/anthropics/skills.git", subdir: "skills/pdf", ref: "main"},
		{in: "github.com/anthropics/skills/tree/main/skills/pdf", url: "https://github.com/anthropics/skills.git", subdir: "skills/pdf", ref: "main"},
		{in: "gitlab.com/a/b/-/tree/dev/skills", url: "https://gitlab.com/a/b.git", subdir: "skills", ref: "dev"},
		{in: "gitlab.com/a/b/c/-/blob/v1/s/SKILL.md", url: "https://gitlab.com/a/b/c.git", subdir: "s", ref: "v1"},
		{in: "https://gitlab.com/a/b/c/-/tree/dev/skills?ref_type=heads", url: "https://gitlab.com/a/b/c.git", subdir: "skills", ref: "dev"},
		// A browser writes the path percent-encoded.
		{in: "https://github.com/o/r/tree/main/c%23", url: "https://github.com/o/r.git", subdir: "c#", ref: "main", str: "git+https://github.com/o/r.git//c%23#main"},
		{in: "https://github.com/o/r/tree/feat%2Bx/a%20b/c%25", url: "https://github.com/o/r.git", subdir: "a b/c%", ref: "feat+x"},
		{in: "github.com/o/r/blob/main/c%23/SKILL.md", url: "https://github.com/o/r.git", subdir: "c#", ref: "main"},
		{in: "https://gitlab.com/a/b/-/tree/dev/c%23?ref_type=heads", url: "https://gitlab.com/a/b.git", subdir: "c#", ref: "dev"},
	}
	for _, tt := range tests {
		r, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if tt.repo == "" {
			tt.repo = tt.url
		}
		if r.URL() != tt.url || r.Subdir != tt.subdir || r.Ref != tt.ref || r.Repository() != tt.repo {
			t.Errorf("Parse(%q) = url %q subdir %q ref %q repository %q, want %q %q %q %q", tt.in, r.URL(), r.Subdir, r.Ref, r.Repository(), tt.url, tt.subdir, tt.ref, tt.repo)
		}
		if !IsReference(tt.in) {
			t.Errorf("IsReference(%q) = false", tt.in)
		}
		if tt.str != "" && r.String() != tt.str {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, r.String(), tt.str)
		}
		again, err := Parse(r.String())
		if err != nil || again.String() != r.String() {
			t.Errorf("Parse(%q) = %q, %v: String does not read back", r.String(), again.String(), err)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, why string }{
		{"git+https://example.com/r.git#--upload-pack=touch /tmp/x", "option"},
		{"git+https://example.com/r.git#-x", "option"},
		{"github.com/o/r#--upload-pack=sh", "option"},
		{"git+ssh://-oProxyCommand=touch/r", "option"},
		{"git+ssh://-oProxyCommand=x@host/r", "option"},
		{"git+ssh://git@host/-r.git", "option"},
		{"git+https://example.com/r.git//-rf", `starts with "-"`},
		{"github.com/o/-r", "not an owner or repository"},
		{"github.com/-o/r", "not an owner or repository"},
		{"git+ext::sh -c touch% /tmp/pwned", "transport"},
		{"git+fd::17", "transport"},
		{"git+ftp://example.com/r", "transport"},
		{"git+http://example.com/r.git", "plain http"},
		{"git+https://example.com/r.git//../x", "traversal"},
		{"git+https://example.com/r.git//a\x1b[2Jb", "control"},
		{"git+https://example.com/r.git#a..b", `".."`},
		{"git+https://example.com/r.git#HEAD@{1}", `"@{"`},
		{"git+https://example.com/r.git#a:b", "~^:?*"},
		{"git+https://example.com/r.git#", "empty"},
		{"git+https://example.com/r.git#b\xff", "UTF-8"},
		{"git+https://example.com/r.git#v1\u202e0.1", "U+202E"},
		{"https://github.com/o/r/tree/v1%E2%80%AE0.1/skills", "U+202E"},
		{"git+https://example.com/r.git//a%FFb", "UTF-8"},
		{"git+https://example.com/r.git?x=1", "query"},
		{"git+https:///r.git", "no host"},
		{"git+https://example.com", "no repository path"},
		{"git+file://host/r", "no host"},
		{"github.com/o", "OWNER/REPO"},
		{"https://example.com/o/r", "only on github.com"},
		{"https://github.com/o/r/issues/3", "not the address"},
		{"https://github.com/o/r/tree/main/x#v1", "REF twice"},
		{"https://github.com/o/r/tree/main/a%FFb", "UTF-8"},
		{"https://github.com/o/r/tree/main/a%2F..%2F..%2Fx", "traversal"},
		{"https://github.com/o/r/tree/%2D%2Dupload-pack=x/s", "option"},
		{"https://github.com/o/r/tree/main/a%zz", "escape"},
		{"https://github.com/o%FF/r", "not an owner or repository"},
		{"https://github.com/o/r%2F..%2Fx", "not the address"},
		// A version after @, as npm writes it, is a ref after #.
		{"github.com/anthropics/skills@v1.0.0", `a tag or commit is written after "#": github.com/anthropics/skills#v1.0.0`},
		// The form given is one Parse reads back, at the same place.
		{"github.com/anthropics/skills@v1.0.0/skills/pdf", `a tag or commit is written after "#": github.com/anthropics/skills/skills/pdf#v1.0.0`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if err == nil || !errors.Is(err, ErrInvalid) || errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("Parse(%q) = %v, want an invalid argument saying %q", tt.in, err, tt.why)
		}
	}
}

// An owner written with "@" is no version after the repository: the
// message gives no form for it.
func TestParseOwnerWithAtGivesNoRef(t *testing.T) {
	t.Parallel()
	_, err := Parse("github.com/skills@v1/skills@v1")
	if err == nil || strings.Contains(err.Error(), `written after "#"`) {
		t.Errorf("Parse = %v, want no ref offered for an owner", err)
	}
}

// The form given for a version after "@" is one Parse takes, the
// repository, SUBDIR and REF meant.
func TestParseRefAfterAtGivesAFormThatParses(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"github.com/anthropics/skills@v1.0.0/skills/pdf", "https://github.com/anthropics/skills@v1.0.0", "github.com/anthropics/skills@v1.0.0"} {
		_, err := Parse(in)
		_, form, ok := strings.Cut(fmt.Sprint(err), `written after "#": `)
		got, perr := Parse(form)
		if !ok || perr != nil || got.Repository() != "https://github.com/anthropics/skills.git" || got.Ref != "v1.0.0" || strings.Contains(in, "/pdf") != (got.Subdir == "skills/pdf") {
			t.Errorf("Parse(%q) = %v; the form given reads as %+v, %v", in, err, got, perr)
		}
	}
}

func TestIsReference(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"git+ext::sh":                  true, // refused by Parse, with a message about git
		"git://h/r":                    true,
		"github.com/o/r":               true,
		"https://gitlab.com/o/r":       true,
		"ghcr.io/o/r:1.0.0":            false,
		"localhost:5000/skills":        false,
		"oci:./layout":                 false,
		"./skills":                     false,
		"githubusercontent.com/o/r":    false,
		"registry.github.com/o/r:1":    false,
		"https://registry.example/o/r": false,
	} {
		if got := IsReference(s); got != want {
			t.Errorf("IsReference(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestCredentialsNeverShown(t *testing.T) {
	t.Parallel()
	r, err := Parse("git+https://bob:tok3n@example.com/r.git#v1")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{r.String(), r.Display(), r.Repository()} {
		if strings.Contains(s, "tok3n") {
			t.Errorf("%q shows the credentials", s)
		}
	}
	if r.Display() != "https://***@example.com/r.git" {
		t.Errorf("Display() = %q", r.Display())
	}
	_, err = Parse("git+https://bob:tok3n@example.com/r.git#-x")
	if err == nil || strings.Contains(err.Error(), "tok3n") {
		t.Errorf("error %v shows the credentials", err)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	r, err := New("https://example.com/o/plugins.git", "/plugins/pdf/", "v2")
	if err != nil || r.String() != "git+https://example.com/o/plugins.git//plugins/pdf#v2" {
		t.Errorf("New = %q, %v", r.String(), err)
	}
	if r, err := New("git://example.com/r", "", ""); err != nil || r.URL() != "git://example.com/r" {
		t.Errorf("New(git://) = %q, %v", r.URL(), err)
	}
	for _, bad := range [][3]string{
		{"https://example.com/r.git#x", "", ""},
		{"https://example.com/a//b", "", ""},
		{"ext::sh -c x", "", ""},
		{"https://example.com/r.git", "", "--upload-pack=x"},
		{"https://example.com/r.git", "../x", ""},
	} {
		if _, err := New(bad[0], bad[1], bad[2]); errdefs.Of(err) != errdefs.InvalidArgument {
			t.Errorf("New(%q, %q, %q) = %v, want invalid", bad[0], bad[1], bad[2], err)
		}
	}
}

func TestSecrets(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"git+https://bob:p%40ss@example.com/r": {"p@ss", "p%40ss"},
		"git+https://ghp_token@example.com/r":  {"ghp_token", "ghp_token"},
		"git+ssh://git@example.com/r":          nil,
		"git+https://example.com/r":            nil,
	} {
		if got := mustParse(t, in).secrets(); !slices.Equal(got, want) {
			t.Errorf("secrets of %s = %q, want %q", in, got, want)
		}
	}
}

// A SUBDIR holding what a reference's grammar gives a meaning to (# before
// REF, ? for a query, % for an escape, a space) reads back from String as
// itself, written through New or escaped in a URL: String keys the local
// store's tag and is what stax.lock records of a source, and another
// SUBDIR and REF read from it would name another tree.
func TestSubdirReadsBack(t *testing.T) {
	t.Parallel()
	for _, subdir := range []string{"skills/c#", "a#b", "why?", "50%", "a b", "x%41"} {
		r, err := New("https://example.com/o/skills.git", subdir, "main")
		if err != nil || r.Subdir != subdir || r.Ref != "main" {
			t.Errorf("New(SUBDIR %q) = subdir %q ref %q, %v", subdir, r.Subdir, r.Ref, err)
			continue
		}
		again, err := Parse(r.String())
		if err != nil || again.Subdir != subdir || again.Ref != "main" {
			t.Errorf("Parse(%q) = subdir %q ref %q, %v; want subdir %q ref main", r.String(), again.Subdir, again.Ref, err, subdir)
		}
	}
}

// A branch or tag whose name is not UTF-8 is never chosen: stax.lock,
// the local store's index.json (which JSON writes with U+FFFD in place of
// each such byte, so b\xff and b\xfe were one tag) and messages hold
// text.
func TestParseRefsSkipsNamesNotUTF8(t *testing.T) {
	t.Parallel()
	commit := strings.Repeat("a", 40)
	refs, err := parseRefs("https://example.com/r.git", []byte("ref: refs/heads/b\xff\tHEAD\n"+commit+"\trefs/heads/b\xff\n"+commit+"\trefs/tags/v1\xfe\n"+commit+"\trefs/heads/main\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(refs.Branches) != 1 || len(refs.Tags) != 0 {
		t.Errorf("parseRefs kept the branches %q and tags %q; want main alone", refs.Branches, refs.Tags)
	}
	if r, err := refs.Resolve("", nil); err == nil {
		t.Errorf("Resolve took the default branch %q, whose name is not UTF-8", r.Ref)
	}
}

// A server's branch or tag whose name holds hidden text is never chosen:
// its name would go into stax.lock and the local store's tag, and read as
// another in every message.
func TestParseRefsSkipsNamesWithHiddenText(t *testing.T) {
	t.Parallel()
	commit := strings.Repeat("a", 40)
	refs, err := parseRefs("https://example.com/r.git", []byte("ref: refs/heads/ma\u202ein\tHEAD\n"+commit+"\trefs/heads/ma\u202ein\n"+commit+"\trefs/tags/v2.0.0\u200b\n"+commit+"\trefs/tags/v1.0.0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(refs.Branches) != 0 || len(refs.Tags) != 1 {
		t.Errorf("parseRefs kept the branches %q and tags %q; want v1.0.0 alone", refs.Branches, refs.Tags)
	}
	if r, err := refs.Resolve("", nil); err != nil || r.Ref != "v1.0.0" {
		t.Errorf("Resolve took %q (%v); want the release v1.0.0, not a tag with hidden text", r.Ref, err)
	}
}

// What Resolve resolves a REF to names that REF, and nothing else does:
// Names holds a recorded resolution to the REF declared.
func TestResolvedNamesTheRefResolved(t *testing.T) {
	t.Parallel()
	commit := strings.Repeat("a", 40)
	refs, err := parseRefs("https://example.com/r.git", []byte(commit+"\trefs/heads/main\n"+commit+"\trefs/tags/v1\n"+commit+"\trefs/heads/v1\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"main", "v1", "refs/heads/v1", "refs/tags/v1", "refs/heads/main", strings.ToUpper(commit)} {
		r, err := refs.Resolve(ref, nil)
		if err != nil || !r.Names(ref) {
			t.Errorf("Resolve(%q) = %+v, %v, which Names does not take as %q's", ref, r, err, ref)
		}
	}
	for ref, r := range map[string]Resolved{
		"main":          {Ref: "v1", Kind: KindTag, Commit: commit},
		"refs/heads/v1": {Ref: "v1", Kind: KindTag, Commit: commit},
		"refs/tags/v1":  {Ref: "v1", Kind: KindBranch, Commit: commit},
		commit:          {Ref: "main", Kind: KindBranch, Commit: commit},
	} {
		if r.Names(ref) {
			t.Errorf("%+v names %q", r, ref)
		}
	}
}

// github.com and gitlab.com find OWNER/REPO and OWNER/REPO.git as one
// repository; another server may hold two, and they stay two.
func TestSameRepository(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"github.com/o/r", "git+https://github.com/o/r", true},
		{"https://gitlab.com/o/r/-/tree/main", "git+https://gitlab.com/o/r.git#v1", true},
		{"git+https://GitHub.com/o/r.git", "git+https://github.com/o/r", true},
		{"git+https://git.example.com/o/r.git", "git+https://git.example.com/o/r", false},
		{"git+ssh://git@example.com/srv/r.git", "git+ssh://git@example.com/srv/r", false},
		{"git+file:///srv/r.git", "git+file:///srv/r", false},
	} {
		a, err := Parse(tc.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Parse(tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.SameRepository() == b.SameRepository(); got != tc.same {
			t.Errorf("%s and %s: one repository = %v, want %v (%q, %q)", tc.a, tc.b, got, tc.same, a.SameRepository(), b.SameRepository())
		}
	}
}

// A refused REF is quoted once, its escape shown as a Go string writes
// it: quoting text already escaped showed `\\x1b` for one ESC.
func TestParseQuotesARefusedRefOnce(t *testing.T) {
	t.Parallel()
	_, err := Parse("git+https://example.com/r.git#v1\x1b[31m")
	if err == nil {
		t.Fatal("a REF holding ESC was taken")
	}
	if msg := err.Error(); !strings.Contains(msg, `"v1\x1b[31m"`) || strings.Contains(msg, "\x1b") {
		t.Errorf("error %q: want the REF quoted once, as \"v1\\x1b[31m\"", msg)
	}
}
