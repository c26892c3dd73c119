package gitsource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/stax-dev/stax/internal/userinfo"
	"github.com/stax-dev/stax/pkg/errdefs"
)

// ErrGitMissing is wrapped by the error of a git that cannot be run.
var ErrGitMissing = errors.New("git is not installed")

// networkProtocols are the transports git may use to reach a repository,
// whatever a URL is rewritten to by the user's insteadOf: never ext::,
// which runs a command, nor fd::. Plain http and file are added only for
// a URL written with them.
const networkProtocols = "https:ssh:git"

// safeConfig is set on every git stax runs, over the user's own
// configuration (which stays in force for credentials, SSH keys,
// insteadOf and proxies): nothing of a fetched repository runs, and git
// keeps to the objects stax asks for.
var safeConfig = []string{
	"core.hooksPath=" + os.DevNull, // no hook, not even the cache's own
	"core.fsmonitor=false",
	"fetch.recurseSubmodules=false", // gitlinks are reported, never followed
	"submodule.recurse=false",
	"fetch.unpackLimit=1", // a fetch is one pack, whose size is watched (see watchPack)
	"transfer.unpackLimit=1",
	"fetch.writeCommitGraph=false",
	"maintenance.auto=false",
	"gc.auto=0",
	"protocol.version=2", // wants by object id: only that commit, only those blobs
}

// droppedEnv are variables of the user's environment that would point git
// at another repository than the cache, or change what it asks for.
var droppedEnv = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
	"GIT_SHALLOW_FILE", "GIT_ALLOW_PROTOCOL", "GIT_TERMINAL_PROMPT",
	"GIT_PROTOCOL_FROM_USER", "GIT_CEILING_DIRECTORIES", "GIT_PROTOCOL",
}

// command is one run of git.
type command struct {
	dir     string    // --git-dir; empty runs outside any repository, in cwd
	cwd     string    // the working directory
	network string    // GIT_ALLOW_PROTOCOL; empty forbids every transport
	config  []string  // -c settings after safeConfig
	stdin   io.Reader // nil for none
	stdout  io.Writer // nil collects it into run's result
	secrets []string  // text masked in messages (a URL's password)
}

// maxOutput bounds what stax reads of git's standard output: a listing
// of refs or of a tree, far below it for any repository stax takes; a
// server that lists refs without end is cut there.
const maxOutput = 64 << 20

// maxStderr bounds what of git's standard error a message quotes.
const maxStderr = 2048

// run runs git with args (after any options stax adds) and returns what
// it wrote on standard output. Its error quotes git's standard error,
// credentials masked.
func (c *Cache) run(ctx context.Context, cmd command, args ...string) ([]byte, error) {
	git, err := c.gitPath()
	if err != nil {
		return nil, err
	}
	argv := []string{}
	if cmd.dir != "" {
		argv = append(argv, "--git-dir="+cmd.dir)
	}
	for _, kv := range append(append([]string{}, safeConfig...), cmd.config...) {
		argv = append(argv, "-c", kv)
	}
	argv = append(argv, args...)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	x := exec.CommandContext(ctx, git, argv...)
	x.Dir = cmd.cwd
	killAll(x)
	x.Env = c.environ(cmd.network, cmd.cwd)
	x.Stdin = cmd.stdin
	limit := c.outputLimit
	if limit == 0 {
		limit = maxOutput
	}
	out := &cappedBuffer{max: limit, over: cancel}
	x.Stdout = out
	if cmd.stdout != nil {
		x.Stdout = cmd.stdout
	}
	stderr := &tailBuffer{max: maxStderr}
	x.Stderr = stderr
	// git fetch leaves helpers (remote-https, index-pack) that hold its
	// pipes; once git is killed they end soon after, and Wait waits no
	// longer than this for them.
	x.WaitDelay = 10 * time.Second
	if err := x.Run(); err != nil {
		if out.exceeded {
			return nil, errdefs.Precondition(fmt.Errorf("git %s wrote over %d bytes, more than stax reads of it: stopped", args[0], limit))
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		msg := strings.TrimSpace(userinfo.Mask(stderr.String()))
		for _, s := range cmd.secrets {
			if s != "" {
				msg = strings.ReplaceAll(msg, s, "***")
			}
		}
		if msg == "" {
			msg = err.Error()
		}
		return nil, &gitError{args: args[0], stderr: msg, err: err}
	}
	return out.buf.Bytes(), nil
}

// gitError is a git that failed: the command, and what git said.
type gitError struct {
	args   string
	stderr string
	err    error
}

func (e *gitError) Error() string { return "git " + e.args + ": " + e.stderr }
func (e *gitError) Unwrap() error { return e.err }

// gitPath finds the user's git, once.
func (c *Cache) gitPath() (string, error) {
	c.lookOnce.Do(func() {
		if c.Git != "" {
			c.git = c.Git
			return
		}
		c.git, c.lookErr = exec.LookPath("git")
		if c.lookErr != nil {
			c.lookErr = errdefs.MarkLocal(fmt.Errorf("%w (%v): stax fetches git sources with your git, so your credentials, SSH keys and settings apply; install git (https://git-scm.com/downloads, apt install git, brew install git) or put it on PATH", ErrGitMissing, c.lookErr))
		}
	})
	return c.git, c.lookErr
}

// environ is the environment git runs in: the user's (or Env), without
// what would point it elsewhere, never prompting, with the transports it
// may use. A git given no transport cannot fetch even the objects a
// partial clone lacks, which is how reading the cache stays off the
// network.
func (c *Cache) environ(network, cwd string) []string {
	base := c.Env
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+4)
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !isDropped(name) {
			env = append(env, kv)
		}
	}
	env = append(env,
		"GIT_ALLOW_PROTOCOL="+network,
		"GIT_TERMINAL_PROMPT=0",
		"GCM_INTERACTIVE=never",
		"GIT_NO_LAZY_FETCH=1", // git 2.44 and later; older ones are held by GIT_ALLOW_PROTOCOL
	)
	if cwd != "" {
		// No repository above the cache is ever taken for the one git
		// runs in (ls-remote runs in none).
		env = append(env, "GIT_CEILING_DIRECTORIES="+filepath.Dir(cwd))
	}
	return env
}

func isDropped(name string) bool {
	for _, d := range droppedEnv {
		if strings.EqualFold(name, d) {
			return true
		}
	}
	return false
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = b.buf[over:]
	}
	return len(p), nil
}

func (b *tailBuffer) String() string { return string(b.buf) }

// cappedBuffer collects up to max bytes, and calls over once more come.
type cappedBuffer struct {
	buf      bytes.Buffer
	max      int
	over     func()
	exceeded bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.buf.Len()+len(p) > b.max {
		b.exceeded = true
		b.over()
		return 0, errors.New("output over the limit")
	}
	return b.buf.Write(p)
}
