package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/filetest"
	"github.com/stax-dev/stax/internal/registrytest"
)

// pushRacers is how many stax processes push to one new tag at once.
const pushRacers = 8

// Concurrent pushes with --no-overwrite of different packages to one new
// tag, each its own stax process sharing one home, as parallel CI steps
// or two terminals run them: exactly one exits 0, every other exits 3
// with tag-exists naming the digest of the one that won, and the tag
// names that digest. To a registry, the gate holds every push's listing
// of the repository's tags until all have asked, so that all of them
// find the tag absent before any writes it; into a new OCI layout, the
// processes race as they start, three times.
func TestConcurrentNoOverwritePushesHaveOneWinner(t *testing.T) {
	t.Parallel()
	reg := registrytest.New(t)
	gate := registrytest.Gate("GET", "^/v2/race/skills/tags/list$", pushRacers)
	reg.AddFaults(gate)
	home := useHome(t)
	dirs := make([]string, pushRacers)
	for i := range dirs {
		dirs[i] = filepath.Join(t.TempDir(), "pkg")
		filetest.Write(t, dirs[i], map[string]string{
			"stax.yaml":             "name: race\nversion: 1.0.0\nskills: skills\n",
			"skills/greet/SKILL.md": fmt.Sprintf("---\nname: greet\ndescription: Greets, the way number %d does. Use when testing races.\n---\nHello %d.\n", i, i),
		})
	}
	dsts := []string{reg.Host + "/race/skills:1.0.0"}
	for range 3 { // a layout race is not held at one point: run it more than once
		dsts = append(dsts, "oci:"+filepath.Join(t.TempDir(), "out")+":1.0.0")
	}
	for _, dst := range dsts {
		results := pushAtOnce(t, home, dirs, dst)
		var winners []string
		for _, r := range results {
			if r.Code == 0 {
				var pushed struct{ Digest string }
				decodeJSON(t, r.Stdout, &pushed)
				winners = append(winners, pushed.Digest)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("%s: %d of %d pushes exited 0, want 1:\n%s", dst, len(winners), len(results), describeResults(results))
		}
		for _, r := range results {
			if r.Code == 0 {
				continue
			}
			e := jsonErrorOf(t, r)
			if r.Code != 3 || e.Code != "tag-exists" || !strings.Contains(e.Message, winners[0]) {
				t.Errorf("%s: a losing push: exit %d, %s: %s; want exit 3, tag-exists naming %s", dst, r.Code, e.Code, e.Message, winners[0])
			}
		}
		if r := runStax(t, "resolve", "--remote", dst); strings.TrimSpace(r.Stdout) != winners[0] {
			t.Errorf("%s names %q (%s), want the winner %s", dst, r.Stdout, r.Stderr, winners[0])
		}
	}
	if !gate.Released() {
		t.Error("the pushes to the registry never listed its tags all at once")
	}
}

// pushAtOnce runs stax push --no-overwrite of each of dirs to dst, each
// in a process of its own with the home given, all at once.
func pushAtOnce(t *testing.T, home string, dirs []string, dst string) []result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang fails, it is not timed
	defer cancel()
	results := make([]result, len(dirs))
	var wg sync.WaitGroup
	for i, dir := range dirs {
		cmd := staxCommand(t, []string{"STAX_HOME=" + home}, "push", dir, dst, "--no-overwrite", "--no-progress", "--output", "json")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stop := context.AfterFunc(ctx, func() { cmd.Process.Kill() })
		wg.Go(func() {
			defer stop()
			err := cmd.Wait()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Error(err)
			}
			results[i] = result{Stdout: stdout.String(), Stderr: stderr.String(), Code: cmd.ProcessState.ExitCode()}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("the pushes to %s did not finish:\n%s", dst, describeResults(results))
	}
	return results
}

func describeResults(results []result) string {
	var b strings.Builder
	for i, r := range results {
		out, _ := json.Marshal(r)
		fmt.Fprintf(&b, "  %d: %s\n", i, out)
	}
	return b.String()
}
