package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/gittest"
	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/lock"
)

// concurrentDeadline bounds each round of commands run at once: it fails
// a test only when they hang.
const concurrentDeadline = 2 * time.Minute

// staxProcs runs each of cmds as a stax process of its own (this test
// binary, see runAsStaxEnv), all at once, in the environment env, and
// fails the test, naming each, when one does not exit 0 or when they do
// not all end within concurrentDeadline.
func staxProcs(t *testing.T, env []string, cmds [][]string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), concurrentDeadline)
	defer cancel()
	errs := make([]error, len(cmds))
	var wg sync.WaitGroup
	for i, args := range cmds {
		wg.Go(func() {
			cmd := exec.CommandContext(ctx, self, args...)
			cmd.Env = append(append(os.Environ(), runAsStaxEnv+"=1"), env...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				if ctx.Err() != nil {
					err = fmt.Errorf("still running after %s (a deadlock?): %w", concurrentDeadline, err)
				}
				errs[i] = fmt.Errorf("stax %s: %w\n%s", strings.Join(args, " "), err, out.String())
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// concurrentEnv is the environment of processes sharing one store: the
// test's $STAX_HOME, a $HOME of its own for user-scope folders.
func concurrentEnv(t *testing.T) (env []string, home string) {
	t.Helper()
	home = t.TempDir()
	return []string{"STAX_HOME=" + useHome(t), "HOME=" + home}, home
}

// checkSources fails t for each of repos that stax.yaml, stax.lock or
// the folder (the skill named after the repository's last element) of
// the project in dir lacks.
func checkSources(t *testing.T, dir, folder string, repos []string) {
	t.Helper()
	yaml := readFile(t, filepath.Join(dir, "stax.yaml"))
	l, err := lock.Read(filepath.Join(dir, lock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	locked := map[string]bool{}
	for _, p := range l.Packages {
		locked[repositoryOf(p.Ref)] = true
	}
	for _, repo := range repos {
		if !strings.Contains(yaml, repo) {
			t.Errorf("stax.yaml lost %s:\n%s", repo, yaml)
		}
		if !locked[repo] {
			t.Errorf("stax.lock lost %s: %v", repo, locked)
		}
		skill := filepath.Base(repo)
		if _, err := os.Stat(filepath.Join(folder, skill, "SKILL.md")); err != nil {
			t.Errorf("the runtime folder lost %s: %v", skill, err)
		}
	}
}

// repositoryOf is ref without its tag.
func repositoryOf(ref string) string {
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[:i]
	}
	return ref
}

// publishSkills pushes n packages, acme/s0 … acme/s{n-1}, each of one
// skill named after it, at 1.0.0, and returns their references.
func publishSkills(t *testing.T, reg *registrytest.Registry, n int) []string {
	t.Helper()
	refs := make([]string, n)
	for i := range refs {
		refs[i] = fmt.Sprintf("%s/acme/s%d", reg.Host, i)
		pushSkillVersion(t, refs[i]+":1.0.0", fmt.Sprintf("s%d", i), "1.0.0")
	}
	return refs
}

// Installs of different packages into one project at once, as two
// terminals or parallel CI steps run them, all finish, and each one's
// source ends up in stax.yaml, stax.lock and the folder: none waits
// forever on a lock another holds while it waits on one of its, and none
// writes stax.yaml from a copy read before another's install.
func TestConcurrentInstallsKeepEverySource(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	refs := publishSkills(t, reg, 3)
	env, _ := concurrentEnv(t)
	for round := range 4 {
		proj := t.TempDir()
		var cmds [][]string
		for _, ref := range refs {
			cmds = append(cmds, []string{"install", ref + ":1.0.0", "--dir", proj, "--runtime", "claude-code"})
		}
		staxProcs(t, env, cmds)
		t.Logf("round %d done", round)
		checkSources(t, proj, filepath.Join(proj, ".claude", "skills"), refs)
	}
}

// The same in user scope: projects installing at once into the user's
// folders, through the one stax.yaml under $STAX_HOME.
func TestConcurrentUserScopeInstallsKeepEverySource(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	refs := publishSkills(t, reg, 3)
	env, userHome := concurrentEnv(t)
	var cmds [][]string
	for _, ref := range refs {
		cmds = append(cmds, []string{"install", ref + ":1.0.0", "--scope", "user", "--dir", t.TempDir()})
	}
	staxProcs(t, env, cmds)
	home := strings.TrimPrefix(env[0], "STAX_HOME=")
	checkSources(t, filepath.Join(home, "user", "claude-skills"), filepath.Join(userHome, ".claude", "skills"), refs)
}

// Installs, adds, an update and pushes at once on one project and one
// store: every command finishes, and every source ends up in stax.yaml,
// stax.lock and the folder.
func TestConcurrentCommandsOnOneProject(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	refs := publishSkills(t, reg, 4)
	env, _ := concurrentEnv(t)
	next := t.TempDir()
	filetest.Write(t, next, map[string]string{
		"stax.yaml":          "name: s3-pkg\nversion: 1.1.0\n",
		"skills/s3/SKILL.md": "---\nname: s3\ndescription: Says its version. Use when testing ranges.\nversion: 1.0.0\n---\nThis is s3 1.1.0.\n",
	})
	for round := range 3 {
		proj := t.TempDir()
		staxProcs(t, env, [][]string{{"add", refs[3], "--version", "^1.0.0", "--dir", proj, "--runtime", "claude-code"}})
		staxProcs(t, env, [][]string{
			{"install", refs[0] + ":1.0.0", "--dir", proj, "--runtime", "claude-code"},
			{"add", refs[1] + ":1.0.0", "--dir", proj, "--runtime", "claude-code"},
			{"install", refs[2] + ":1.0.0", "--dir", proj, "--runtime", "claude-code"},
			{"update", refs[3], "--dir", proj, "--runtime", "claude-code"},
			{"push", next, fmt.Sprintf("%s:1.1.%d", refs[3], round)},
		})
		checkSources(t, proj, filepath.Join(proj, ".claude", "skills"), refs)
	}
}

// Installs of git sources of one repository into one project at once
// keep every source: each waits for the project, and for the
// repository's cache while another fetches into it.
func TestConcurrentGitInstallsKeepEverySource(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	srv := gittest.NewServer(t)
	repo := srv.NewRepo(t, "skills")
	files := map[string]string{}
	var sources []string
	for i := range 3 {
		name := fmt.Sprintf("s%d", i)
		files["skills/"+name+"/SKILL.md"] = "---\nname: " + name + "\ndescription: Skill " + name + ". Use when testing.\n---\nbody\n"
		sources = append(sources, "git+"+repo.URL+"//skills/"+name)
	}
	repo.Write(files)
	repo.Commit("skills")
	repo.Tag("v1.0.0", "")
	env, _ := concurrentEnv(t)
	for round := range 3 {
		proj := t.TempDir()
		var cmds [][]string
		for _, s := range sources {
			cmds = append(cmds, []string{"install", s, "--dir", proj, "--runtime", "claude-code"})
		}
		staxProcs(t, env, cmds)
		t.Logf("round %d done", round)
		checkSources(t, proj, filepath.Join(proj, ".claude", "skills"), sources)
	}
	home := strings.TrimPrefix(env[0], "STAX_HOME=")
	for _, pattern := range []string{"git/.stax-git-*", "git/*/.stax-git-*", "git/*/objects/incoming-*", "git/*/objects/pack/tmp_*", "git/*/*.lock"} {
		if left, _ := filepath.Glob(filepath.Join(home, pattern)); len(left) > 0 {
			t.Errorf("the git cache keeps %v", left)
		}
	}
}
