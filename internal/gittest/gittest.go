// Package gittest serves git repositories for tests with git's own
// smart-HTTP server, git http-backend, run in-process through net/http/cgi,
// behind a handler that counts requests and bytes and can inject faults;
// and builds the repositories it serves with the git on PATH.
package gittest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// Backend is where Debian and most distributions install git
// http-backend; git --exec-path names it elsewhere.
const Backend = "/usr/lib/git-core/git-http-backend"

// Server is git's smart-HTTP server on loopback, serving the bare
// repositories under Root at URL/NAME.git.
type Server struct {
	URL  string
	Root string
	// Fault, when set, sees each request first and answers it instead
	// of git when it returns true.
	Fault func(w http.ResponseWriter, r *http.Request) bool

	backend  http.Handler
	requests atomic.Int64
	bytes    atomic.Int64
}

// NewServer starts a server for the test, with what a hosting service
// allows set: partial clone filters, and wants of any commit.
func NewServer(t testing.TB) *Server {
	t.Helper()
	RequireGit(t)
	backend := Backend
	if _, err := os.Stat(backend); err != nil {
		out, err := exec.Command("git", "--exec-path").Output()
		if err != nil {
			t.Skip("git http-backend not found")
		}
		backend = filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	}
	s := &Server{Root: t.TempDir()}
	cgiHandler := &cgi.Handler{
		Path: backend,
		Dir:  s.Root,
		Env: []string{
			"GIT_PROJECT_ROOT=" + s.Root,
			"GIT_HTTP_EXPORT_ALL=1",
			"HOME=" + s.Root,
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL=" + os.DevNull,
			"GIT_CONFIG_COUNT=2",
			"GIT_CONFIG_KEY_0=uploadpack.allowFilter", "GIT_CONFIG_VALUE_0=true",
			"GIT_CONFIG_KEY_1=uploadpack.allowReachableSHA1InWant", "GIT_CONFIG_VALUE_1=true",
		},
		InheritEnv: []string{"PATH"},
		Stderr:     io.Discard, // "Not a git repository" of the tests' missing ones
	}
	s.backend = cgiHandler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		cw := &countingWriter{ResponseWriter: w, n: &s.bytes}
		if s.Fault != nil && s.Fault(cw, r) {
			return
		}
		cgiHandler.ServeHTTP(cw, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// StallAfter makes the server, on the requests match accepts, write n
// bytes of git's answer and then nothing more, holding the connection
// open until the client leaves: a server that streams forever, as far
// as a client can tell.
func (s *Server) StallAfter(n int64, match func(*http.Request) bool) {
	s.Fault = func(w http.ResponseWriter, r *http.Request) bool {
		if !match(r) {
			return false
		}
		s.backend.ServeHTTP(&stallWriter{ResponseWriter: w, left: n, r: r}, r)
		return true
	}
}

type stallWriter struct {
	http.ResponseWriter
	left int64
	r    *http.Request
}

func (w *stallWriter) Write(p []byte) (int, error) {
	n := 0
	if w.left > 0 {
		var err error
		n, err = w.ResponseWriter.Write(p[:min(int64(len(p)), w.left)])
		w.left -= int64(n)
		if f, ok := w.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
		if err != nil || n == len(p) {
			return n, err
		}
	}
	<-w.r.Context().Done()
	return n, w.r.Context().Err()
}

// Daemon serves the server's repositories over git:// too, with git
// daemon on a loopback port, until the test ends, and returns the base
// URL (git://127.0.0.1:PORT). It does not count requests.
func (s *Server) Daemon(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // git daemon takes the port; another test taking it first fails this one, never passes it
	// git-daemon itself, not git daemon: git would run it as a child
	// that outlives the Kill at cleanup, serving on after the test.
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(strings.TrimSpace(string(execPath)), "git-daemon"), "--verbose", "--export-all", "--reuseaddr",
		"--base-path="+s.Root, "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), s.Root)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=uploadpack.allowFilter", "GIT_CONFIG_VALUE_0=true")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			if !said && strings.Contains(sc.Text(), "Ready to rumble") {
				said = true
				ready <- true
			}
		}
		if !said {
			ready <- false
		}
	}()
	if !<-ready {
		t.Fatal("git daemon did not start")
	}
	return fmt.Sprintf("git://127.0.0.1:%d", port)
}

// Requests is how many requests the server has had.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Bytes is how many bytes of responses the server has written.
func (s *Server) Bytes() int64 { return s.bytes.Load() }

// Reset sets the counts back to zero.
func (s *Server) Reset() { s.requests.Store(0); s.bytes.Store(0) }

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.n.Add(int64(n))
	return n, err
}

func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// RequireGit skips the test when there is no git on PATH.
func RequireGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// Repo is a bare repository the server serves, with a work tree of its
// own to build commits in.
type Repo struct {
	t    testing.TB
	Dir  string // the bare repository
	Work string
	URL  string

	gitlinks []string
}

// NewRepo makes the empty repository NAME.git, its default branch main.
func (s *Server) NewRepo(t testing.TB, name string) *Repo {
	t.Helper()
	r := &Repo{t: t, Dir: filepath.Join(s.Root, name+".git"), Work: t.TempDir(), URL: s.URL + "/" + name + ".git"}
	if out, err := exec.Command("git", "init", "--quiet", "--bare", "--initial-branch=main", r.Dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	return r
}

// Git runs git on the repository and its work tree, with a fixed author
// and date, and returns its output.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir=" + r.Dir, "--work-tree=" + r.Work}, args...)...)
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// Write writes files (path: content) into the work tree; a path ending
// in "*" is written executable, without the star.
func (r *Repo) Write(files map[string]string) {
	r.t.Helper()
	for p, content := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, "*") {
			p, mode = strings.TrimSuffix(p, "*"), 0o755
		}
		full := filepath.Join(r.Work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			r.t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			r.t.Fatal(err)
		}
	}
}

// WriteDir writes the files under dir (a fixture such as
// testdata/repos/anthropics-skills) into the work tree, as they are.
func (r *Repo) WriteDir(dir string) {
	r.t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); info.Mode()&0o111 != 0 {
			rel += "*"
		}
		files[rel] = string(b)
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
	r.Write(files)
}

// Symlink makes the symbolic link p to target in the work tree.
func (r *Repo) Symlink(p, target string) {
	r.t.Helper()
	full := filepath.Join(r.Work, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Symlink(target, full); err != nil {
		r.t.Fatal(err)
	}
}

// Gitlink adds to the next commit a submodule entry at p naming commit,
// as git submodule add leaves one in the tree.
func (r *Repo) Gitlink(p, commit string) {
	r.gitlinks = append(r.gitlinks, "160000,"+commit+","+p)
}

// Commit commits the whole work tree on the current branch and returns
// the commit.
func (r *Repo) Commit(msg string) string {
	r.t.Helper()
	r.Git("add", "--all")
	for _, link := range r.gitlinks {
		r.Git("update-index", "--add", "--cacheinfo", link)
	}
	r.gitlinks = nil
	r.Git("commit", "--quiet", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// Tag tags HEAD, annotated when msg is not empty.
func (r *Repo) Tag(name, msg string) {
	r.t.Helper()
	if msg == "" {
		r.Git("tag", name)
		return
	}
	r.Git("tag", "-a", "-m", msg, name)
}

// Branch makes branch name at HEAD.
func (r *Repo) Branch(name string) { r.t.Helper(); r.Git("branch", name) }

// Skills writes n skills under dir (dir/skill-0001/SKILL.md and a file of
// size bytes each, of text that compresses as prose does not: random
// hex), and returns their directories.
func (r *Repo) Skills(dir string, n, size int, seed int) []string {
	r.t.Helper()
	files := map[string]string{}
	var dirs []string
	for i := range n {
		name := fmt.Sprintf("skill-%04d", i)
		d := dir + "/" + name
		dirs = append(dirs, d)
		files[d+"/SKILL.md"] = fmt.Sprintf("---\nname: %s\ndescription: Skill %d of the monorepo.\n---\n\nDo thing %d.\n", name, i, i)
		files[d+"/reference.md"] = Noise(size, seed+i)
	}
	r.Write(files)
	return dirs
}

// Noise is n bytes of hex from a generator seeded with seed: the same on
// every run, and not compressible below half.
func Noise(n, seed int) string {
	const hexDigits = "0123456789abcdef"
	x := uint64(seed)*2862933555777941757 + 3037000493
	var b strings.Builder
	b.Grow(n)
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b.WriteByte(hexDigits[x&15])
	}
	return b.String()
}
