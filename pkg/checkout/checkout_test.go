package checkout

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/staxyaml"
	"github.com/stax-dev/stax/pkg/validate"
)

const (
	anthropics = "../../testdata/repos/anthropics-skills"
	codexRepo  = "../../testdata/repos/codex-marketplace"
	copilot    = "../../testdata/repos/copilot-marketplace"
)

func find(t *testing.T, opts Options) *Source {
	t.Helper()
	src, err := Find(opts)
	if err != nil {
		t.Fatalf("Find(%+v): %v", opts, err)
	}
	return src
}

func names(skills []Skill) []string {
	var out []string
	for _, s := range skills {
		out = append(out, s.Name+"="+s.Dir)
	}
	return out
}

// Each layout is found where the ecosystem keeps it, in order.
func TestFindLayouts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	skill := func(name string) string {
		return "---\nname: " + name + "\ndescription: Use when testing.\n---\nbody\n"
	}
	filetest.Write(t, dir, map[string]string{
		"one/SKILL.md":                     skill("the-one"),
		"one/skills/ignored/SKILL.md":      skill("ignored"),
		"claude/.claude/skills/a/SKILL.md": skill("a"),
		"claude/.agents/skills/b/SKILL.md": skill("b"),
		"agents/.agents/skills/b/SKILL.md": skill("b"),
		"agents/.agents/skills/notes.txt":  "not a skill",
		"project/stax.yaml":                "name: team\nversion: 1.0.0\nskills: src\n",
		"project/src/x/SKILL.md":           skill("x"),
		"project/skills/y/SKILL.md":        skill("y"),
		"SKILL.md":                         "---\nname: Not A Name\ndescription: Use when testing.\n---\n",
		"empty/README.md":                  "nothing here",
		// A repository laid out as anthropics/skills keeps a skill
		// template beside skills/: its skills are those of skills/.
		"repo/skills/s/SKILL.md":         skill("s"),
		"repo/template/SKILL.md":         skill("template"),
		"kept/.claude/skills/c/SKILL.md": skill("c"),
		"kept/tool/SKILL.md":             skill("tool"),
	})
	for _, tt := range []struct {
		subdir string
		layout Layout
		want   []string
	}{
		{"", LayoutSkill, []string{"my-repo=."}},
		{"one", LayoutSkill, []string{"the-one=one"}},
		{"claude", LayoutClaude, []string{"a=claude/.claude/skills/a"}},
		{"agents", LayoutAgents, []string{"b=agents/.agents/skills/b"}},
		{"project", LayoutProject, []string{"x=project/src/x"}},
		{"project/skills", LayoutFolders, []string{"y=project/skills/y"}},
		{"repo", LayoutSkills, []string{"s=repo/skills/s"}},
		{"kept", LayoutClaude, []string{"c=kept/.claude/skills/c"}},
	} {
		src := find(t, Options{Root: dir, Subdir: tt.subdir, Repository: "My Repo"})
		if src.Layout != tt.layout || !slices.Equal(names(src.Skills), tt.want) {
			t.Errorf("%q: %s %v, want %s %v", tt.subdir, src.Layout, names(src.Skills), tt.layout, tt.want)
		}
	}
	src := find(t, Options{Root: anthropics})
	if want := []string{"claude-api=skills/claude-api", "docx=skills/docx", "frontend-design=skills/frontend-design", "pdf=skills/pdf", "xlsx=skills/xlsx"}; src.Layout != LayoutSkills || !slices.Equal(names(src.Skills), want) {
		t.Errorf("anthropics: %s %v, want skills %v", src.Layout, names(src.Skills), want)
	}
	_, err := Find(Options{Root: dir, Subdir: "empty"})
	if errdefs.Of(err) != errdefs.Unresolved || !strings.Contains(err.Error(), ".claude/skills/*") {
		t.Errorf("no skills: %v", err)
	}
	for _, bad := range []string{"../outside", "/etc", "a\\b"} {
		if _, err := Find(Options{Root: dir, Subdir: bad}); err == nil {
			t.Errorf("subdir %q was read", bad)
		}
	}
}

// A plugin of each format is found by NAME and NAME@MARKETPLACE, with its
// skills; its commands, agents, hooks and MCP servers are one warning; a
// plugin of another repository is a reference to follow.
func TestFindPlugins(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		root, plugin string
		want         []string
		notInstalled string
	}{
		{anthropics, "document-skills@anthropic-agent-skills", []string{"docx=skills/docx", "pdf=skills/pdf", "xlsx=skills/xlsx"}, ""},
		{anthropics, "dev-tools", []string{"review=plugins/dev-tools/skills/review"}, "plugin dev-tools carries commands, agents, hooks, MCP servers, which stax does not install"},
		{codexRepo, "notes@acme-codex", []string{"take-notes=plugins/notes/skills/take-notes"}, "plugin notes carries MCP servers, which"},
		{copilot, "frontend", []string{"a11y=plugins/frontend/skills/a11y"}, "plugin frontend carries agents, which"},
	} {
		src := find(t, Options{Root: tt.root, Plugin: tt.plugin})
		if src.Layout != LayoutPlugin || !slices.Equal(names(src.Skills), tt.want) {
			t.Errorf("%s: %s %v, want %v", tt.plugin, src.Layout, names(src.Skills), tt.want)
		}
		var got []string
		for _, w := range src.Warnings {
			if w.Kind == KindPluginNotInstalled {
				got = append(got, w.Message)
			}
		}
		switch {
		case tt.notInstalled == "" && len(got) != 0:
			t.Errorf("%s: warnings %q", tt.plugin, got)
		case tt.notInstalled != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tt.notInstalled)):
			t.Errorf("%s: warnings %q, want one starting %q", tt.plugin, got, tt.notInstalled)
		}
	}

	src := find(t, Options{Root: anthropics, Plugin: "remote-skills"})
	want := GitSource{URL: "https://github.com/acme/remote-skills", Ref: "v1.2.0", SHA: "0123456789abcdef0123456789abcdef01234567"}
	if src.Follow == nil || *src.Follow != want || len(src.Skills) != 0 {
		t.Errorf("github source: follow %+v, skills %v; want %+v", src.Follow, src.Skills, want)
	}
	src = find(t, Options{Root: copilot, Plugin: "lint@acme-copilot"})
	want = GitSource{URL: "https://gitlab.com/acme/monorepo.git", Path: "plugins/lint", Ref: "main"}
	if src.Follow == nil || *src.Follow != want {
		t.Errorf("git-subdir source: follow %+v, want %+v", src.Follow, want)
	}
	if _, err := Build(context.Background(), memory.New(), src, BuildOptions{}); err == nil {
		t.Error("a plugin of another repository was built from this one")
	}

	if err := src.Select([]string{"lint"}); err == nil {
		t.Error("skills of a plugin of another repository were chosen before it was fetched")
	}
	_, err := Find(Options{Root: codexRepo})
	if errdefs.Of(err) != errdefs.Unresolved || !strings.Contains(err.Error(), "choose a plugin (notes@acme-codex)") {
		t.Errorf("a marketplace without skills of its own: %v", err)
	}
	_, err = Find(Options{Root: anthropics, Plugin: "document-skill"})
	if errdefs.Of(err) != errdefs.Unresolved || !strings.Contains(err.Error(), `did you mean "document-skills"`) || !strings.Contains(err.Error(), "dev-tools") {
		t.Errorf("unknown plugin: %v", err)
	}
	_, err = Find(Options{Root: anthropics, Plugin: "dev-tools@elsewhere"})
	if errdefs.Of(err) != errdefs.Unresolved || !strings.Contains(err.Error(), "anthropic-agent-skills") {
		t.Errorf("unknown marketplace: %v", err)
	}
}

// writeMarketplace writes a Claude Code marketplace of one plugin entry
// beside a skill.
func writeMarketplace(t *testing.T, entry map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	data, err := json.Marshal(map[string]any{"name": "m", "plugins": []any{entry}})
	if err != nil {
		t.Fatal(err)
	}
	filetest.Write(t, dir, map[string]string{
		".claude-plugin/marketplace.json": string(data),
		"p/skills/s/SKILL.md":             "---\nname: s\ndescription: Use when testing.\n---\n",
	})
	return dir
}

// What a marketplace says is hostile: paths out of the checkout, unsafe
// names, transports and credentials in URLs, refs read as options, and
// files too large are refused.
func TestHostileMarketplaces(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	filetest.Write(t, outside, map[string]string{"s/SKILL.md": "---\nname: s\ndescription: Use when testing.\n---\n"})
	cases := map[string]map[string]any{
		"source out of the checkout":   {"name": "p", "source": "../../../" + outside},
		"absolute source":              {"name": "p", "source": outside},
		"skills out of the checkout":   {"name": "p", "source": "./p", "skills": []string{"../../" + filepath.Base(outside)}},
		"unsafe plugin name":           {"name": "-rf", "source": "./p"},
		"hidden plugin name":           {"name": ".git", "source": "./p"},
		"file url":                     {"name": "p", "source": map[string]string{"source": "url", "url": "file:///etc"}},
		"ext transport":                {"name": "p", "source": map[string]string{"source": "url", "url": "ext::sh -c touch% /tmp/pwned"}},
		"plain http":                   {"name": "p", "source": map[string]string{"source": "url", "url": "http://example.com/r.git"}},
		"credentials in url":           {"name": "p", "source": map[string]string{"source": "url", "url": "https://user:token@example.com/r.git"}},
		"option as ref":                {"name": "p", "source": map[string]string{"source": "github", "repo": "a/b", "ref": "--upload-pack=touch /tmp/pwned"}},
		"option as repo":               {"name": "p", "source": map[string]string{"source": "github", "repo": "-oProxyCommand=x/y"}},
		"subdir out of the repository": {"name": "p", "source": map[string]string{"source": "git-subdir", "url": "https://example.com/r.git", "path": "../x"}},
		"short sha":                    {"name": "p", "source": map[string]string{"source": "github", "repo": "a/b", "sha": "abc"}},
	}
	for name, entry := range cases {
		dir := writeMarketplace(t, entry)
		src, err := Find(Options{Root: dir, Plugin: "p"})
		if err == nil {
			t.Errorf("%s: found %+v", name, src)
			continue
		}
		t.Logf("%s: %v", name, err)
		if strings.Contains(err.Error(), "token") {
			t.Errorf("%s: the error prints the credentials: %v", name, err)
		}
	}

	// A link out of the checkout is not followed to read a manifest.
	dir := t.TempDir()
	filetest.Write(t, outside, map[string]string{"marketplace.json": `{"name":"m","plugins":[{"name":"p","source":"./"}]}`})
	if err := os.Symlink(outside, filepath.Join(dir, ".claude-plugin")); err != nil {
		t.Fatal(err)
	}
	if src, err := Find(Options{Root: dir, Plugin: "p"}); err == nil {
		t.Errorf("a marketplace through a link out of the checkout was read: %+v", src)
	}

	// A manifest is read up to a bound.
	big := t.TempDir()
	filetest.Write(t, big, map[string]string{".claude-plugin/marketplace.json": `{"name":"` + strings.Repeat("x", maxManifestSize) + `"}`})
	if _, err := Find(Options{Root: big, Plugin: "p"}); errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "limit") {
		t.Errorf("a marketplace over the limit: %v", err)
	}
}

// --skill keeps the skills named; an unknown one is refused naming the
// nearest.
func TestSelect(t *testing.T) {
	t.Parallel()
	src := find(t, Options{Root: anthropics})
	if err := src.Select([]string{"xlsx", "pdf"}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"pdf=skills/pdf", "xlsx=skills/xlsx"}; !slices.Equal(names(src.Skills), want) {
		t.Errorf("selected %v, want %v", names(src.Skills), want)
	}
	src = find(t, Options{Root: anthropics})
	err := src.Select([]string{"pdff"})
	if errdefs.Of(err) != errdefs.Unresolved || !strings.Contains(err.Error(), `did you mean "pdf"`) || !strings.Contains(err.Error(), "claude-api, docx") {
		t.Errorf("unknown skill: %v", err)
	}
}

// skillsLayer is the skills layer of the package res built, and its
// manifest's annotations.
func skillsLayer(t *testing.T, store content.Fetcher, res *pack.Result) (ocispec.Descriptor, map[string]string) {
	t.Helper()
	rc, err := store.Fetch(context.Background(), res.Descriptor)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, l := range m.Layers {
		if l.MediaType == layers.MediaTypeSkills {
			return l, m.Annotations
		}
	}
	t.Fatal("no skills layer")
	return ocispec.Descriptor{}, nil
}

// copyTree copies the files of src into dst with other modes and times,
// as another machine's checkout would have them.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	when := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(out, data, 0o600); err != nil {
			return err
		}
		return os.Chtimes(out, when, when)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A source is the package stax pack builds of the same files, byte for
// byte in its skills layer, whatever the times and modes of the
// checkout, annotated with its source and revision, without credentials.
func TestBuildIsWhatPackBuilds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	skillsDir := t.TempDir()
	for _, s := range []string{"docx", "pdf", "xlsx"} {
		copyTree(t, filepath.Join(anthropics, "skills", s), filepath.Join(skillsDir, s))
	}
	project, err := staxyaml.Open(skillsDir)
	if err != nil {
		t.Fatal(err)
	}
	packStore := memory.New()
	packed, err := pack.Build(ctx, packStore, pack.Options{Project: project})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := skillsLayer(t, packStore, packed)

	const commit = "89abcdef0123456789abcdef0123456789abcdef"
	for _, opts := range []Options{
		{Root: anthropics, Plugin: "document-skills"},
		{Root: anthropics, Repository: "skills"},
	} {
		src := find(t, opts)
		if opts.Plugin == "" {
			if err := src.Select([]string{"docx", "pdf", "xlsx"}); err != nil {
				t.Fatal(err)
			}
		}
		store := memory.New()
		res, err := Build(ctx, store, src, BuildOptions{Tag: "v1.1.0", Source: "https://x-access-token:secret@github.com/anthropics/skills", Revision: commit})
		if err != nil {
			t.Fatal(err)
		}
		got, annotations := skillsLayer(t, store, res.Result)
		if got.Digest != want.Digest {
			t.Errorf("%+v: skills layer %s, stax pack's %s", opts, got.Digest, want.Digest)
		}
		if annotations[artifact.AnnotationSource] != "https://github.com/anthropics/skills" || annotations[artifact.AnnotationRevision] != commit {
			t.Errorf("%+v: annotations %v", opts, annotations)
		}
		if res.Config.Version != "1.1.0" {
			t.Errorf("%+v: version %q, want the tag's 1.1.0", opts, res.Config.Version)
		}
	}
}

// Package names and versions when the source declares none.
func TestBuildNamesAndVersions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		opts               Options
		tag, name, version string
	}{
		{Options{Root: anthropics, Repository: "skills"}, "", "skills", "0.0.0"},
		{Options{Root: anthropics, Repository: "skills"}, "main", "skills", "0.0.0"},
		{Options{Root: anthropics, Subdir: "skills/pdf", Repository: "skills"}, "v2.0.0+build.1", "pdf", "2.0.0"},
		{Options{Root: anthropics, Plugin: "dev-tools"}, "1.0.0-rc.1", "dev-tools", "1.0.0-rc.1"},
	} {
		src := find(t, tt.opts)
		res, err := Build(context.Background(), memory.New(), src, BuildOptions{Tag: tt.tag})
		if err != nil {
			t.Fatalf("%+v: %v", tt.opts, err)
		}
		if res.Config.Name != tt.name || res.Config.Version != tt.version {
			t.Errorf("%+v %q: %s %s, want %s %s", tt.opts, tt.tag, res.Config.Name, res.Config.Version, tt.name, tt.version)
		}
	}
}

// Someone else's skills that break content rules build with one warning
// per skill and rule; Strict refuses them; a safety rule refuses always.
func TestBuildIsLenientOnContentRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	res, err := Build(ctx, memory.New(), find(t, Options{Root: anthropics}), BuildOptions{})
	if err != nil {
		t.Fatalf("lenient build: %v", err)
	}
	var got []string
	for _, w := range res.Warnings {
		got = append(got, w.Skill+" "+w.Kind)
	}
	if !slices.Equal(got, []string{"claude-api " + validate.CodeDescriptionTooLong}) {
		t.Errorf("warnings %q, want the one over-long description", got)
	}
	if !strings.Contains(res.Warnings[0].Message, "skills/claude-api/SKILL.md") {
		t.Errorf("warning %q does not name the file in the repository", res.Warnings[0].Message)
	}
	if len(res.Config.Skills) != 5 {
		t.Errorf("%d skills packaged, want 5", len(res.Config.Skills))
	}

	_, err = Build(ctx, memory.New(), find(t, Options{Root: anthropics}), BuildOptions{Strict: true})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), validate.CodeDescriptionTooLong) {
		t.Errorf("strict build: %v", err)
	}

	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		"skills/folder/SKILL.md": "---\nname: other\ndescription: Use when testing.\nx-team: blue\n---\n",
		"skills/hidden/SKILL.md": "---\nname: hidden\ndescription: Use when testing.\n---\nobey\u202e\n",
	})
	_, err = Build(ctx, memory.New(), find(t, Options{Root: dir}), BuildOptions{})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), validate.CodeHiddenText) {
		t.Errorf("hidden text: %v", err)
	}
	src := find(t, Options{Root: dir})
	if err := src.Select([]string{"folder"}); err != nil {
		t.Fatal(err)
	}
	res, err = Build(ctx, memory.New(), src, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, w := range res.Warnings {
		got = append(got, w.Skill+" "+w.Kind)
	}
	slices.Sort(got)
	if want := []string{"folder " + validate.CodeNameMismatch, "folder " + validate.CodeUnknownField}; !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
}

// A link out of the checkout is refused, as pack refuses it.
func TestBuildRefusesLinksOut(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	filetest.Write(t, outside, map[string]string{"secret": "key"})
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{"skills/s/SKILL.md": "---\nname: s\ndescription: Use when testing.\n---\n"})
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "skills", "s", "secret")); err != nil {
		t.Fatal(err)
	}
	_, err := Build(context.Background(), memory.New(), find(t, Options{Root: dir}), BuildOptions{})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), string(layers.ProblemSymlinkEscape)) {
		t.Errorf("a link out of the checkout: %v", err)
	}

	// A skill folder that is a link out of the checkout is no skill of it.
	filetest.Write(t, outside, map[string]string{"evil/SKILL.md": "---\nname: evil\ndescription: Use when testing.\n---\n"})
	if err := os.Symlink(filepath.Join(outside, "evil"), filepath.Join(dir, "skills", "evil")); err != nil {
		t.Fatal(err)
	}
	if src := find(t, Options{Root: dir}); !slices.Equal(names(src.Skills), []string{"s=skills/s"}) {
		t.Errorf("skills %v: a folder out of the checkout was taken", names(src.Skills))
	}
}

// A marketplace entry that cannot be used is refused when chosen only:
// the other plugins, and the skills beside a marketplace that cannot be
// read, stay usable.
func TestBadMarketplaceEntriesRefusedWhenChosen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		".claude-plugin/marketplace.json": `{"name":"m","plugins":[{"name":"bad","source":"../../etc"},{"name":"good","source":"./p"}]}`,
		"p/skills/s/SKILL.md":             "---\nname: s\ndescription: Use when testing.\n---\n",
	})
	if src := find(t, Options{Root: dir, Plugin: "good"}); len(src.Skills) != 1 {
		t.Errorf("good plugin: %v", names(src.Skills))
	}
	if _, err := Find(Options{Root: dir, Plugin: "bad"}); err == nil || !strings.Contains(err.Error(), "leads out of the repository") {
		t.Errorf("bad plugin: %v", err)
	}
	broken := t.TempDir()
	filetest.Write(t, broken, map[string]string{
		".claude-plugin/marketplace.json": `{"plugins": [`,
		"skills/s/SKILL.md":               "---\nname: s\ndescription: Use when testing.\n---\n",
	})
	if src := find(t, Options{Root: broken}); src.Layout != LayoutSkills || len(src.Skills) != 1 {
		t.Errorf("skills beside a broken marketplace: %s %v", src.Layout, names(src.Skills))
	}
	if _, err := Find(Options{Root: broken, Plugin: "p"}); errdefs.Of(err) != errdefs.InvalidArgument {
		t.Errorf("plugin of a broken marketplace: %v", err)
	}
}

// A stax.yaml source is built as stax pack builds it, leniently; chosen
// skills are what pack writes of them, its .staxignore applied.
func TestBuildProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		"pkg/stax.yaml":          "name: team\nversion: 2.0.0\nskills: skills\n",
		"pkg/.staxignore":        "*.log\n",
		"pkg/skills/a/SKILL.md":  "---\nname: a\ndescription: Use when testing.\n---\n",
		"pkg/skills/a/debug.log": "left out",
		"pkg/skills/b/SKILL.md":  "---\nname: b\ndescription: " + strings.Repeat("x", 1100) + "\n---\n",
		"pkg/skills/c/SKILL.md":  "---\nname: c\ndescription: Use when testing.\n---\n",
	})
	src := find(t, Options{Root: dir, Subdir: "pkg"})
	res, err := Build(ctx, memory.New(), src, BuildOptions{Tag: "v9.9.9"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Config.Name != "team" || res.Config.Version != "2.0.0" || len(res.Config.Skills) != 3 || len(res.Warnings) != 1 {
		t.Errorf("built %s %s with %d skills, warnings %v", res.Config.Name, res.Config.Version, len(res.Config.Skills), res.Warnings)
	}

	src = find(t, Options{Root: dir, Subdir: "pkg"})
	if err := src.Select([]string{"a", "c"}); err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	res, err = Build(ctx, store, src, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := skillsLayer(t, store, res.Result)

	only := t.TempDir()
	filetest.Write(t, only, map[string]string{
		"stax.yaml":         "name: team\nversion: 2.0.0\nskills: skills\n",
		"skills/a/SKILL.md": "---\nname: a\ndescription: Use when testing.\n---\n",
		"skills/c/SKILL.md": "---\nname: c\ndescription: Use when testing.\n---\n",
	})
	project, err := staxyaml.Open(only)
	if err != nil {
		t.Fatal(err)
	}
	packStore := memory.New()
	packed, err := pack.Build(ctx, packStore, pack.Options{Project: project})
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := skillsLayer(t, packStore, packed); got.Digest != want.Digest {
		t.Errorf("chosen skills layer %s, stax pack's %s", got.Digest, want.Digest)
	}
}

// A Claude Code entry with strict false is the plugin's whole
// definition: a plugin.json in its folder is not read.
func TestNonStrictEntryIsTheWholePlugin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		".claude-plugin/marketplace.json": `{"name":"m","plugins":[{"name":"p","source":"./p","strict":false},{"name":"q","source":"./p"}]}`,
		"p/.claude-plugin/plugin.json":    `{"name":"p","skills":"./extra","mcpServers":"./.mcp.json"}`,
		"p/skills/s/SKILL.md":             "---\nname: s\ndescription: Use when testing.\n---\n",
		"p/extra/e/SKILL.md":              "---\nname: e\ndescription: Use when testing.\n---\n",
	})
	if src := find(t, Options{Root: dir, Plugin: "p"}); !slices.Equal(names(src.Skills), []string{"s=p/skills/s"}) || len(src.Warnings) != 0 {
		t.Errorf("strict false: %v, warnings %v", names(src.Skills), src.Warnings)
	}
	if src := find(t, Options{Root: dir, Plugin: "q"}); !slices.Equal(names(src.Skills), []string{"e=p/extra/e"}) || len(src.Warnings) != 1 {
		t.Errorf("strict: %v, warnings %v", names(src.Skills), src.Warnings)
	}
}
