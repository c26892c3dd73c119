package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stax-dev/stax/internal/registrytest"
	"github.com/stax-dev/stax/internal/skillgen"
)

// BenchmarkMCPPackageCold starts `stax mcp --package REF` on a package of
// 1,000 skills in an in-process registry, each time with a new $STAX_HOME,
// so that the package is fetched, admitted, stored, extracted and indexed
// before the server reads its (empty) stdin and ends; each iteration also
// runs `stax pull REF -o DIR`, cold too. ratio is the server's start over
// the pull's, in alternating runs: the row asks for at most 1.2.
// The cpu metrics are the process's user and system time during each
// (the in-process registry's included, the same for both), the user
// metrics their user part: the system time, the file system's, varies
// between runs more than anything stax does.
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
	project := b.TempDir()
	var serve, pull, serveCPU, pullCPU, serveUser, pullUser time.Duration
	runServe := func() {
		b.Setenv("STAX_HOME", b.TempDir())
		settle()
		start, cpu, user := time.Now(), cpuTime(), userTime()
		mustRun(b, "mcp", "--dir", project, "--package", ref)
		serve += time.Since(start)
		serveCPU += cpuTime() - cpu
		serveUser += userTime() - user
	}
	runPull := func() {
		b.Setenv("STAX_HOME", b.TempDir())
		out := filepath.Join(b.TempDir(), "out")
		settle()
		start, cpu, user := time.Now(), cpuTime(), userTime()
		mustRun(b, "pull", ref, "-o", out)
		pull += time.Since(start)
		pullCPU += cpuTime() - cpu
		pullUser += userTime() - user
		os.RemoveAll(out)
	}
	// Each goes first in every other iteration: the first of a pair pays
	// for what the file system still does of the one before.
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			runServe()
			runPull()
		} else {
			runPull()
			runServe()
		}
	}
	b.ReportMetric(float64(serve.Nanoseconds())/float64(b.N)/1e6, "mcp-ms/op")
	b.ReportMetric(float64(pull.Nanoseconds())/float64(b.N)/1e6, "pull-ms/op")
	b.ReportMetric(float64(serve)/float64(pull), "ratio")
	b.ReportMetric(float64(serveCPU.Nanoseconds())/float64(b.N)/1e6, "mcp-cpu-ms/op")
	b.ReportMetric(float64(pullCPU.Nanoseconds())/float64(b.N)/1e6, "pull-cpu-ms/op")
	b.ReportMetric(float64(serveUser.Nanoseconds())/float64(b.N)/1e6, "mcp-user-ms/op")
	b.ReportMetric(float64(pullUser.Nanoseconds())/float64(b.N)/1e6, "pull-user-ms/op")
}
