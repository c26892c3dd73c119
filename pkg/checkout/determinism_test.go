package checkout

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"oras.land/oras-go/v2/content/memory"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/pack"
	"github.com/stax-dev/stax/pkg/staxyaml"
)

// chmodTree sets every directory of dir to dirMode and every file to
// fileMode, keeping a file's executable bits as exec says, and every time
// to when: the checkout of another machine, umask and clock.
func chmodTree(t *testing.T, dir string, dirMode, fileMode os.FileMode, exec map[string]bool, when time.Time) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			return err
		}
		mode := fileMode
		if fi.IsDir() {
			mode = dirMode
		} else if rel, _ := filepath.Rel(dir, p); exec[filepath.ToSlash(rel)] {
			mode |= 0o100
		}
		if err := os.Chmod(p, mode); err != nil {
			return err
		}
		return os.Chtimes(p, when, when)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A plugin's skills laid out at several depths, with an executable, links
// flattened from inside and outside the skill and the repository's
// .staxignore, are the layer stax pack writes of a skills directory
// holding the same files, whatever the modes and times of either tree.
func TestBuildIsWhatPackBuildsInEveryLayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const skillA = "---\nname: a\ndescription: Use when testing.\n---\nSee README.md, scripts/run.sh and lib/x.txt.\n"
	const skillB = "---\nname: b\ndescription: Use when testing.\n---\nbody\n"
	repo := t.TempDir()
	filetest.Write(t, repo, map[string]string{
		".claude-plugin/marketplace.json":   `{"name":"m","plugins":[{"name":"p","source":"./plugins/p","skills":["./skills/a","./deep/er"]}]}`,
		".staxignore":                       "*.log\n",
		"plugins/p/skills/a/SKILL.md":       skillA,
		"plugins/p/skills/a/scripts/run.sh": "#!/bin/sh\necho run\n",
		"plugins/p/skills/a/debug.log":      "left out",
		"plugins/p/deep/er/b/SKILL.md":      skillB,
		"shared/lib/x.txt":                  "shared",
	})
	for link, target := range map[string]string{
		"plugins/p/skills/a/README.md": "SKILL.md",
		"plugins/p/skills/a/lib":       "../../../../shared/lib",
	} {
		if err := os.Symlink(target, filepath.Join(repo, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	chmodTree(t, repo, 0o700, 0o600, map[string]bool{"plugins/p/skills/a/scripts/run.sh": true}, time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC))

	skillsDir := t.TempDir()
	filetest.Write(t, skillsDir, map[string]string{
		"a/SKILL.md":       skillA,
		"a/README.md":      skillA,
		"a/scripts/run.sh": "#!/bin/sh\necho run\n",
		"a/lib/x.txt":      "shared",
		"b/SKILL.md":       skillB,
	})
	chmodTree(t, skillsDir, 0o755, 0o644, map[string]bool{"a/scripts/run.sh": true}, time.Now())
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

	src := find(t, Options{Root: repo, Plugin: "p"})
	store := memory.New()
	res, err := Build(ctx, store, src, BuildOptions{Symlinks: layers.SymlinkFlatten})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := skillsLayer(t, store, res.Result); got.Digest != want.Digest {
		t.Errorf("plugin skills layer %s, stax pack's %s", got.Digest, want.Digest)
	}
}
