package layers

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const mib = 1 << 20

// largeTree writes a tree of four files totalling size bytes. The bytes are
// pseudo-random letters: compressible like text, but without repeats inside
// deflate's window that would make compression unrealistically cheap.
func largeTree(t testing.TB, size int64) *Tree {
	t.Helper()
	root := t.TempDir()
	chunk := make([]byte, mib)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range chunk {
		chunk[i] = 'a' + byte(rng.IntN(16))
	}
	must(t, os.Mkdir(filepath.Join(root, "skill"), 0o755))
	for i := range 4 {
		f, err := os.Create(filepath.Join(root, "skill", fmt.Sprintf("blob-%d.bin", i)))
		must(t, err)
		for written := int64(0); written < size/4; written += mib {
			_, err := f.Write(chunk[:min(mib, size/4-written)])
			must(t, err)
		}
		must(t, f.Close())
	}
	return mustScan(t, ScanOptions{Root: root})
}

// allocDuringWrite is the number of bytes allocated while writing tree.
func allocDuringWrite(t testing.TB, tree *Tree) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := Write(io.Discard, tree, WriteOptions{Limits: Limits{MaxSize: -1}}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// skipUnderRace skips a test that measures the heap when the race
// detector is on: it drops a random quarter of what code puts back in a
// sync.Pool, so allocations vary from run to run, and it makes the
// megabytes these tests stream cost a minute. make test runs them without
// the detector; the functional tests of the same code run under it.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("measures the heap, which the race detector distorts; make test runs it without -race")
	}
}

// TestWriteMemoryFlat checks that Write streams: growing the input eight
// times must not grow allocations with it. Buffering one 8 MiB file of the
// large tree would alone allocate 8 MiB (more with slice growth), far past
// the bound; what Write does allocate (compressor state, copy buffer,
// hashers, headers) is fixed per call or per file, and both trees have the
// same four files. The bound allows twice the small figure plus 1 MiB for
// noise such as the runtime's own allocations during the call.
func TestWriteMemoryFlat(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("writes 36 MiB of test data")
	}
	small, large := largeTree(t, 4*mib), largeTree(t, 32*mib)
	allocDuringWrite(t, small) // warm up lazily allocated tables
	smallAlloc := allocDuringWrite(t, small)
	largeAlloc := allocDuringWrite(t, large)
	t.Logf("allocated %d bytes for 4 MiB, %d bytes for 32 MiB", smallAlloc, largeAlloc)
	if largeAlloc > 2*smallAlloc+mib {
		t.Errorf("allocations grow with input: %d bytes for 4 MiB, %d for 32 MiB", smallAlloc, largeAlloc)
	}
}

// BenchmarkWrite reports throughput and allocation per input MiB, and the
// ratio of each size's allocation to the 4 MiB baseline measured in the
// same process: a streaming writer keeps that ratio near 1.
func BenchmarkWrite(b *testing.B) {
	sizes := []int64{4 * mib, 32 * mib}
	trees := map[int64]*Tree{}
	for _, size := range sizes {
		trees[size] = largeTree(b, size)
	}
	allocDuringWrite(b, trees[sizes[0]])
	baseline := float64(allocDuringWrite(b, trees[sizes[0]]))
	for _, size := range sizes {
		b.Run(fmt.Sprintf("%dMiB", size/mib), func(b *testing.B) {
			tree := trees[size]
			b.SetBytes(size)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				if _, err := Write(io.Discard, tree, WriteOptions{Limits: Limits{MaxSize: -1}}); err != nil {
					b.Fatal(err)
				}
			}
			runtime.ReadMemStats(&after)
			perOp := float64(after.TotalAlloc-before.TotalAlloc) / float64(b.N)
			b.ReportMetric(perOp/float64(size/mib), "allocB/inMiB")
			b.ReportMetric(perOp/baseline, "alloc/4MiB-alloc")
		})
	}
}

// writtenLayer writes tree to a file and returns its path and digest.
func writtenLayer(t testing.TB, tree *Tree) (string, WriteResult) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "layer.tar.gz")
	f, err := os.Create(path)
	must(t, err)
	res, err := Write(f, tree, WriteOptions{Limits: Limits{MaxSize: -1}})
	must(t, err)
	must(t, f.Close())
	return path, res
}

// allocDuringExtract is the number of bytes allocated while extracting
// the layer at path, digest checked, into a new directory.
func allocDuringExtract(t testing.TB, path string, res WriteResult) uint64 {
	t.Helper()
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	dest := filepath.Join(t.TempDir(), "out")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := Extract(f, dest, ReadOptions{Limits: Limits{MaxSize: -1}, Digest: res.Digest}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	must(t, os.RemoveAll(dest))
	return after.TotalAlloc - before.TotalAlloc
}

// TestExtractMemoryFlat is TestWriteMemoryFlat for the reader: extracting
// a layer eight times larger must not allocate with it.
func TestExtractMemoryFlat(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("writes and extracts 36 MiB of test data")
	}
	smallPath, smallRes := writtenLayer(t, largeTree(t, 4*mib))
	largePath, largeRes := writtenLayer(t, largeTree(t, 32*mib))
	allocDuringExtract(t, smallPath, smallRes)
	smallAlloc := allocDuringExtract(t, smallPath, smallRes)
	largeAlloc := allocDuringExtract(t, largePath, largeRes)
	t.Logf("allocated %d bytes for 4 MiB, %d bytes for 32 MiB", smallAlloc, largeAlloc)
	if largeAlloc > 2*smallAlloc+mib {
		t.Errorf("allocations grow with input: %d bytes for 4 MiB, %d for 32 MiB", smallAlloc, largeAlloc)
	}
}

// BenchmarkExtract reports extraction throughput and each size's
// allocation as a ratio to the 4 MiB baseline measured in the same process.
func BenchmarkExtract(b *testing.B) {
	sizes := []int64{4 * mib, 32 * mib}
	paths, results := map[int64]string{}, map[int64]WriteResult{}
	for _, size := range sizes {
		paths[size], results[size] = writtenLayer(b, largeTree(b, size))
	}
	allocDuringExtract(b, paths[sizes[0]], results[sizes[0]])
	baseline := float64(allocDuringExtract(b, paths[sizes[0]], results[sizes[0]]))
	for _, size := range sizes {
		b.Run(fmt.Sprintf("%dMiB", size/mib), func(b *testing.B) {
			b.SetBytes(size)
			var total uint64
			for b.Loop() {
				total += allocDuringExtract(b, paths[size], results[size])
			}
			perOp := float64(total) / float64(b.N)
			b.ReportMetric(perOp/float64(size/mib), "allocB/inMiB")
			b.ReportMetric(perOp/baseline, "alloc/4MiB-alloc")
		})
	}
}

// heldPerEntry walks an archive of skills, each a directory of six
// entries, and returns the heap the walk holds at its last entry over
// what it held at its first, per entry: what Walk keeps of each path.
func heldPerEntry(t *testing.T, skills int, interleave bool) float64 {
	t.Helper()
	var entries []rawEntry
	for i := range skills {
		// Names where one is the start of another, in the order stax
		// writes them: "s-0-x/" before "s-0/".
		s := fmt.Sprintf("s-%d/", i/2)
		if i%2 == 0 {
			s = fmt.Sprintf("s-%d-x/", i/2)
		}
		entries = append(entries, dir(s), file(s+"SKILL.md", ""), dir(s+"scripts/"), file(s+"scripts/run.sh", ""),
			dir(s+"references/"), file(s+"references/notes.md", ""))
	}
	slices.SortStableFunc(entries, func(a, b rawEntry) int { return strings.Compare(a.hdr.Name, b.hdr.Name) })
	if interleave {
		// Another writer's order: back to the first directory.
		entries = append(entries, file(entries[0].hdr.Name+"late.md", ""))
	}
	data := rawArchive(t, entries...)
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var first, last uint64
	n := 0
	err := Walk(bytesReader(data), ReadOptions{Limits: Limits{MaxSize: -1, MaxFiles: -1}}, func(h Header, r io.Reader) error {
		if n++; n == 1 {
			first = heap()
		} else if n == len(entries) {
			last = heap()
		}
		return nil
	})
	must(t, err)
	return float64(int64(last)-int64(first)) / float64(len(entries))
}

// TestWalkHoldsLittlePerPath checks what reading a layer keeps of each
// path to refuse duplicates: a layer written one skill directory after
// the other, in order, as stax writes it, costs about 10 bytes a path (a
// map of every path's hash cost 33). An archive in another order is
// still checked whole (see the hostile cases) and may cost more.
func TestWalkHoldsLittlePerPath(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("walks a layer of 36,000 entries")
	}
	got := heldPerEntry(t, 6000, false)
	if got > 16 {
		t.Errorf("Walk holds %.1f bytes a path of a layer written in order, want at most 16", got)
	}
	if got = heldPerEntry(t, 6000, true); got > 64 {
		t.Errorf("Walk holds %.1f bytes a path of a layer that goes back to a directory, want at most 64", got)
	}
}
