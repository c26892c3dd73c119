package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/render"
	"github.com/stax-dev/stax/pkg/skill"
	"github.com/stax-dev/stax/pkg/stateful"
)

// wideSkillMD has a frontmatter just over skill.MaxFrontmatterSize.
func wideSkillMD(name string) string {
	return "---\nname: " + name + "\ndescription: A wide skill. Use when testing.\nnotes: |\n" +
		strings.Repeat("  "+strings.Repeat("x", 61)+"\n", skill.MaxFrontmatterSize/64+1) + "---\nbody\n"
}

// limitLine is the line of doc on which its frontmatter, which starts on
// line 2, passes skill.MaxFrontmatterSize.
func limitLine(doc string) string {
	size := 0
	for i, l := range strings.SplitAfter(doc, "\n")[1:] {
		if size += len(l); size > skill.MaxFrontmatterSize {
			return fmt.Sprint(i + 2)
		}
	}
	return "none"
}

// A SKILL.md over the frontmatter limit is refused the same way by every
// command: validate and pack (exit 1), list (not loadable), render (exit
// 1), and install of a package that carries one (exit 5).
func TestSkillMDLimitsAreShared(t *testing.T) {
	t.Parallel()
	useHome(t)
	line := limitLine(wideSkillMD("wide"))

	src := t.TempDir()
	filetest.WriteFile(t, filepath.Join(src, "stax.yaml"), "name: wide\nversion: 1.0.0\n")
	filetest.WriteFile(t, filepath.Join(src, "skills", "wide", skill.FileName), wideSkillMD("wide"))
	if r := runStax(t, "validate", src); r.Code != 1 || !strings.Contains(r.Stdout+r.Stderr, "SKILL.md:"+line) || !strings.Contains(r.Stdout+r.Stderr, "frontmatter-too-large") {
		t.Errorf("validate: exit %d, want 1 with frontmatter-too-large on line %s:\n%s%s", r.Code, line, r.Stdout, r.Stderr)
	}
	if r := runStax(t, "pack", src); r.Code != 1 || !strings.Contains(r.Stderr, "frontmatter-too-large") {
		t.Errorf("pack: exit %d, want 1:\n%s", r.Code, r.Stderr)
	}

	h := newHostileProject(t)
	installed := filepath.Join(h.skills, "wide")
	filetest.WriteFile(t, filepath.Join(installed, skill.FileName), wideSkillMD("wide"))
	r := runStax(t, "list", "--dir", h.project)
	if r.Code != 0 || !strings.Contains(r.Stderr, installed+": SKILL.md is over a limit: line "+line) {
		t.Errorf("list: exit %d, want the skill not loadable:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runStax(t, "render", installed); r.Code != 1 || !strings.Contains(r.Stderr, "passes the limit") {
		t.Errorf("render: exit %d, want 1:\n%s", r.Code, r.Stderr)
	}

	// A package that carries such a SKILL.md, as another writer could
	// push it.
	ref := pushUnvalidatedSkill(t, filepath.Join(src, "skills"), "wide")
	h = newHostileProject(t)
	before := treeState(t, h.skills)
	r = runStax(t, "install", ref+":1", "--dir", h.project)
	if r.Code != 5 || !strings.Contains(r.Stderr, "wide/SKILL.md: line "+line) {
		t.Errorf("install: exit %d, want 5 naming the skill and line %s:\n%s", r.Code, line, r.Stderr)
	}
	if got := treeState(t, h.skills); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("a refused install changed the folder: %v", got)
	}
}

// A skill that substitution would grow past render.MaxSize is refused
// (exit 1) before its text is built, budget or not.
func TestRenderRefusesOversizeOutput(t *testing.T) {
	t.Parallel()
	useHome(t)
	dir := filepath.Join(t.TempDir(), "amp")
	filetest.WriteFile(t, filepath.Join(dir, skill.FileName),
		"---\nname: amp\ndescription: Repeats. Use when testing.\n---\n"+strings.Repeat("$ARGUMENTS\n", 1000))
	arg := strings.Repeat("a", render.MaxSize/1000+1)
	for _, budget := range []string{"0", "100"} {
		r := runStax(t, "render", dir, "--budget", budget, "--", arg)
		if r.Code != 1 || !strings.Contains(r.Stderr, "the rendered skill would exceed 33554432 bytes") || len(r.Stdout) > 0 {
			t.Errorf("--budget %s: exit %d, want 1 and the refusal:\n%.500s", budget, r.Code, r.Stderr)
		}
	}
}

// A stateful file over stateful.MaxFileSize, the most render and the MCP
// server read of one, is refused by every command: pack refuses to build
// it (exit 1); from a package another writer pushed, render refuses it
// naming the file (exit 1) without reading it whole, and install refuses
// the package (exit 5).
func TestStatefulFileLimitsAreShared(t *testing.T) {
	t.Parallel()
	useHome(t)
	src := t.TempDir()
	filetest.WriteFile(t, filepath.Join(src, "stax.yaml"), "name: big-calibration\nversion: 1.0.0\n")
	filetest.WriteFile(t, filepath.Join(src, "skills", "big", skill.FileName), "---\nname: big\ndescription: Big. Use when testing.\n---\nbody\n")
	filetest.WriteFile(t, filepath.Join(src, "skills", "big", "CALIBRATION.md"), strings.Repeat("x\n", stateful.MaxFileSize/2+1))
	if r := runStax(t, "pack", src); r.Code != 1 || !strings.Contains(r.Stderr, "stateful-file-too-large") {
		t.Fatalf("pack: exit %d, want 1 with stateful-file-too-large:\n%s", r.Code, r.Stderr)
	}

	ref := pushUnvalidatedSkill(t, filepath.Join(src, "skills"), "big")

	if r := runStax(t, "pull", ref+":1"); r.Code != 0 {
		t.Fatalf("pull: exit %d\n%s", r.Code, r.Stderr)
	}
	r := runStax(t, "render", ref+":1#big")
	if r.Code != 1 || !strings.Contains(r.Stderr, "big/CALIBRATION.md is too large") {
		t.Errorf("render: exit %d, want 1 naming the file:\n%s", r.Code, r.Stderr)
	}
	h := newHostileProject(t)
	before := treeState(t, h.skills)
	r = runStax(t, "install", ref+":1", "--dir", h.project)
	if r.Code != 5 || !strings.Contains(r.Stderr, "CALIBRATION.md is over the limit") {
		t.Errorf("install: exit %d, want 5 naming the file:\n%s", r.Code, r.Stderr)
	}
	if got := treeState(t, h.skills); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("a refused install changed the folder: %v", got)
	}
}

// pushUnvalidatedSkill packs the skill name of the skills directory dir
// without validating it, as another writer could, and pushes it as tag 1
// of a package of that name in a new registry: it returns the package's
// reference without its tag.
func pushUnvalidatedSkill(t *testing.T, dir, name string) string {
	t.Helper()
	reg := registrytest.New(t)
	pushExamples(t, reg.Host+"/acme/skills:1.0.0") // the repository pushRawPackage mounts from
	tree, err := layers.Scan(layers.ScanOptions{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	var layer bytes.Buffer
	res, err := layers.Write(&layer, tree, layers.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	desc := content.NewDescriptorFromBytes(layers.MediaTypeSkills, layer.Bytes())
	if err := testRepository(t, reg.Host+"/acme/skills").Push(context.Background(), desc, bytes.NewReader(layer.Bytes())); err != nil {
		t.Fatal(err)
	}
	cfg := []byte(`{"adapter":{},"kind":"package","name":"` + name + `","skills":[{"description":"x","digest":"` +
		layers.SkillDigests(res.Files)[name].String() + `","name":"` + name + `","path":"` + name + `"}],"specVersion":"1.0.0","version":"1"}`)
	ref := reg.Host + "/evil/" + name
	pushRawPackage(t, ref, "1", cfg, desc)
	return ref
}
