package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/staxyaml"
)

// checkConsumerYAML fails unless dir holds a stax.yaml with an install
// section and none of a package's fields, and no skills directory.
func checkConsumerYAML(t *testing.T, dir string) *staxyaml.Definition {
	t.Helper()
	def, err := staxyaml.LoadDir(dir)
	if err != nil || def == nil {
		t.Fatalf("stax.yaml: %v %v", def, err)
	}
	if def.Name != "" || def.Version != "" || def.Skills != "" || def.Install == nil {
		t.Errorf("a consumer's stax.yaml has a package's fields: %+v", def)
	}
	data, _ := os.ReadFile(filepath.Join(dir, staxyaml.FileName))
	for _, field := range []string{"name:", "version:", "skills:"} {
		if strings.Contains(string(data), "\n"+field) || strings.HasPrefix(string(data), field) {
			t.Errorf("stax.yaml holds %s:\n%s", field, data)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "skills")); !os.IsNotExist(err) {
		t.Errorf("a consumer got a skills directory (%v)", err)
	}
	return def
}

// stax init --consumer writes only an install: section; stax add fills
// it, and stax add alone, with no stax.yaml, writes the same kind of file.
func TestInitConsumerWritesNoPackageFields(t *testing.T) {
	t.Parallel()
	useHome(t)
	reg := registrytest.New(t)
	ref := reg.Host + "/acme/alpha:1.0.0"
	pushSkillVersion(t, ref, "alpha", "1.0.0")

	dir := t.TempDir()
	if r := runStax(t, "init", dir, "--consumer"); r.Code != 0 {
		t.Fatalf("init --consumer: exit %d\n%s", r.Code, r.Stderr)
	}
	checkConsumerYAML(t, dir)
	if r := runStax(t, "add", ref, "--dir", dir, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add after init --consumer: exit %d\n%s", r.Code, r.Stderr)
	}
	if def := checkConsumerYAML(t, dir); len(def.Install.Sources) != 1 {
		t.Errorf("sources after add: %+v", def.Install.Sources)
	}

	bare := t.TempDir()
	if r := runStax(t, "add", ref, "--dir", bare, "--runtime", "claude-code"); r.Code != 0 {
		t.Fatalf("add with no stax.yaml: exit %d\n%s", r.Code, r.Stderr)
	}
	if def := checkConsumerYAML(t, bare); len(def.Install.Sources) != 1 {
		t.Errorf("sources after add: %+v", def.Install.Sources)
	}
	if _, err := os.Stat(filepath.Join(bare, ".claude", "skills", "alpha", "SKILL.md")); err != nil {
		t.Errorf("add alone did not install: %v", err)
	}
}

// stax init with neither --consumer nor --package asks at a terminal;
// without one it writes a package definition, as it always did. A
// package flag means a package; --consumer with one is a usage error.
func TestInitAsksConsumerOrPackage(t *testing.T) {
	t.Parallel()
	const question = "Does this project publish its own skills as a package (package), or only install packages (consumer)? [package/consumer, default package]: "
	consumer := t.TempDir()
	terminal := &scriptedTerminal{answers: map[string]string{question: "consumer"}}
	if r := runStaxWith(t, &IOStreams{In: strings.NewReader(""), Prompter: terminal}, "init", consumer); r.Code != 0 {
		t.Fatalf("init at a terminal: exit %d\n%s", r.Code, r.Stderr)
	}
	if len(terminal.asked) != 1 {
		t.Errorf("asked %q, want the one question", terminal.asked)
	}
	checkConsumerYAML(t, consumer)

	// A package flag says what the project is; a script (--output json)
	// is not asked, even from a terminal; nor is anyone without one.
	for _, args := range [][]string{{"--package"}, {"--name", "team"}, {"--output", "json"}, {}} {
		dir := t.TempDir()
		terminal := &scriptedTerminal{answers: map[string]string{question: "consumer"}}
		streams := &IOStreams{In: strings.NewReader(""), Prompter: terminal}
		if len(args) == 0 {
			streams.Prompter = nil // no terminal
		}
		if r := runStaxWith(t, streams, append([]string{"init", dir}, args...)...); r.Code != 0 {
			t.Fatalf("init %v: exit %d\n%s", args, r.Code, r.Stderr)
		}
		if len(terminal.asked) != 0 {
			t.Errorf("init %v asked %q", args, terminal.asked)
		}
		if def, err := staxyaml.LoadDir(dir); err != nil || def == nil || def.Version == "" {
			t.Errorf("init %v: %+v %v, want a package definition", args, def, err)
		}
	}

	r := runStax(t, "init", t.TempDir(), "--consumer", "--version", "1.0.0")
	if r.Code != 1 || !strings.Contains(r.Stderr, "--consumer") {
		t.Errorf("--consumer with --version: exit %d %s, want 1", r.Code, r.Stderr)
	}
	r = runStax(t, "init", t.TempDir(), "--consumer", "--package")
	if r.Code != 1 {
		t.Errorf("--consumer with --package: exit %d %s, want 1", r.Code, r.Stderr)
	}
}

// A command that works from install.sources, run where there is no
// stax.yaml (the wrong directory, or before stax add), says that there is
// none, where it looked, and the way on, not that stax.yaml lists no
// sources; nothing is written.
func TestCommandsSayThereIsNoStaxYaml(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := t.TempDir()
	for _, args := range [][]string{{"install"}, {"outdated"}, {"update"}, {"remove", "ghcr.io/acme/tools"}} {
		r := runStax(t, append(args, "--dir", dir)...)
		want := "no stax.yaml in " + dir
		if r.Code != 1 || !strings.Contains(r.Stderr, want) || !strings.Contains(r.Stderr, "--dir") {
			t.Errorf("%v: exit %d, want 1 saying %q and naming --dir\n%s", args, r.Code, want, r.Stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the commands wrote %v", entries)
	}
}

// stax init --consumer --output json says what it wrote: an install
// section, without the name and version a package has and the file lacks.
func TestInitConsumerJSONIsTheFileWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runStax(t, "init", dir, "--consumer", "--output", "json")
	if r.Code != 0 {
		t.Fatalf("init --consumer: exit %d %s", r.Code, r.Stderr)
	}
	checkConsumerYAML(t, dir)
	var out struct {
		Definition map[string]any `json:"definition"`
	}
	decodeJSON(t, r.Stdout, &out)
	for _, key := range []string{"name", "version"} {
		if _, ok := out.Definition[key]; ok {
			t.Errorf("the JSON of a consumer's stax.yaml has %q, which the file does not: %v", key, out.Definition)
		}
	}
	install, _ := out.Definition["install"].(map[string]any)
	if runtimes, ok := install["runtimes"]; install == nil || ok && runtimes == nil {
		t.Errorf("the JSON's install section is %v, want one without runtimes: null, which the file does not say", out.Definition["install"])
	}
}

// Packing a project whose stax.yaml has no name or version says to set
// them in it: stax init, which the notice named, refuses an existing
// stax.yaml, and with the --force it then asks for, replaces it whole,
// install section and all. A directory without stax.yaml is still told
// stax init.
func TestPackNoticeOfAProjectSaysToEditStaxYaml(t *testing.T) {
	t.Parallel()
	useHome(t)
	proj := t.TempDir()
	filetest.WriteFile(t, filepath.Join(proj, "stax.yaml"), "install:\n  sources: [ghcr.io/acme/org-skills:2.0.0]\n")
	writeSkillFiles(t, filepath.Join(proj, "skills"), map[string]string{"a/SKILL.md": skillMD("a", "a")})
	r := runStax(t, "pack", proj)
	if r.Code != 0 || strings.Contains(r.Stderr, "stax init") || !strings.Contains(r.Stderr, "add name: to "+filepath.Join(proj, "stax.yaml")) {
		t.Errorf("pack of a project without a name: exit %d, want a notice to add name: to its stax.yaml, not stax init\n%s", r.Code, r.Stderr)
	}
	bare := filepath.Join(t.TempDir(), "skills")
	writeSkillFiles(t, bare, map[string]string{"a/SKILL.md": skillMD("a", "a")})
	if r := runStax(t, "pack", bare); r.Code != 0 || !strings.Contains(r.Stderr, "stax init") {
		t.Errorf("pack of a bare skills directory: exit %d, want the notice to name stax init\n%s", r.Code, r.Stderr)
	}
}
