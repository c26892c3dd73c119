package checkout

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"oras.land/oras-go/v2/content/memory"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/pkg/artifact"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// No error quotes the credentials of a plugin's source URL, whatever else
// is wrong with it, and no annotation keeps them, whatever the scheme.
func TestCredentialsNeverShown(t *testing.T) {
	t.Parallel()
	for name, url := range map[string]string{
		"http":         "http://user:sekrit@example.com/r.git",
		"unparsable":   "https://user:sekrit@exa mple.com/r.git",
		"ftp":          "ftp://sekrit@example.com/r.git",
		"ssh password": "ssh://git:sekrit@example.com/r.git",
		"query":        "https://example.com/r.git?token=sekrit",
	} {
		dir := writeMarketplace(t, map[string]any{"name": "p", "source": map[string]string{"source": "url", "url": url}})
		_, err := Find(Options{Root: dir, Plugin: "p"})
		if err == nil || strings.Contains(err.Error(), "sekrit") {
			t.Errorf("%s: %v", name, err)
		}
	}
	for raw, want := range map[string]string{
		"https://x-access-token:sekrit@github.com/a/b": "https://github.com/a/b",
		"git+https://sekrit@github.com/a/b":            "git+https://github.com/a/b",
		"git+http://sekrit:x@127.0.0.1/a/b":            "git+http://127.0.0.1/a/b",
		"ssh://git:sekrit@example.com/a/b":             "ssh://git@example.com/a/b",
		"git+ssh://git@example.com/a/b":                "git+ssh://git@example.com/a/b",
	} {
		got, err := annotate(raw, "")
		if err != nil || got[artifact.AnnotationSource] != want {
			t.Errorf("annotate(%q) = %v, %v; want %s", raw, got, err, want)
		}
	}
}

// What a marketplace names cannot forge a line of the message that lists
// it: a name that breaks the name rule is not listed, and a marketplace's
// name is escaped.
func TestMarketplaceNamesCannotForgeLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		".claude-plugin/marketplace.json": `{"name":"m\nError: forged","plugins":[{"name":"p\nError: forged","source":"./p"},{"name":"q","source":"./p"}]}`,
		"p/skills/s/SKILL.md":             "---\nname: s\ndescription: Use when testing.\n---\n",
	})
	for plugin, lists := range map[string]string{"zzz": "marketplace: q", "zzz@other": `it has m\nError: forged`} {
		_, err := Find(Options{Root: dir, Plugin: plugin})
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), lists) {
			t.Errorf("%s: %q", plugin, err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "p", "skills", "s", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	_, err := Find(Options{Root: dir})
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "q@") {
		t.Errorf("choose a plugin: %q", err)
	}
}

// An ssh URL whose user git could read as an option is refused.
func TestSSHUserOptionRefused(t *testing.T) {
	t.Parallel()
	dir := writeMarketplace(t, map[string]any{"name": "p", "source": map[string]string{"source": "url", "url": "ssh://-oProxyCommand=touch@example.com/r.git"}})
	if src, err := Find(Options{Root: dir, Plugin: "p"}); err == nil {
		t.Errorf("followed %+v", src.Follow)
	}
}

// A .staxignore that leads out of the checkout is not read: what it
// leaves out would decide the package.
func TestIgnoreFileOutOfTheCheckoutRefused(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	filetest.Write(t, outside, map[string]string{"ignore": "*\n"})
	for _, pkgRoot := range []string{"", "pkg"} {
		dir := t.TempDir()
		filetest.Write(t, dir, map[string]string{
			"skills/s/SKILL.md":     "---\nname: s\ndescription: Use when testing.\n---\n",
			"pkg/stax.yaml":         "name: team\nversion: 1.0.0\n",
			"pkg/skills/s/SKILL.md": "---\nname: s\ndescription: Use when testing.\n---\n",
		})
		if err := os.Symlink(filepath.Join(outside, "ignore"), filepath.Join(dir, pkgRoot, ".staxignore")); err != nil {
			t.Fatal(err)
		}
		res, err := Build(context.Background(), memory.New(), find(t, Options{Root: dir, Subdir: pkgRoot}), BuildOptions{})
		if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), ".staxignore") {
			t.Errorf("%q: a .staxignore out of the checkout: %v", pkgRoot, err)
			if res != nil && res.Config != nil {
				t.Errorf("%q: it built %d skills", pkgRoot, len(res.Config.Skills))
			}
		}
	}
}

// A skills path that is a file is no folder of skills: a plugin that
// lists one is refused as the marketplace's error, and a file named
// skills is passed over for the next layout.
func TestSkillsPathThatIsAFile(t *testing.T) {
	t.Parallel()
	dir := writeMarketplace(t, map[string]any{"name": "p", "source": "./p", "skills": "./skills/s/SKILL.md"})
	if _, err := Find(Options{Root: dir, Plugin: "p"}); errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "holds no skill") {
		t.Errorf("skills naming a file: %v (%v)", err, errdefs.Of(err))
	}
	dir = t.TempDir()
	filetest.Write(t, dir, map[string]string{
		"skills":                    "a file",
		".claude/skills/a/SKILL.md": "---\nname: a\ndescription: Use when testing.\n---\n",
	})
	if src, err := Find(Options{Root: dir}); err != nil || src.Layout != LayoutClaude {
		t.Errorf("a file named skills: %v", err)
	}
}

// A plugin listed twice in one marketplace is refused when asked for:
// which of the two the marketplace means cannot be told.
func TestDuplicatePluginRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		".claude-plugin/marketplace.json": `{"name":"m","plugins":[{"name":"p","source":"./p"},{"name":"p","source":"./q"},{"name":"r","source":"./p"}]}`,
		"p/skills/s/SKILL.md":             "---\nname: s\ndescription: Use when testing.\n---\n",
		"q/skills/evil/SKILL.md":          "---\nname: evil\ndescription: Use when testing.\n---\n",
	})
	if src, err := Find(Options{Root: dir, Plugin: "p"}); errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a plugin listed twice: %v", err)
		if src != nil {
			t.Errorf("took %v", names(src.Skills))
		}
	}
	if _, err := Find(Options{Root: dir, Plugin: "r"}); err != nil {
		t.Errorf("the other plugin: %v", err)
	}
}

// A skill chosen by name that the repository's .staxignore leaves out is
// refused, not a package without it; so is a package the .staxignore
// leaves empty.
func TestIgnoredSkillsAreNotDroppedSilently(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		".staxignore":         "/skills/pdf/\n",
		"skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Use when testing.\n---\n",
		"skills/doc/SKILL.md": "---\nname: doc\ndescription: Use when testing.\n---\n",
	})
	src := find(t, Options{Root: dir})
	if err := src.Select([]string{"pdf"}); err != nil {
		t.Fatal(err)
	}
	res, err := Build(context.Background(), memory.New(), src, BuildOptions{})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "skill pdf") || !strings.Contains(err.Error(), ".staxignore") {
		t.Errorf("a chosen skill left out: %v", err)
		if err == nil {
			t.Errorf("built %d skills", len(res.Config.Skills))
		}
	}
	res, err = Build(context.Background(), memory.New(), find(t, Options{Root: dir}), BuildOptions{})
	if err != nil || len(res.Config.Skills) != 1 || res.Config.Skills[0].Name != "doc" {
		t.Errorf("the skills not left out: %v", err)
	}
	filetest.Write(t, dir, map[string]string{".staxignore": "/skills/\n"})
	_, err = Build(context.Background(), memory.New(), find(t, Options{Root: dir}), BuildOptions{})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "leaves out every skill") {
		t.Errorf("every skill left out: %v", err)
	}
}

// A stax.yaml package whose skills directory is a link out of the
// checkout is refused.
func TestProjectSkillsLinkedOut(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	filetest.Write(t, outside, map[string]string{"s/SKILL.md": "---\nname: s\ndescription: Use when testing.\n---\n"})
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{"stax.yaml": "name: team\nversion: 1.0.0\nskills: src\n"})
	if err := os.Symlink(outside, filepath.Join(dir, "src")); err != nil {
		t.Fatal(err)
	}
	if src, err := Find(Options{Root: dir}); errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "leads out of the repository") {
		t.Errorf("skills linked out: %v", err)
		if src != nil {
			t.Errorf("found %v", names(src.Skills))
		}
	}
}

// Strict refuses someone else's skill for every content rule it breaks,
// as the lenient build warns of them: a name that differs from its
// folder and an unknown field too, not only the rules stax pack refuses
// by default; the advice to the author refuses nothing.
func TestStrictRefusesEveryContentRule(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		"skills/folder/SKILL.md": "---\nname: other\ndescription: Helps.\nx-team: blue\n---\nbody\n",
		"skills/fine/SKILL.md":   "---\nname: fine\ndescription: Helps.\n---\nbody\n",
		"skills/fine/scripts/x":  "never cited",
	})
	_, err := Build(context.Background(), memory.New(), find(t, Options{Root: dir}), BuildOptions{Strict: true})
	if errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "[name-mismatch]") || !strings.Contains(err.Error(), "[unknown-field]") {
		t.Errorf("strict build of a name mismatch and an unknown field: %v", err)
	}
	if err != nil && (strings.Contains(err.Error(), "[file-not-cited]") || strings.Contains(err.Error(), "[description-no-trigger]")) {
		t.Errorf("strict build refused for advice to the author: %v", err)
	}
	src := find(t, Options{Root: dir})
	if err := src.Select([]string{"fine"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), memory.New(), src, BuildOptions{Strict: true}); err != nil {
		t.Errorf("strict build of a skill that breaks no content rule: %v", err)
	}
}

// A skill a plugin lists twice (in its marketplace entry and its
// plugin.json, say) is one skill; two skills of one name are refused.
func TestPluginListingASkillTwice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		".claude-plugin/marketplace.json": `{"name":"m","plugins":[{"name":"p","source":"./p","skills":["./skills/s","./skills"]},{"name":"q","source":"./p","skills":["./skills/s","./other/s"]}]}`,
		"p/.claude-plugin/plugin.json":    `{"name":"p","skills":"./skills/s/"}`,
		"p/skills/s/SKILL.md":             "---\nname: s\ndescription: Use when testing.\n---\n",
		"p/other/s/SKILL.md":              "---\nname: s\ndescription: Use when testing.\n---\n",
	})
	if src, err := Find(Options{Root: dir, Plugin: "p"}); err != nil || !slices.Equal(names(src.Skills), []string{"s=p/skills/s"}) {
		t.Errorf("a skill listed twice: %v", err)
	}
	if _, err := Find(Options{Root: dir, Plugin: "q"}); errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "two skills are named s") {
		t.Errorf("two skills of one name: %v", err)
	}
}

// A stax.yaml package that declares a package directory out of the
// checkout is refused before anything builds it: a resolver would read
// that directory of the user's machine into the package.
func TestProjectPackageDirectoryOutOfTheCheckout(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	filetest.Write(t, outside, map[string]string{"skills/secret/SKILL.md": "---\nname: secret\ndescription: Use when testing.\n---\n"})
	for name, decl := range map[string]string{
		"absolute": outside,
		"parent":   "../../../../../../../../.." + outside,
		"link":     "./shared",
	} {
		dir := t.TempDir()
		filetest.Write(t, dir, map[string]string{
			"stax.yaml":         "name: team\nversion: 1.0.0\npackages:\n  - " + decl + "\n",
			"skills/s/SKILL.md": "---\nname: s\ndescription: Use when testing.\n---\n",
		})
		if err := os.Symlink(outside, filepath.Join(dir, "shared")); err != nil {
			t.Fatal(err)
		}
		if _, err := Find(Options{Root: dir}); errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "packages") {
			t.Errorf("%s: %v", name, err)
		}
	}
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		"stax.yaml":                "name: team\nversion: 1.0.0\npackages:\n  - ./shared\n  - ghcr.io/acme/tools:1.0.0\n",
		"skills/s/SKILL.md":        "---\nname: s\ndescription: Use when testing.\n---\n",
		"shared/skills/t/SKILL.md": "---\nname: t\ndescription: Use when testing.\n---\n",
	})
	if _, err := Find(Options{Root: dir}); err != nil {
		t.Errorf("a package directory in the checkout: %v", err)
	}
}

// A key Go's decoder would take for a field in another letter case, but
// the tools the format is written for read as another key, is refused:
// the plugin stax installs is the one a reviewer reads.
func TestKeysInAnotherCaseRefused(t *testing.T) {
	t.Parallel()
	for name, market := range map[string]string{
		"Source":     `{"name":"m","plugins":[{"name":"p","source":"./p","Source":"./q"}]}`,
		"long s":     `{"name":"m","plugins":[{"name":"p","source":"./p","ſource":"./q"}]}`,
		"PLUGINS":    `{"name":"m","plugins":[{"name":"p","source":"./p"}],"PLUGINS":[{"name":"p","source":"./q"}]}`,
		"nested":     `{"name":"m","plugins":[{"name":"p","source":{"source":"github","repo":"a/b","Repo":"c/d"}}]}`,
		"pluginRoot": `{"name":"m","metadata":{"PluginRoot":"q"},"plugins":[{"name":"p","source":"p"}]}`,
	} {
		dir := t.TempDir()
		filetest.Write(t, dir, map[string]string{
			".claude-plugin/marketplace.json": market,
			"p/skills/s/SKILL.md":             "---\nname: s\ndescription: Use when testing.\n---\n",
			"q/skills/evil/SKILL.md":          "---\nname: evil\ndescription: Use when testing.\n---\n",
		})
		if src, err := Find(Options{Root: dir, Plugin: "p"}); errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "letter case") {
			t.Errorf("%s: %v", name, err)
			if src != nil {
				t.Errorf("%s: took %v", name, names(src.Skills))
			}
		}
	}
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		".claude-plugin/marketplace.json": `{"name":"m","owner":{"Name":"x"},"plugins":[{"name":"p","source":"./p","Category":"x"}]}`,
		"p/skills/s/SKILL.md":             "---\nname: s\ndescription: Use when testing.\n---\n",
	})
	if _, err := Find(Options{Root: dir, Plugin: "p"}); err != nil {
		t.Errorf("keys stax does not read, in any case: %v", err)
	}
}

// A message lists a bounded number of a marketplace's plugins, so that
// one of thousands does not fill the terminal; the nearest is named.
func TestListsInMessagesAreBounded(t *testing.T) {
	t.Parallel()
	var entries []string
	for i := range 5000 {
		entries = append(entries, fmt.Sprintf(`{"name":"plugin-%04d","source":"./p"}`, i))
	}
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{".claude-plugin/marketplace.json": `{"name":"m","plugins":[` + strings.Join(entries, ",") + `]}`})
	_, err := Find(Options{Root: dir, Plugin: "plugin-4999x"})
	if err == nil || len(err.Error()) > 1000 || !strings.Contains(err.Error(), `did you mean "plugin-4999"`) || !strings.Contains(err.Error(), "and 4980 more") {
		t.Errorf("unknown plugin among 5000: %.300v (%d bytes)", err, len(fmt.Sprint(err)))
	}
	_, err = Find(Options{Root: dir})
	if err == nil || len(err.Error()) > 1000 || !strings.Contains(err.Error(), "and 4980 more") {
		t.Errorf("choose among 5000: %.300v (%d bytes)", err, len(fmt.Sprint(err)))
	}
}

// A marketplace file that cannot be read refuses only the plugins that
// could be in it: one of another, readable marketplace is found.
func TestBrokenMarketplaceRefusesOnlyItsOwn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		".claude-plugin/marketplace.json":  `{"name":"m","plugins":[{"name":"p","source":"./p"}]}`,
		".agents/plugins/marketplace.json": `{"plugins": [`,
		"p/skills/s/SKILL.md":              "---\nname: s\ndescription: Use when testing.\n---\n",
	})
	if src, err := Find(Options{Root: dir, Plugin: "p"}); err != nil || len(src.Skills) != 1 {
		t.Errorf("plugin of the readable marketplace: %v", err)
	}
	if _, err := Find(Options{Root: dir, Plugin: "q"}); errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), ".agents/plugins/marketplace.json") {
		t.Errorf("a plugin that may be in the broken marketplace: %v", err)
	}
}

// A skill folder whose name breaks the name rule is refused in a message
// that quotes it, so that its line feed forges no line.
func TestUnsafeSkillFolderNameQuoted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{"skills/x\nError: forged/SKILL.md": "---\nname: x\ndescription: Use when testing.\n---\n"})
	if _, err := Find(Options{Root: dir}); errdefs.Of(err) != errdefs.InvalidArgument || strings.Contains(err.Error(), "\n") {
		t.Errorf("unsafe skill folder name: %q", err)
	}
}

// A plugin is not taken by a marketplace name that breaks the name rule:
// stax.lock would record NAME@MARKETPLACE, and a name stax reads nowhere
// else as safe is not written down.
func TestPluginOfUnsafeMarketplaceRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	filetest.Write(t, dir, map[string]string{
		".claude-plugin/marketplace.json": `{"name":"../m","plugins":[{"name":"p","source":"./p"}]}`,
		"p/skills/s/SKILL.md":             "---\nname: s\ndescription: Use when testing.\n---\n",
	})
	if _, err := Find(Options{Root: dir, Plugin: "p"}); err != nil {
		t.Fatalf("Find by the plugin's name alone: %v", err)
	}
	_, err := Find(Options{Root: dir, Plugin: "p@../m"})
	if err == nil || errdefs.Of(err) != errdefs.InvalidArgument || !strings.Contains(err.Error(), "../m") {
		t.Errorf("Find(p@../m) = %v, want it refused naming the marketplace", err)
	}
}
