package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/internal/skillgen"
)

// BenchmarkMCPPackageCold starts `stax mcp --package REF` on a package of
// 1,000 skills in an in-process registry, each time with a new $STAX_HOME,
// so that the package is fetched, admitted, stored, extracted and indexed
// before the server reads its (empty) stdin and ends; each iteration also
// runs `stax pull REF -o DIR`, cold too. ratio is the median of the
// iterations' server start over pull, each first in every other one, as
// bench/mcp.sh reports it: a run the machine's other jobs stall moves it
// less than the sums. The row asks for at most 1.2.
//
// Both run as processes of their own (staxCommand), as a user runs them:
// in the test process the collector would not have the heap floor main
// gives each command (a server's twice a command's), and would mark the
// test's heap and the registry's too. The cpu metrics are each child's
// user and system time, the user metrics their user part: the system
// time, the file system's, varies between runs more than anything stax
// does.
func BenchmarkMCPPackageCold(b *testing.B) {
	benchHome(b)
	reg := registrytest.New(b)
	const n = 1000
	lib := filepath.Join(b.TempDir(), "skills")
	if err := skillgen.Write(lib, 0, n, 0, benchSkillBytes); err != nil {
		b.Fatal(err)
	}
	layout := "oci:" + filepath.Join(b.TempDir(), "layout") + ":1.0.0"
	mustRun(b, "pack", lib, "--name", "bench", "--version", "1.0.0", "-t", layout)
	ref := fmt.Sprintf("%s/bench/mcp:1.0.0", reg.Host)
	mustRun(b, "push", layout, ref)
	project, home := b.TempDir(), b.TempDir()
	// A round not timed, as bench/mcp.sh's: the first reads of the
	// registry's blobs and of the binary pay for what later ones do not.
	var warm coldRuns
	warm.run(b, home, "mcp", "--dir", project, "--package", ref)
	warm.run(b, home, "pull", ref, "-o", filepath.Join(b.TempDir(), "out"))
	var serve, pull coldRuns
	var ratios []float64
	// Each goes first in every other iteration: the first of a pair pays
	// for what the file system still does of the one before.
	for i := 0; b.Loop(); i++ {
		out := filepath.Join(b.TempDir(), "out")
		var served, pulled time.Duration
		runs := []func(){
			func() { served = serve.run(b, home, "mcp", "--dir", project, "--package", ref) },
			func() { pulled = pull.run(b, home, "pull", ref, "-o", out) },
		}
		if i%2 == 1 {
			runs[0], runs[1] = runs[1], runs[0]
		}
		for _, run := range runs {
			run()
		}
		ratios = append(ratios, float64(served)/float64(pulled))
		os.RemoveAll(out)
	}
	perOp := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) / 1e6 }
	b.ReportMetric(perOp(serve.wall), "mcp-ms/op")
	b.ReportMetric(perOp(pull.wall), "pull-ms/op")
	slices.Sort(ratios)
	b.ReportMetric((ratios[(len(ratios)-1)/2]+ratios[len(ratios)/2])/2, "ratio")
	b.ReportMetric(perOp(serve.cpu), "mcp-cpu-ms/op")
	b.ReportMetric(perOp(pull.cpu), "pull-cpu-ms/op")
	b.ReportMetric(perOp(serve.user), "mcp-user-ms/op")
	b.ReportMetric(perOp(pull.user), "pull-user-ms/op")
}

// coldRuns sums the times of the stax processes of one command.
type coldRuns struct{ wall, cpu, user time.Duration }

// run runs stax with args, with a new $STAX_HOME (removed after) and an
// empty stdin, the file system synced first, adds its times to r and
// returns its wall time.
func (r *coldRuns) run(b *testing.B, home string, args ...string) time.Duration {
	staxHome := b.TempDir()
	defer os.RemoveAll(staxHome)
	cmd := staxCommand(b, []string{"HOME=" + home, "STAX_HOME=" + staxHome}, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	settle()
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("stax %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	wall := time.Since(start)
	r.wall += wall
	r.cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	r.user += cmd.ProcessState.UserTime()
	return wall
}
