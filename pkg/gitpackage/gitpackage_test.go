package gitpackage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"oras.land/oras-go/v2/content/memory"

	"github.com/stax-dev/stax/internal/gittest"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/checkout"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/gitsource"
	"github.com/stax-dev/stax/pkg/semver"
)

const anthropics = "../../testdata/repos/anthropics-skills"

// serve serves the anthropics-skills fixture at v1.0.0, and returns the
// server, its URL and the commit.
func serve(t *testing.T) (*gittest.Server, string, string) {
	t.Helper()
	gittest.RequireGit(t)
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "skills")
	repo.WriteDir(anthropics)
	commit := repo.Commit("skills")
	repo.Tag("v1.0.0", "")
	return srv, repo.URL, commit
}

func newCache(t *testing.T) *gitsource.Cache {
	t.Helper()
	home := t.TempDir()
	c := gitsource.NewCache(home)
	c.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	return c
}

func parse(t *testing.T, s string) gitsource.Reference {
	t.Helper()
	r, err := gitsource.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func skillNames(src *checkout.Source) []string {
	var out []string
	for _, s := range src.Skills {
		out = append(out, s.Name)
	}
	return out
}

// tmpClean sets TMPDIR to a directory of the test's, and fails the test
// when anything is left in it.
func tmpClean(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Cleanup(func() {
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Errorf("left in the temporary directory: %v", left)
		}
	})
}

// The fixture laid out as anthropics/skills builds by plugin, by SUBDIR
// and by --skill, leniently, annotated with its URL and commit, and
// leaves nothing in temp.
func TestBuildAnthropicsSkills(t *testing.T) {
	tmpClean(t)
	_, url, commit := serve(t)
	cache := newCache(t)
	for _, tc := range []struct {
		name string
		decl Declaration
		want []string
	}{
		{"plugin", Declaration{Ref: parse(t, "git+"+url), Plugin: "document-skills@anthropic-agent-skills"}, []string{"docx", "pdf", "xlsx"}},
		{"subdir", Declaration{Ref: parse(t, "git+"+url+"//skills/pdf#v1.0.0")}, []string{"pdf"}},
		{"skill", Declaration{Ref: parse(t, "git+"+url), Skills: []string{"claude-api", "docx"}}, []string{"claude-api", "docx"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := memory.New()
			built, err := Build(context.Background(), store, tc.decl, Options{Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			if got := skillNames(built.Source); !slices.Equal(got, tc.want) {
				t.Errorf("skills %v, want %v", got, tc.want)
			}
			if r := built.Locked.Resolved; r.Commit != commit || r.Ref != "v1.0.0" || r.Kind != gitsource.KindTag {
				t.Errorf("locked %+v, want v1.0.0 at %s", r, commit)
			}
			ann := built.Descriptor.Annotations
			if ann[artifact.AnnotationRevision] != commit || ann[artifact.AnnotationSource] != url {
				t.Errorf("annotations %v", ann)
			}
			if _, err := os.Stat(built.Source.Root); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the tree %s is left: %v", built.Source.Root, err)
			}
		})
	}
}

// The over-long description of claude-api is one warning naming the
// skill; Strict refuses it.
func TestBuildLenientAndStrict(t *testing.T) {
	_, url, _ := serve(t)
	cache := newCache(t)
	decl := Declaration{Ref: parse(t, "git+"+url), Skills: []string{"claude-api"}}
	built, err := Build(context.Background(), memory.New(), decl, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if len(built.Warnings) != 1 || !strings.Contains(built.Warnings[0].Skill, "claude-api") {
		t.Errorf("warnings %+v, want one naming claude-api", built.Warnings)
	}
	if _, err := Build(context.Background(), memory.New(), decl, Options{Cache: cache, Strict: true}); err == nil {
		t.Error("a strict build of claude-api succeeded")
	}
}

// A locked commit the cache holds is built with no request, to the same
// digest; a build that resolves asks only ls-remote once the commit is
// cached.
func TestBuildLockedCached(t *testing.T) {
	srv, url, _ := serve(t)
	cache := newCache(t)
	decl := Declaration{Ref: parse(t, "git+"+url), Plugin: "document-skills"}
	first, err := Build(context.Background(), memory.New(), decl, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	srv.Reset()
	if _, err := cache.ListRefs(context.Background(), decl.Ref); err != nil {
		t.Fatal(err)
	}
	lsRemote := srv.Requests()
	srv.Reset()
	again, err := Build(context.Background(), memory.New(), decl, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests(); n != lsRemote {
		t.Errorf("a second build made %d requests, want %d (ls-remote's)", n, lsRemote)
	}
	srv.Reset()
	decl.Locked = &first.Locked
	frozen, err := Build(context.Background(), memory.New(), decl, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("a locked build of a cached commit made %d requests", n)
	}
	if frozen.Descriptor.Digest != first.Descriptor.Digest || again.Descriptor.Digest != first.Descriptor.Digest {
		t.Errorf("digests %s, %s, %s differ", first.Descriptor.Digest, again.Descriptor.Digest, frozen.Descriptor.Digest)
	}
}

// A range picks the highest tag in it; a missing REF is unresolved with
// the nearest tags; a missing repository is a remote failure.
func TestBuildRangeAndErrors(t *testing.T) {
	gittest.RequireGit(t)
	// A temp folder of this test's own: other test binaries run beside
	// this one and fetch into the machine's.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "skills")
	repo.WriteDir(anthropics)
	repo.Commit("one")
	repo.Tag("v1.0.0", "")
	repo.Write(map[string]string{"skills/pdf/extra.md": "more"})
	second := repo.Commit("two")
	repo.Tag("v1.1.0", "")
	repo.Write(map[string]string{"skills/pdf/extra.md": "even more"})
	repo.Commit("three")
	repo.Tag("v2.0.0", "")
	cache := newCache(t)
	rng, err := semver.ParseRange("^1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	built, err := Build(context.Background(), memory.New(), Declaration{Ref: parse(t, "git+"+repo.URL+"//skills/pdf"), Range: rng}, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if r := built.Locked.Resolved; r.Ref != "v1.1.0" || r.Commit != second {
		t.Errorf("range ^1.0.0 picked %+v", r)
	}
	if v := built.Config.Version; v != "1.1.0" {
		t.Errorf("version %q, want 1.1.0", v)
	}
	_, err = Build(context.Background(), memory.New(), Declaration{Ref: parse(t, "git+"+repo.URL+"#v1.2.0")}, Options{Cache: cache})
	if errdefs.Of(err) != errdefs.Unresolved || !strings.Contains(err.Error(), "v1.1.0") {
		t.Errorf("missing REF: %v, want a resolution error naming v1.1.0", err)
	}
	_, err = Build(context.Background(), memory.New(), Declaration{Ref: parse(t, "git+"+srv.URL+"/nothing.git")}, Options{Cache: cache})
	if errdefs.Of(err) != errdefs.Unavailable {
		t.Errorf("missing repository: %v, want a remote error", err)
	}
	if m, _ := filepath.Glob(filepath.Join(tmp, "stax-git-*")); len(m) > 0 {
		t.Errorf("left in temp: %v", m)
	}
}

// A plugin its marketplace keeps in another repository is followed: its
// repository is fetched at the ref the marketplace names, its skills
// built, and both commits locked; a locked build takes both again.
func TestBuildFollowedPlugin(t *testing.T) {
	gittest.RequireGit(t)
	srv := gittest.NewServer(t)
	daemon := srv.Daemon(t)
	other := srv.NewRepo(t, "other")
	other.Write(map[string]string{"plugin/skills/review/SKILL.md": "---\nname: review\ndescription: Review a change. Use when asked for a review.\n---\nbody\n"})
	otherCommit := other.Commit("plugin")
	other.Tag("v2.0.0", "")
	market := srv.NewRepo(t, "market")
	market.Write(map[string]string{".claude-plugin/marketplace.json": `{"name": "m", "plugins": [
		{"name": "remote", "source": {"source": "git-subdir", "url": "` + daemon + `/other.git", "path": "plugin", "ref": "v2.0.0"}}]}`})
	marketCommit := market.Commit("market")
	cache := newCache(t)
	decl := Declaration{Ref: parse(t, "git+"+market.URL), Plugin: "remote"}
	built, err := Build(context.Background(), memory.New(), decl, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if got := skillNames(built.Source); !slices.Equal(got, []string{"review"}) {
		t.Errorf("skills %v, want [review]", got)
	}
	f := built.Locked.Followed
	if built.Locked.Resolved.Commit != marketCommit || f == nil || f.Resolved.Commit != otherCommit || f.Ref.Subdir != "plugin" {
		t.Fatalf("locked %+v, followed %+v", built.Locked, f)
	}
	if got := built.Descriptor.Annotations[artifact.AnnotationRevision]; got != otherCommit {
		t.Errorf("revision %s, want the followed repository's %s", got, otherCommit)
	}
	other.Write(map[string]string{"plugin/skills/review/SKILL.md": "---\nname: review\ndescription: Changed. Use when asked.\n---\nbody\n"})
	other.Commit("moved")
	other.Git("tag", "-f", "v2.0.0")
	decl.Locked = &built.Locked
	frozen, err := Build(context.Background(), memory.New(), decl, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if frozen.Descriptor.Digest != built.Descriptor.Digest {
		t.Errorf("a locked build of a moved tag built %s, want the locked %s", frozen.Descriptor.Digest, built.Descriptor.Digest)
	}
}

// Credentials in the URL are handed to git but reach neither the
// annotations nor what is locked.
func TestBuildCredentialsNotRecorded(t *testing.T) {
	_, url, _ := serve(t)
	withSecret := strings.Replace(url, "://", "://someone:s3cret-token@", 1)
	built, err := Build(context.Background(), memory.New(), Declaration{Ref: parse(t, "git+"+withSecret+"//skills/pdf")}, Options{Cache: newCache(t)})
	if err != nil {
		t.Fatal(err)
	}
	if got := built.Descriptor.Annotations[artifact.AnnotationSource]; got != url {
		t.Errorf("source annotation %q, want %q", got, url)
	}
	for _, s := range []string{built.Descriptor.Annotations[artifact.AnnotationSource], built.Source.Root} {
		if strings.Contains(s, "s3cret") {
			t.Errorf("%q holds the credentials", s)
		}
	}
}

// A SUBDIR that is a folder of skill folders (github.com/OWNER/REPO/skills)
// is each of its folders holding a SKILL.md; a SUBDIR without skills is
// refused naming that SUBDIR, not the repository.
func TestBuildSubdirOfSkillFolders(t *testing.T) {
	tmpClean(t)
	_, url, _ := serve(t)
	cache := newCache(t)
	built, err := Build(context.Background(), memory.New(), Declaration{Ref: parse(t, "git+"+url+"//skills#v1.0.0")}, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := skillNames(built.Source), []string{"claude-api", "docx", "frontend-design", "pdf", "xlsx"}; built.Source.Layout != checkout.LayoutFolders || !slices.Equal(got, want) {
		t.Errorf("skills %s %v, want %s %v", built.Source.Layout, got, checkout.LayoutFolders, want)
	}
	_, err = Build(context.Background(), memory.New(), Declaration{Ref: parse(t, "git+"+url+"//plugins/dev-tools/agents#v1.0.0")}, Options{Cache: cache})
	if errdefs.Of(err) != errdefs.Unresolved || !strings.Contains(err.Error(), "plugins/dev-tools/agents holds no skills") || strings.Contains(err.Error(), "the repository") {
		t.Errorf("a SUBDIR without skills: %v", err)
	}
}

// A followed plugin's ref is a branch or tag name as written, whose case
// git keeps.
func TestBuildFollowedPluginRefCase(t *testing.T) {
	gittest.RequireGit(t)
	srv := gittest.NewServer(t)
	daemon := srv.Daemon(t)
	other := srv.NewRepo(t, "other")
	other.Write(map[string]string{"plugin/skills/review/SKILL.md": "---\nname: review\ndescription: Review a change. Use when asked for a review.\n---\nbody\n"})
	otherCommit := other.Commit("plugin")
	other.Git("branch", "Release")
	for _, source := range []string{`"ref": "Release"`, `"sha": "` + otherCommit + `"`} {
		market := srv.NewRepo(t, "market")
		market.Write(map[string]string{".claude-plugin/marketplace.json": `{"name": "m", "plugins": [
			{"name": "remote", "source": {"source": "git-subdir", "url": "` + daemon + `/other.git", "path": "plugin", ` + source + `}}]}`})
		market.Commit("market")
		decl := Declaration{Ref: parse(t, "git+"+market.URL), Plugin: "remote"}
		built, err := Build(context.Background(), memory.New(), decl, Options{Cache: newCache(t)})
		if err != nil {
			t.Errorf("%s: %v", source, err)
			continue
		}
		if f := built.Locked.Followed; f == nil || f.Resolved.Commit != otherCommit {
			t.Errorf("%s: followed %+v, want commit %s", source, f, otherCommit)
		}
		os.RemoveAll(market.Dir)
	}
}
