package gitsource

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/gittest"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/semver"
)

// newCache is a cache in a fresh $STAX_HOME, git run with a global
// configuration of the test's own (extra lines appended to it).
func newCache(t *testing.T, globalConfig string) *Cache {
	t.Helper()
	home := t.TempDir()
	global := filepath.Join(home, "gitconfig")
	if err := os.WriteFile(global, []byte(globalConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	c := NewCache(home)
	c.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+global)
	return c
}

func mustParse(t *testing.T, s string) Reference {
	t.Helper()
	r, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertClean fails when a git left a temporary pack or lock in the
// cache, or a staging directory is left beside dest.
func assertClean(t *testing.T, c *Cache, dest string) {
	t.Helper()
	for _, pattern := range []string{"*/objects/pack/tmp_*", "*/objects/incoming-*", "*/*.lock", ".stax-git-*"} {
		if m, _ := filepath.Glob(filepath.Join(c.Dir, pattern)); len(m) > 0 {
			t.Errorf("left in the cache: %v", m)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(dest), ".stax-git-*")); len(m) > 0 {
		t.Errorf("left beside %s: %v", dest, m)
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "skills")
	repo.Write(map[string]string{"a/SKILL.md": "one"})
	first := repo.Commit("one")
	repo.Tag("v1.0.0", "")
	repo.Write(map[string]string{"a/SKILL.md": "two"})
	second := repo.Commit("two")
	repo.Tag("v1.1.0", "annotated")
	repo.Branch("dev")
	repo.Write(map[string]string{"a/SKILL.md": "three"})
	third := repo.Commit("three")
	repo.Tag("v2.0.0-rc.1", "")
	repo.Git("update-ref", "refs/tags/--upload-pack=touch", first) // git's own tag refuses such a name; a server may serve it

	c := newCache(t, "")
	refs, err := c.ListRefs(context.Background(), mustParse(t, "git+http://"+strings.TrimPrefix(repo.URL, "http://")))
	if err != nil {
		t.Fatal(err)
	}
	caret, err := semver.ParseRange("^1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref    string
		rng    *semver.Range
		want   Resolved
		errHas string
	}{
		{ref: "v1.0.0", want: Resolved{"v1.0.0", KindTag, first}},
		{ref: "v1.1.0", want: Resolved{"v1.1.0", KindTag, second}}, // annotated: peeled to its commit
		{ref: "refs/tags/v1.1.0", want: Resolved{"v1.1.0", KindTag, second}},
		{ref: "dev", want: Resolved{"dev", KindBranch, second}},
		{ref: "main", want: Resolved{"main", KindBranch, third}},
		{ref: strings.ToUpper(first), want: Resolved{first, KindCommit, first}},
		{want: Resolved{"v1.1.0", KindTag, second}}, // the highest release, not the pre-release
		{rng: caret, want: Resolved{"v1.1.0", KindTag, second}},
		{ref: "v1.1", errHas: "has no tag or branch v1.1; it has the tags v2.0.0-rc.1, v1.1.0, v1.0.0; the branches dev, main"},
	}
	for _, tt := range tests {
		got, err := refs.Resolve(tt.ref, tt.rng)
		if tt.errHas != "" {
			if errdefs.Of(err) != errdefs.Unresolved || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("Resolve(%q) = %v, want unresolved saying %q", tt.ref, err, tt.errHas)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q, %v) = %+v, %v; want %+v", tt.ref, tt.rng, got, err, tt.want)
		}
	}
	none, err := semver.ParseRange(">=3.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := refs.Resolve("", none); errdefs.Of(err) != errdefs.Unresolved || !strings.Contains(err.Error(), "no tag in the range >=3.0.0") {
		t.Errorf("Resolve(>=3.0.0) = %v", err)
	}

	untagged := srv.NewRepo(t, "untagged")
	untagged.Write(map[string]string{"x/SKILL.md": "x"})
	head := untagged.Commit("x")
	refs, err = c.ListRefs(context.Background(), mustParse(t, "git+"+untagged.URL))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := refs.Resolve("", nil); err != nil || got != (Resolved{"main", KindBranch, head}) {
		t.Errorf("Resolve() of an untagged repository = %+v, %v; want its default branch", got, err)
	}
}

// A file:// repository is fetched as partially as one over http: the
// upload-pack git runs for it is stax's child, and allows filters.
func TestMaterializeFromAFileURL(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "local")
	repo.Skills("skills", 3, 64, 2)
	repo.Commit("local")
	repo.Tag("v1.0.0", "")
	c := newCache(t, "")
	r := mustParse(t, "git+file://"+filepath.ToSlash(repo.Dir)+"//skills/skill-0001#v1.0.0")
	refs, err := c.ListRefs(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := refs.Resolve(r.Ref, nil)
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "out")
	if _, err := c.Materialize(context.Background(), r, got.Commit, dest); err != nil {
		t.Fatal(err)
	}
	missing, err := c.missing(context.Background(), c.repoDir(r), got.Commit)
	if err != nil || len(missing) != 4 {
		t.Errorf("the cache lacks %d objects of the commit (%v), want the 4 blobs of the other skills", len(missing), err)
	}
}

// git:// (git daemon) is fetched as partially as http.
func TestMaterializeOverGitProtocol(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "daemon")
	repo.Skills("skills", 3, 64, 4)
	repo.Commit("daemon")
	repo.Tag("v1.0.0", "")
	c := newCache(t, "")
	r := mustParse(t, srv.Daemon(t)+"/daemon.git//skills/skill-0002#v1.0.0")
	refs, err := c.ListRefs(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := refs.Resolve(r.Ref, nil)
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "out")
	if _, err := c.Materialize(context.Background(), r, got.Commit, dest); err != nil {
		t.Fatal(err)
	}
	if s := readFile(t, filepath.Join(dest, "SKILL.md")); !strings.Contains(s, "skill-0002") {
		t.Errorf("SKILL.md = %q", s)
	}
	if missing, err := c.missing(context.Background(), c.repoDir(r), got.Commit); err != nil || len(missing) != 4 {
		t.Errorf("the cache lacks %d objects of the commit (%v), want the 4 blobs of the other skills", len(missing), err)
	}
}

// One skill of a monorepo: the commit's trees, then that skill's blobs,
// in one request each; a second install asks only ls-remote, and a
// commit already cached asks nothing.
func TestMaterializeFetchesOnlySubdirThenNothing(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "mono")
	repo.Skills("skills", 40, 4096, 1)
	repo.Write(map[string]string{"skills/skill-0003/scripts/run.sh*": "#!/bin/sh\necho hi\n"})
	repo.Symlink("skills/skill-0003/docs", "scripts")
	repo.Commit("skills")
	repo.Tag("v1.0.0", "release")
	ctx := context.Background()
	c := newCache(t, "")
	r := mustParse(t, "git+"+repo.URL+"//skills/skill-0003#v1.0.0")

	srv.Reset()
	refs, err := c.ListRefs(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	lsRemote := srv.Requests()
	got, err := refs.Resolve(r.Ref, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := c.Cached(ctx, r, got.Commit); ok || err != nil {
		t.Fatalf("Cached before any fetch = %v, %v", ok, err)
	}
	dest := filepath.Join(t.TempDir(), "out")
	tree, err := c.Materialize(ctx, r, got.Commit, dest)
	if err != nil {
		t.Fatal(err)
	}
	if fetches := srv.Requests() - lsRemote; fetches != 4 {
		t.Errorf("the first install made %d requests after ls-remote, want 4 (the commit, then the blobs: each a GET and a POST)", fetches)
	}
	if tree.Files != 4 || tree.Commit != got.Commit {
		t.Errorf("tree = %+v, want 4 files (SKILL.md, reference.md, run.sh, the docs link)", tree)
	}
	if s := readFile(t, filepath.Join(dest, "SKILL.md")); !strings.Contains(s, "name: skill-0003") {
		t.Errorf("SKILL.md = %q", s)
	}
	if info, err := os.Stat(filepath.Join(dest, "scripts", "run.sh")); err != nil || info.Mode().Perm()&0o100 == 0 {
		t.Errorf("run.sh: %v, %v; want it executable, as git's tree says (100755)", info, err)
	}
	if target, err := os.Readlink(filepath.Join(dest, "docs")); err != nil || target != "scripts" {
		t.Errorf("docs is %q, %v; want the link to scripts", target, err)
	}
	if _, err := os.Stat(filepath.Join(dest, "..", "skill-0004")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("another skill was written: %v", err)
	}
	assertClean(t, c, dest)

	// A second install: ls-remote, and nothing else.
	srv.Reset()
	if _, err := c.ListRefs(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Materialize(ctx, r, got.Commit, filepath.Join(t.TempDir(), "again")); err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests(); n != lsRemote {
		t.Errorf("a second install made %d requests, want %d (ls-remote alone)", n, lsRemote)
	}

	// A frozen install of a cached commit, by another stax: nothing.
	srv.Reset()
	other := &Cache{Dir: c.Dir, LockDir: c.LockDir, Env: c.Env}
	if ok, err := other.Cached(ctx, r, got.Commit); !ok || err != nil {
		t.Errorf("Cached = %v, %v after the commit was fetched", ok, err)
	}
	if _, err := other.Materialize(ctx, r, got.Commit, filepath.Join(t.TempDir(), "frozen")); err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("a cached commit made %d requests, want none", n)
	}

	// Another skill of the cached commit: its blobs alone.
	srv.Reset()
	if _, err := c.Materialize(ctx, mustParse(t, "git+"+repo.URL+"//skills/skill-0007"), got.Commit, filepath.Join(t.TempDir(), "seven")); err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests(); n != 2 {
		t.Errorf("another skill of a cached commit made %d requests, want 2 (its blobs)", n)
	}
}

func TestMaterializeRefusesHostileTrees(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	build := func(t *testing.T, name string, fill func(r *gittest.Repo)) (Reference, string) {
		repo := srv.NewRepo(t, name)
		repo.Write(map[string]string{"s/SKILL.md": "x"})
		fill(repo)
		return mustParse(t, "git+"+repo.URL+"//s"), repo.Commit(name)
	}
	// requests are what the server is asked: 2 for the commit and its
	// trees alone, 4 with the blobs; a tree refused for its entries
	// asks for no blob.
	tests := []struct {
		name     string
		fill     func(r *gittest.Repo)
		errHas   string
		class    errdefs.Class
		requests int64
	}{
		{"link-out", func(r *gittest.Repo) { r.Symlink("s/escape", "../../etc/passwd") }, `symbolic link "escape" points to "../../etc/passwd", out of the tree`, errdefs.FailedPrecondition, 4},
		{"link-absolute", func(r *gittest.Repo) { r.Symlink("s/abs", "/etc/passwd") }, "out of the tree", errdefs.FailedPrecondition, 4},
		{"link-to-sibling", func(r *gittest.Repo) { r.Symlink("s/up", "../other") }, "out of the tree", errdefs.FailedPrecondition, 4},
		{"huge", func(r *gittest.Repo) { r.Write(map[string]string{"s/big.md": gittest.Noise(200<<10, 1)}) }, "the limit of a package", errdefs.FailedPrecondition, 4},
		{"many", func(r *gittest.Repo) { r.Skills("s", 30, 10, 1) }, "more than 50 files and directories", errdefs.FailedPrecondition, 2},
		{"hidden-name", func(r *gittest.Repo) { r.Write(map[string]string{"s/a\u202egpj.md": "x"}) }, "hidden character", errdefs.FailedPrecondition, 2},
		{"long-path", func(r *gittest.Repo) { r.Write(map[string]string{"s/" + strings.Repeat("d/", 40) + "f": "x"}) }, "over the limit of 32", errdefs.FailedPrecondition, 2},
		{"no-subdir", func(r *gittest.Repo) {
			os.RemoveAll(filepath.Join(r.Work, "s"))
			r.Write(map[string]string{"t/x": "x"})
		}, "has no directory s", errdefs.Unresolved, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, commit := build(t, tt.name, tt.fill)
			c := newCache(t, "")
			c.MaxSize, c.MaxFiles = 64<<10, 50
			dest := filepath.Join(t.TempDir(), "out")
			srv.Reset()
			_, err := c.Materialize(context.Background(), r, commit, dest)
			if err == nil || errdefs.Of(err) != tt.class || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("Materialize = %v (%v), want %v saying %q", err, errdefs.Of(err), tt.class, tt.errHas)
			}
			if n := srv.Requests(); n != tt.requests {
				t.Errorf("the server was asked %d requests, want %d", n, tt.requests)
			}
			if _, err := os.Lstat(dest); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s was written: %v", dest, err)
			}
			assertClean(t, c, dest)
		})
	}
}

// Processes of their own fetching one commit into one cache at once take
// turns: git's own locks (shallow.lock) would fail all but one.
func TestProcessesShareTheCache(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "shared")
	repo.Skills("skills", 20, 2048, 5)
	commit := repo.Commit("skills")
	home := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const n = 4
	cmds := make([]*exec.Cmd, n)
	outs := make([]*strings.Builder, n)
	dests := make([]string, n)
	for i := range cmds {
		dests[i] = filepath.Join(t.TempDir(), "out")
		job := strings.Join([]string{home, "git+" + repo.URL + "//skills/skill-" + fmt.Sprintf("%04d", i), commit, dests[i]}, "\n")
		cmds[i] = exec.Command(self, "-test.run=^$")
		cmds[i].Env = append(os.Environ(), materializeEnv+"="+job, "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		outs[i] = &strings.Builder{}
		cmds[i].Stderr = outs[i]
	}
	for _, cmd := range cmds {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v: %s", i, err, outs[i])
		}
		if s := readFile(t, filepath.Join(dests[i], "SKILL.md")); !strings.Contains(s, fmt.Sprintf("skill-%04d", i)) {
			t.Errorf("process %d wrote %q", i, s)
		}
	}
	assertClean(t, NewCache(home), dests[0])
}

// A server that sends without end is cut once the pack it sends is past
// the limit; what git received is removed.
func TestFetchStopsAServerThatStreamsForever(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "endless")
	repo.Write(map[string]string{"s/SKILL.md": "x", "s/big.md": gittest.Noise(8<<20, 3)})
	commit := repo.Commit("big")
	srv.StallAfter(1<<20, func(r *http.Request) bool { return r.Method == http.MethodPost })
	c := newCache(t, "")
	c.MaxSize = 64 << 10
	dest := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a deadline should the cut fail, not a measure
	defer cancel()
	_, err := c.Materialize(ctx, mustParse(t, "git+"+repo.URL+"//s"), commit, dest)
	if errdefs.Of(err) != errdefs.FailedPrecondition || !strings.Contains(err.Error(), "more than stax takes for one package") {
		t.Fatalf("Materialize = %v (%v), want the fetch stopped at the limit", err, errdefs.Of(err))
	}
	assertClean(t, c, dest)
}

// Gitlinks are named, not followed; .gitattributes filters and hooks the
// user's own configuration sets never run, since nothing is checked out.
func TestMaterializeRunsNothingOfTheRepository(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "hostile")
	repo.Write(map[string]string{
		"s/SKILL.md":             "raw content\n",
		"s/.gitattributes":       "* filter=evil\n",
		"s/hooks/post-checkout*": "#!/bin/sh\ntouch pwned\n",
	})
	repo.Gitlink("s/vendor/lib", strings.Repeat("ab", 20))
	commit := repo.Commit("hostile")
	marker := filepath.Join(t.TempDir(), "ran")
	hooks := t.TempDir()
	for _, hook := range []string{"reference-transaction", "post-checkout", "post-merge", "pre-auto-gc"} {
		if err := os.WriteFile(filepath.Join(hooks, hook), []byte("#!/bin/sh\necho "+hook+" >> "+marker+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := newCache(t, "[filter \"evil\"]\n\tsmudge = sh -c 'echo smudge >> "+marker+"'\n\tclean = sh -c 'echo clean >> "+marker+"'\n\trequired = true\n[core]\n\thooksPath = "+hooks+"\n")
	dest := filepath.Join(t.TempDir(), "out")
	tree, err := c.Materialize(context.Background(), mustParse(t, "git+"+repo.URL+"//s"), commit, dest)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tree.Gitlinks, []string{"vendor/lib"}) {
		t.Errorf("Gitlinks = %v, want [vendor/lib]", tree.Gitlinks)
	}
	if _, err := os.Lstat(filepath.Join(dest, "vendor", "lib")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the submodule was written: %v", err)
	}
	if s := readFile(t, filepath.Join(dest, "SKILL.md")); s != "raw content\n" {
		t.Errorf("SKILL.md = %q, want the blob as it is", s)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("git ran what it must not: %s", b)
	}
}

func TestFailuresAreClassifiedAndMasked(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	c := newCache(t, "")
	ctx := context.Background()
	missing := mustParse(t, "git+http://bob:s3cr3t@"+strings.TrimPrefix(srv.URL, "http://")+"/nothing.git")
	_, err := c.ListRefs(ctx, missing)
	if errdefs.Of(err) != errdefs.Unavailable || !strings.Contains(err.Error(), "/nothing.git") || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("ListRefs of a missing repository = %v (%v), want unavailable naming it, the password masked", err, errdefs.Of(err))
	}
	_, err = c.Materialize(ctx, missing, strings.Repeat("1", 40), filepath.Join(t.TempDir(), "out"))
	if errdefs.Of(err) != errdefs.Unavailable || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("Materialize from a missing repository = %v (%v), want unavailable, the password masked", err, errdefs.Of(err))
	}

	repo := srv.NewRepo(t, "one")
	repo.Write(map[string]string{"SKILL.md": "x"})
	head := repo.Commit("x")
	withPassword := mustParse(t, "git+http://bob:s3cr3t@"+strings.TrimPrefix(repo.URL, "http://"))
	if _, err := c.Materialize(ctx, withPassword, head, filepath.Join(t.TempDir(), "out")); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(c.Dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(readFile(t, p), "s3cr3t") {
			t.Errorf("%s holds the password", p)
		}
		return err
	})
	_, err = c.Materialize(ctx, mustParse(t, "git+"+repo.URL), strings.Repeat("2", 40), filepath.Join(t.TempDir(), "out"))
	if errdefs.Of(err) != errdefs.Unresolved || !strings.Contains(err.Error(), "has no commit "+strings.Repeat("2", 40)) {
		t.Errorf("Materialize of a commit the repository lacks = %v (%v), want unresolved", err, errdefs.Of(err))
	}
	if _, err := c.Materialize(ctx, mustParse(t, "git+"+repo.URL), "--upload-pack=touch x", t.TempDir()); errdefs.Of(err) != errdefs.InvalidArgument {
		t.Errorf("Materialize of an option = %v, want invalid", err)
	}
}

// A listing longer than stax reads is cut, not read into memory whole.
func TestListRefsStopsAtTheOutputLimit(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "tags")
	repo.Write(map[string]string{"SKILL.md": "x"})
	repo.Commit("x")
	for i := range 100 {
		repo.Tag(fmt.Sprintf("v1.0.%d", i), "")
	}
	c := newCache(t, "")
	c.outputLimit = 2048
	_, err := c.ListRefs(context.Background(), mustParse(t, "git+"+repo.URL))
	if errdefs.Of(err) != errdefs.FailedPrecondition || !strings.Contains(err.Error(), "git ls-remote wrote over 2048 bytes") {
		t.Errorf("ListRefs = %v (%v), want it stopped at the limit", err, errdefs.Of(err))
	}
}

// The user's insteadOf applies, but never to reach a transport that runs
// a command: ext:: is refused whatever a URL is rewritten to.
func TestInsteadOfNeverReachesExt(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "ran")
	c := newCache(t, "[url \"ext::sh -c touch% "+marker+" #\"]\n\tinsteadOf = https://example.invalid/\n")
	_, err := c.ListRefs(context.Background(), mustParse(t, "git+https://example.invalid/r.git"))
	if errdefs.Of(err) != errdefs.Unavailable || !strings.Contains(err.Error(), "transport 'ext' not allowed") {
		t.Errorf("ListRefs through an ext:: insteadOf = %v, want git to refuse the transport", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the ext:: command ran")
	}
}

func TestGitMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	c := NewCache(t.TempDir())
	_, err := c.ListRefs(context.Background(), mustParse(t, "github.com/o/r"))
	if !errors.Is(err, ErrGitMissing) || errdefs.Of(err) != errdefs.Local || !strings.Contains(err.Error(), "install git") {
		t.Errorf("ListRefs without git = %v, want it to say to install git", err)
	}
}
