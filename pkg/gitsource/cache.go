package gitsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/stax-dev/stax/internal/filelock"
	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/errdefs"
	"github.com/stax-dev/stax/pkg/scratch"
	"github.com/stax-dev/stax/pkg/termtext"
)

// CacheDir is the directory of $STAX_HOME holding the git cache.
const CacheDir = "git"

// Cache is where stax keeps what it fetched of git repositories: one bare
// repository per repository URL (credentials left out), holding only the
// commits fetched and, of each, the blobs under the SUBDIRs asked for.
// It runs the user's git.
type Cache struct {
	// Dir holds the cache's repositories: $STAX_HOME/git.
	Dir string
	// LockDir holds the lock of each repository: $STAX_HOME/locks.
	LockDir string
	// Notes is where a wait for another stax is said; nil says nothing.
	Notes io.Writer
	// Env is the environment git runs in; nil is this process's.
	Env []string
	// Git is the git to run; empty looks it up on PATH.
	Git string
	// Limits bound the tree taken from a commit, as they bound a skills
	// layer. Zero, and unlike a layer negative too, is the default: what
	// a git server sends is never read without a bound.
	layers.Limits

	outputLimit int // maxOutput when zero; set by tests

	lookOnce sync.Once
	git      string
	lookErr  error
}

// NewCache is the cache in the stax home directory home (store.Home).
func NewCache(home string) *Cache {
	return &Cache{Dir: filepath.Join(home, CacheDir), LockDir: filepath.Join(home, "locks")}
}

func (c *Cache) maxSize() int64 {
	if c.MaxSize <= 0 {
		return layers.DefaultMaxSize
	}
	return c.MaxSize
}

func (c *Cache) maxFiles() int {
	if c.MaxFiles <= 0 {
		return layers.DefaultMaxFiles
	}
	return c.MaxFiles
}

// workDir is the cache's directory, made, where git runs.
func (c *Cache) workDir() (string, error) {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return "", errdefs.MarkLocal(fmt.Errorf("create the git cache %s: %w", c.Dir, err))
	}
	return c.Dir, nil
}

// repoKey names the cache's repository of the repository URL url (see
// Reference.Repository): its directory and its lock.
func repoKey(url string) string {
	return digest.FromString(url).Encoded()[:32]
}

// repoDir is the bare repository caching r's repository.
func (c *Cache) repoDir(r Reference) string {
	return filepath.Join(c.Dir, repoKey(r.Repository())+".git")
}

// lockName is the file of the lock of the cache's repository key.
func lockName(key string) string { return "git-" + key + ".lock" }

// lock takes the lock of r's repository in the cache, which one stax
// holds while it fetches into it or reads it: git's own locks would
// refuse a second fetch rather than wait, and what a killed fetch left
// is cleared under it.
func (c *Cache) lock(ctx context.Context, r Reference) (func(), error) {
	what := "fetching from " + termtext.Escape(r.Display())
	return filelock.Lock(ctx, c.LockDir, lockName(repoKey(r.Repository())), what, filelock.WaitingNote(c.Notes, what))
}

// open takes r's repository's lock and makes its bare repository if it is
// not there, whole (scratch.Stage), with no hooks or other template.
// Whatever a killed git left in it is removed.
func (c *Cache) open(ctx context.Context, r Reference) (dir string, unlock func(), err error) {
	if _, err := c.workDir(); err != nil {
		return "", nil, err
	}
	unlock, err = c.lock(ctx, r)
	if err != nil {
		return "", nil, err
	}
	dir = c.repoDir(r)
	if _, statErr := os.Stat(filepath.Join(dir, "objects")); errors.Is(statErr, os.ErrNotExist) {
		err = scratch.Stage(dir, ".stax-git-", func(tmp string) error {
			_, err := c.run(ctx, command{cwd: c.Dir}, "init", "--quiet", "--bare", "--template=", "--end-of-options", tmp)
			return err
		})
		if err != nil {
			unlock()
			return "", nil, errdefs.MarkLocal(fmt.Errorf("create the git cache of %s: %w", termtext.Escape(r.Display()), err))
		}
	}
	clearLeftovers(dir)
	return dir, unlock, nil
}

// clearLeftovers removes what a git killed while it fetched leaves in a
// repository: its temporary packs, and its locks, which would make every
// later fetch fail. The repository's lock is held: no git is running in
// it.
func clearLeftovers(dir string) {
	for _, pattern := range []string{"objects/pack/tmp_*", "objects/incoming-*", "objects/tmp_*", "*.lock"} {
		matches, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, m := range matches {
			os.RemoveAll(m)
		}
	}
}

// protocols are the transports git may use for r: https, ssh and git,
// and r's own when it is plain http or file.
func (r Reference) protocols() string {
	if r.url != nil && (r.url.Scheme == "http" || r.url.Scheme == "file") {
		return networkProtocols + ":" + r.url.Scheme
	}
	return networkProtocols
}

// secrets are the credentials in r's URL, masked in anything git says,
// as written and decoded: the password, or a token given as the user
// (https://TOKEN@host). An ssh user (git@) is no secret.
func (r Reference) secrets() []string {
	if r.url == nil || r.url.User == nil {
		return nil
	}
	user, encoded, _ := strings.Cut(r.url.User.String(), ":")
	if pw, ok := r.url.User.Password(); ok {
		return []string{pw, encoded}
	}
	if r.url.Scheme == "ssh" {
		return nil
	}
	return []string{r.url.User.Username(), user}
}

// fetch fetches the objects ids from r's repository into the cache at
// dir, under the fetch size limit (see watchPack): with shallow, a commit
// and its trees alone (depth 1, no blobs); without, the blobs named. The
// ids go on git's standard input, so no value from outside reaches its
// command line but the URL, in a setting.
func (c *Cache) fetch(ctx context.Context, dir string, r Reference, ids []string, shallow bool) error {
	args := []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--recurse-submodules=no", "--filter=blob:none"}
	if shallow {
		args = append(args, "--depth=1")
	}
	args = append(args, "--stdin", "--end-of-options", "stax")
	config := []string{
		"remote.stax.url=" + r.URL(),
		"remote.stax.promisor=true",
		"remote.stax.fetch=", // objects only, no refs
		"extensions.partialClone=stax",
		// No haves: a server deltas nothing against an object the cache
		// lacks, which git would then fetch on its own, one at a time.
		"fetch.negotiationAlgorithm=noop",
	}
	if r.url.Scheme == "file" {
		// The upload-pack of a file:// repository runs here, reading
		// that repository's settings alone: told to, it filters as a
		// hosting service does.
		config = append(config, "remote.stax.uploadpack=git -c uploadpack.allowFilter=true upload-pack")
	}
	return c.watchPack(ctx, dir, r, func(ctx context.Context) error {
		_, err := c.run(ctx, command{dir: dir, cwd: dir, network: r.protocols(), config: config, secrets: r.secrets(),
			stdin: strings.NewReader(strings.Join(ids, "\n") + "\n")}, args...)
		var gitErr *gitError
		if shallow && errors.As(err, &gitErr) && strings.Contains(gitErr.stderr, "not our ref") {
			// The server's words (upload-pack's, the same on every
			// host) for a want it does not have or will not serve.
			return errdefs.Resolution(fmt.Errorf("git repository %s has no commit %s: %w", termtext.Escape(r.Display()), strings.Join(ids, ", "), err))
		}
		if err != nil && ctx.Err() == nil {
			return errdefs.MarkUnavailable(fmt.Errorf("fetch from git repository %s: %w: check the URL, and that your git can read it (git ls-remote %s)", termtext.Escape(r.Display()), err, termtext.Escape(r.Display())))
		}
		return err
	})
}

// packPoll is how often a fetch's incoming pack is measured.
const packPoll = 20 * time.Millisecond

// watchPack runs fetch, and stops it once the packs it is receiving into
// dir grow past twice the size limit (the blobs, and trees and deltas
// beside them): a server that streams forever is cut there. git has no
// bound of its own on what a fetch receives.
func (c *Cache) watchPack(ctx context.Context, dir string, r Reference, fetch func(context.Context) error) error {
	limit := 2 * c.maxSize()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	over := make(chan int64, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(packPoll)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if n := incomingSize(dir); n > limit {
					over <- n
					cancel()
					return
				}
			}
		}
	}()
	err := fetch(ctx)
	cancel()
	<-done
	select {
	case n := <-over:
		clearLeftovers(dir)
		return errdefs.Precondition(fmt.Errorf("fetch from git repository %s: stopped after %d bytes, more than stax takes for one package (twice its limit of %d bytes)", termtext.Escape(r.Display()), n, c.maxSize()))
	default:
	}
	if err != nil {
		clearLeftovers(dir)
	}
	return err
}

// incomingSize is the size of the packs git is receiving into dir.
func incomingSize(dir string) int64 {
	matches, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "tmp_*"))
	var n int64
	for _, m := range matches {
		if info, err := os.Lstat(m); err == nil {
			n += info.Size()
		}
	}
	return n
}
