package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/pkg/scratch"
)

// TestMain keeps every test on loopback, and away from the environment
// of whoever runs it: commands run in-process read their test's
// environment (see useHome and setenv), over a process environment with a
// store that must stay empty and a Docker config without credentials.
func TestMain(m *testing.M) {
	// A test that runs stax as a subprocess, as an agent starts an MCP
	// server, runs this binary: it is stax when the variable says so, so
	// no test has to build and link another.
	if os.Getenv(runAsStaxEnv) == "1" {
		main()
	}
	registrytest.KeepOnLoopback()
	// Go's HTTP client never proxies loopback; the git the git tests run,
	// through curl, does unless told not to.
	os.Setenv("no_proxy", "127.0.0.1,localhost")
	os.Exit(runTests(m))
}

// ownProcessEnv names the test the test binary is run again for by
// inOwnProcess.
const ownProcessEnv = "STAX_TEST_OWN_PROCESS"

// inOwnProcess reports whether t runs in a process of its own, for a
// test of what a process sets up once (the collector's settings, the
// system's roots). If it does not, it runs t in one, the test binary run
// again with the environment env makes of this one's, fails t unless it
// passed there, and returns false: t then returns.
func inOwnProcess(t *testing.T, env func([]string) []string) bool {
	t.Helper()
	if os.Getenv(ownProcessEnv) == t.Name() {
		return true
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(env(os.Environ()), ownProcessEnv+"="+t.Name())
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("%s in a process of its own: %v\n%s", t.Name(), err, out)
	}
	return false
}

// runAsStaxEnv makes the test binary run stax's main instead of the tests.
const runAsStaxEnv = "STAX_TEST_RUN_AS_STAX"

// testSandbox is a directory for the whole test run, removed at its end.
var testSandbox string

func runTests(m *testing.M) int {
	// A scratch directory, locked while this run lives: a run killed
	// before its cleanup (a timeout, an interrupt) leaves one, which the
	// next run removes.
	sandbox, release, err := scratch.Dir("test-env")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer release()
	testSandbox = sandbox
	processHome := filepath.Join(sandbox, "stax-home")
	// No test writes into $HOME but with its own, set with t.Setenv, so
	// the user-level skills every other test sees are none.
	userHome := filepath.Join(sandbox, "home")
	for key, value := range map[string]string{
		"STAX_HOME":     processHome,
		"DOCKER_CONFIG": filepath.Join(sandbox, "docker"),
		"HOME":          userHome,
	} {
		os.Setenv(key, value)
	}
	for _, key := range []string{"XDG_DATA_HOME", "SOURCE_DATE_EPOCH", "STAX_PASSWORD", "STAX_MCP_TOKEN"} {
		os.Unsetenv(key)
	}
	var mu sync.Mutex
	var seen []string
	unclassified = func(err error) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, err.Error())
	}
	code := m.Run()
	if len(seen) > 0 {
		// Every failure says what kind it is (package errdefs); one that
		// does not would exit 2 whatever it was.
		fmt.Fprintf(os.Stderr, "FAIL: %d errors reached the command root without a class:\n  %s\n", len(seen), strings.Join(seen, "\n  "))
		code = 1
	}
	// Tests run in parallel, each with its own home: a command that read
	// the process's environment instead of its test's would share one.
	if _, err := os.Stat(processHome); !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "FAIL: a command used the process's $STAX_HOME (%s) instead of its test's environment\n", processHome)
		code = 1
	}
	if _, err := os.Stat(userHome); !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "FAIL: a test wrote into the process's $HOME (%s), which the others read\n", userHome)
		code = 1
	}
	return code
}

// result is what one in-process run of stax produced.
type result struct {
	Stdout, Stderr string
	Code           int
}

// runStax runs the CLI in-process in its test's environment.
func runStax(t *testing.T, args ...string) result {
	t.Helper()
	return runStaxWith(t, &IOStreams{In: strings.NewReader("")}, args...)
}

// runStaxWith runs the CLI with the given stdin and terminal flag; its
// outputs are captured whatever streams says.
func runStaxWith(t *testing.T, streams *IOStreams, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	streams.Out, streams.ErrOut = &out, &errOut
	code := executeTest(t, context.Background(), args, streams)
	return result{Stdout: out.String(), Stderr: errOut.String(), Code: code}
}

// executeTest is Execute in the test's environment.
func executeTest(t *testing.T, ctx context.Context, args []string, streams *IOStreams) int {
	return executeIn(ctx, args, streams, testEnvOf(t).environment(), nil)
}

// testEnv is the environment of one test's commands: its variables over
// the process's. Tests set variables here, not with t.Setenv, which
// changes the process's environment and so cannot be used by a test that
// runs in parallel.
type testEnv struct {
	mu   sync.Mutex
	vars map[string]*string // nil: unset
}

func (e *testEnv) lookup(key string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if v, ok := e.vars[key]; ok {
		if v == nil {
			return "", false
		}
		return *v, true
	}
	return os.LookupEnv(key)
}

// environ is the environment whole: the process's variables, with the
// test's over them.
func (e *testEnv) environ() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := e.vars[name]; !ok {
			out = append(out, kv)
		}
	}
	for name, v := range e.vars {
		if v != nil {
			out = append(out, name+"="+*v)
		}
	}
	return out
}

func (e *testEnv) environment() environment {
	return environment{lookup: e.lookup, environ: e.environ}
}

// testEnvs are the tests' environments by test name; a subtest without
// its own has its parent's.
var testEnvs sync.Map

// testEnvOf is the environment of t, made with a fresh $STAX_HOME when
// neither t nor a parent has one, so that no command reads or writes
// another test's store.
func testEnvOf(t *testing.T) *testEnv {
	if e := nearestTestEnv(t.Name()); e != nil {
		return e
	}
	// Commands a test starts at once get one home between them.
	defaultHomeMu.Lock()
	defer defaultHomeMu.Unlock()
	if e := nearestTestEnv(t.Name()); e != nil {
		return e
	}
	useHome(t)
	return nearestTestEnv(t.Name())
}

var defaultHomeMu sync.Mutex

// nearestTestEnv is the environment of the test named name, else of its
// nearest parent that has one; nil if none has.
func nearestTestEnv(name string) *testEnv {
	for {
		if e, ok := testEnvs.Load(name); ok {
			return e.(*testEnv)
		}
		i := strings.LastIndex(name, "/")
		if i < 0 {
			return nil
		}
		name = name[:i]
	}
}

// setenv sets a variable in the environment of t's commands (and its
// subtests' without their own).
func setenv(t *testing.T, key, value string) {
	t.Helper()
	ownTestEnv(t).set(key, &value)
}

// unsetenv unsets a variable in the environment of t's commands.
func unsetenv(t *testing.T, key string) {
	t.Helper()
	ownTestEnv(t).set(key, nil)
}

func (e *testEnv) set(key string, value *string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.vars[key] = value
}

// ownTestEnv is t's own environment, made as a copy of its parent's
// variables when it has none yet.
func ownTestEnv(t *testing.T) *testEnv {
	if e, ok := testEnvs.Load(t.Name()); ok {
		return e.(*testEnv)
	}
	own := &testEnv{vars: map[string]*string{}}
	if parent := nearestTestEnv(t.Name()); parent != nil {
		parent.mu.Lock()
		maps.Copy(own.vars, parent.vars)
		parent.mu.Unlock()
	}
	if e, loaded := testEnvs.LoadOrStore(t.Name(), own); loaded {
		return e.(*testEnv)
	}
	name := t.Name()
	t.Cleanup(func() { testEnvs.Delete(name) })
	return own
}

// useHome gives the test's commands a fresh $STAX_HOME; it returns its
// path.
func useHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	setenv(t, "STAX_HOME", home)
	return home
}

func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, s)
	}
}

const examples = "../../examples"

// copyTree copies src to dst in reverse path order, owner-only, with
// scrambled mtimes and permission bits: everything that must not change
// a digest.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	var paths []string
	if err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		paths = append(paths, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Reverse(paths)
	when := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	for i, p := range paths {
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		// Modes are set with Chmod, not with the umask, which is the
		// process's and so shared with tests running in parallel.
		if info.IsDir() {
			if err := os.MkdirAll(target, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(target, 0o700); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		mode := fs.FileMode(0o600)
		if info.Mode()&0o111 != 0 {
			mode = 0o700
		}
		if err := os.WriteFile(target, data, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(target, mode); err != nil {
			t.Fatal(err)
		}
		stamp := when.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(target, stamp, stamp); err != nil {
			t.Fatal(err)
		}
	}
}
