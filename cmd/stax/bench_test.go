package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/stax-dev/stax/pkg/workflow"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/stax-dev/stax/internal/registrytest"
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
func mustRun(b testing.TB, args ...string) {
	b.Helper()
	if code := benchExecute(b, args, &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}); code != 0 {
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

// BenchmarkPushDir pushes a package directory of n skills, built on the
// way, to a new OCI layout: an OCI layout rather than a registry in this
// process, whose memory would count in the peak.
func BenchmarkPushDir(b *testing.B) {
	benchHome(b)
	scaling(b, func(b *testing.B, lib string, n int) func() {
		out := filepath.Join(b.TempDir(), "layout")
		return func() {
			os.RemoveAll(out)
			mustRun(b, "push", lib, "oci:"+out+":1.0.0")
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

// BenchmarkPull pulls a package of n skills from an in-process registry
// into a new folder, each time with a new local store, so that the layer
// is fetched. Every iteration also runs the baseline, what `crane blob
// REF | tar -xzf -` does: fetch the same blob and untar it, with the
// same gzip decoder and no checks. ratio is stax's time over the
// baseline's, in alternating runs.
func BenchmarkPull(b *testing.B) {
	benchHome(b)
	reg := registrytest.New(b)
	for _, n := range benchSizes {
		lib := filepath.Join(b.TempDir(), "skills")
		if err := skillgen.Write(lib, 0, n, 0, benchSkillBytes); err != nil {
			b.Fatal(err)
		}
		layout := filepath.Join(b.TempDir(), "layout")
		mustRun(b, "pack", lib, "--name", "bench", "--version", "1.0.0", "-t", "oci:"+layout+":1.0.0")
		ref := fmt.Sprintf("%s/bench/s%d:1.0.0", reg.Host, n)
		var pushed workflow.Transfer
		if err := json.Unmarshal(mustOutput(b, "push", "oci:"+layout+":1.0.0", ref, "--output", "json"), &pushed); err != nil {
			b.Fatal(err)
		}
		blobURL := fmt.Sprintf("http://%s/v2/bench/s%d/blobs/%s", reg.Host, n, pushed.Layers[0].Digest)
		b.Run(fmt.Sprintf("%dskills", n), func(b *testing.B) {
			out := filepath.Join(b.TempDir(), "out")
			var stax, baseline time.Duration
			for b.Loop() {
				b.Setenv("STAX_HOME", b.TempDir())
				start := time.Now()
				mustRun(b, "pull", ref, "-o", out)
				stax += time.Since(start)
				os.RemoveAll(out)

				start = time.Now()
				fetchAndUntar(b, blobURL, out)
				baseline += time.Since(start)
				os.RemoveAll(out)
			}
			b.ReportMetric(float64(stax.Nanoseconds())/float64(b.N)/1e6, "stax-ms/op")
			b.ReportMetric(float64(baseline.Nanoseconds())/float64(b.N)/1e6, "fetch+untar-ms/op")
			b.ReportMetric(float64(stax)/float64(baseline), "ratio")
		})
	}
}

// mustOutput runs the CLI and returns its standard output, failing the
// benchmark unless it exits 0.
func mustOutput(b testing.TB, args ...string) []byte {
	b.Helper()
	var out bytes.Buffer
	if code := benchExecute(b, args, &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: io.Discard}); code != 0 {
		b.Fatalf("stax %v: exit %d", args, code)
	}
	return out.Bytes()
}

// fetchAndUntar is the pull baseline: GET the blob, gunzip and untar it
// into dir, trusting every byte.
func fetchAndUntar(b *testing.B, url, dir string) {
	b.Helper()
	resp, err := http.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(dir, h.Name)
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(f, tr); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchExecute is Execute in the benchmark's process, without the heap
// floor Execute gives the binary: the collector is the process's, which
// holds the benchmark's heap and registry too, and a floor set by each
// run would stack a collection hook on those before it.
func benchExecute(b testing.TB, args []string, streams *IOStreams) int {
	return executeIn(b.Context(), args, streams, environment{}, nil)
}
