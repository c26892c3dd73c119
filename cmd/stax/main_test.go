package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/registrytest"
)

// TestMain keeps every test on loopback.
func TestMain(m *testing.M) {
	registrytest.KeepOnLoopback()
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
	os.Exit(code)
}

// result is what one in-process run of stax produced.
type result struct {
	Stdout, Stderr string
	Code           int
}

// runStax runs the CLI in-process with its own local store unless the
// caller set STAX_HOME.
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
	code := Execute(context.Background(), args, streams)
	return result{Stdout: out.String(), Stderr: errOut.String(), Code: code}
}

// useHome gives the test a fresh $STAX_HOME and an empty Docker config,
// so no test reads or writes the credentials of whoever runs it.
func useHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("STAX_HOME", home)
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	t.Setenv("SOURCE_DATE_EPOCH", "")
	return home
}

func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, s)
	}
}

const examples = "../../examples"

// copyTree copies src to dst in reverse path order, under umask 077, with
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
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	when := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	for i, p := range paths {
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.IsDir() {
			if err := os.MkdirAll(target, 0o700); err != nil {
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
		stamp := when.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(target, stamp, stamp); err != nil {
			t.Fatal(err)
		}
	}
}
