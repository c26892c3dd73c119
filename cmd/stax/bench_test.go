package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stax-dev/stax/internal/skillgen"
)

// benchSizes are the library sizes of the scaling benchmarks: memory must
// stay flat from the first to the second. The skills are small (benchSkillBytes)
// so that `make bench` stays quick; bench/compare.sh measures full-size
// libraries against tar.
var benchSizes = []int{500, 5000}

const benchSkillBytes = 2000

// scaling runs op over generated libraries of each of benchSizes and
// reports, per size, the allocations per skill and the peak heap; the
// larger size also reports its peak as a ratio of the smaller's, which
// must stay near 1.
func scaling(b *testing.B, op func(b *testing.B, lib string, n int) func()) {
	var basePeak float64
	for _, n := range benchSizes {
		lib := filepath.Join(b.TempDir(), "skills")
		if err := skillgen.Write(lib, 0, n, 0, benchSkillBytes); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%dskills", n), func(b *testing.B) {
			run := op(b, lib, n)
			var before, after runtime.MemStats
			var peak uint64
			runtime.ReadMemStats(&before)
			for b.Loop() {
				peak = max(peak, skillgen.PeakHeap(run))
			}
			runtime.ReadMemStats(&after)
			allocs := float64(after.Mallocs-before.Mallocs) / float64(b.N) / float64(n)
			b.ReportMetric(allocs, "allocs/skill")
			mib := float64(peak) / (1 << 20)
			b.ReportMetric(mib, "peak-MiB")
			if basePeak == 0 {
				basePeak = mib
			} else {
				b.ReportMetric(mib/basePeak, "peak/peak@500")
			}
		})
	}
}

// mustRun runs the CLI and fails the benchmark unless it exits 0.
func mustRun(b *testing.B, args ...string) {
	b.Helper()
	code := Execute(b.Context(), args, &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	if code != 0 {
		b.Fatalf("stax %v: exit %d", args, code)
	}
}

func benchHome(b *testing.B) {
	b.Setenv("STAX_HOME", b.TempDir())
	b.Setenv("DOCKER_CONFIG", b.TempDir())
	b.Setenv("SOURCE_DATE_EPOCH", "")
}

func BenchmarkValidate(b *testing.B) {
	benchHome(b)
	scaling(b, func(b *testing.B, lib string, n int) func() {
		return func() { mustRun(b, "validate", lib) }
	})
}

func BenchmarkPack(b *testing.B) {
	benchHome(b)
	scaling(b, func(b *testing.B, lib string, n int) func() {
		out := filepath.Join(b.TempDir(), "layout")
		return func() {
			os.RemoveAll(out)
			mustRun(b, "pack", lib, "--name", "bench", "--version", "1.0.0", "-t", "oci:"+out+":1.0.0")
		}
	})
}

// BenchmarkInstall installs a package of n skills into a new folder.
func BenchmarkInstall(b *testing.B) {
	benchHome(b)
	scaling(b, func(b *testing.B, lib string, n int) func() {
		layout := filepath.Join(b.TempDir(), "layout")
		mustRun(b, "pack", lib, "--name", "bench", "--version", "1.0.0", "-t", "oci:"+layout+":1.0.0")
		project := filepath.Join(b.TempDir(), "project")
		return func() {
			os.RemoveAll(project)
			if err := os.Mkdir(project, 0o755); err != nil {
				b.Fatal(err)
			}
			mustRun(b, "install", "oci:"+layout+":1.0.0", "--dir", project)
		}
	})
}

// BenchmarkReinstall installs a package of n skills into a folder that
// holds it already: nothing is read but the folder's metadata.
func BenchmarkReinstall(b *testing.B) {
	benchHome(b)
	scaling(b, func(b *testing.B, lib string, n int) func() {
		layout := filepath.Join(b.TempDir(), "layout")
		mustRun(b, "pack", lib, "--name", "bench", "--version", "1.0.0", "-t", "oci:"+layout+":1.0.0")
		project := b.TempDir()
		mustRun(b, "install", "oci:"+layout+":1.0.0", "--dir", project)
		return func() { mustRun(b, "install", "oci:"+layout+":1.0.0", "--dir", project) }
	})
}
