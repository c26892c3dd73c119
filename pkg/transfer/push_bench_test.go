package transfer_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/oci"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/stax-dev/stax/layers"
	"github.com/stax-dev/stax/pkg/reference"
	"github.com/stax-dev/stax/pkg/registry"
	"github.com/stax-dev/stax/pkg/store"
	"github.com/stax-dev/stax/pkg/target"
	"github.com/stax-dev/stax/pkg/transfer"
)

// pushBlobSize is the size of the blob BenchmarkPushBlob uploads.
const pushBlobSize = 256 << 20

// BenchmarkPushBlob uploads one 256 MiB blob from an OCI layout with
// stax's copy and with oras-go's oras.Copy (what `oras cp` does),
// alternating, to Debian's docker-registry in a process of its own, so
// that the CPU the benchmark's process spends is the client's. It reports
// the CPU time (user + system) per byte of each and their ratios. stax
// reads the blob through once to verify it before it sends it; oras.Copy
// does not, but `oras push FILE` does the same reading to digest the file:
// oras-push is a SHA-256 pass over the file and then oras.Copy.
//
//	go test ./pkg/transfer -run '^$' -bench PushBlob -benchtime 3x
func BenchmarkPushBlob(b *testing.B) {
	host := startDockerRegistry(b)
	ctx := context.Background()
	layout := filepath.Join(b.TempDir(), "layout")
	writeBigArtifact(b, layout)
	b.Setenv("DOCKER_CONFIG", b.TempDir())
	client, err := registry.New(registry.Options{})
	if err != nil {
		b.Fatal(err)
	}
	opener := &target.Opener{Registry: client}
	open := func(s string) *target.Target {
		ref, err := reference.Parse(s)
		if err != nil {
			b.Fatal(err)
		}
		t, err := opener.Open(ctx, ref, store.ReadWrite)
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	store, err := oci.NewWithContext(ctx, layout)
	if err != nil {
		b.Fatal(err)
	}

	var staxCPU, orasCPU, hashCPU time.Duration
	b.SetBytes(pushBlobSize)
	b.ResetTimer()
	for i := range b.N {
		// A new repository each time: its HEAD answers 404 and the blob
		// is uploaded again.
		staxCPU += cpuTime(b, func() {
			src, dst := open("oci:"+layout+":1"), open(fmt.Sprintf("%s/stax/bench%d:1", host, i))
			defer src.Close()
			defer dst.Close()
			if _, err := transfer.Copy(ctx, src, dst, transfer.Options{AnyArtifact: true, Limits: layers.Limits{MaxSize: -1}}); err != nil {
				b.Fatal(err)
			}
		})
		orasCPU += cpuTime(b, func() {
			repo, err := remote.NewRepository(fmt.Sprintf("%s/oras/bench%d", host, i))
			if err != nil {
				b.Fatal(err)
			}
			repo.PlainHTTP = true
			if _, err := oras.Copy(ctx, store, "1", repo, "1", oras.DefaultCopyOptions); err != nil {
				b.Fatal(err)
			}
		})
		hashCPU += cpuTime(b, func() { digestBlob(b, layout) })
	}
	bytes := float64(b.N) * pushBlobSize
	b.ReportMetric(float64(staxCPU.Nanoseconds())/bytes, "stax-cpu-ns/B")
	b.ReportMetric(float64(orasCPU.Nanoseconds())/bytes, "oras-cpu-ns/B")
	b.ReportMetric(float64(staxCPU)/float64(orasCPU), "stax/oras-cpu")
	b.ReportMetric(float64(staxCPU)/float64(orasCPU+hashCPU), "stax/oras-push-cpu")
}

// digestBlob reads the blob of the layout's artifact through SHA-256, as
// `oras push` digests a file before it uploads it.
func digestBlob(b *testing.B, layout string) {
	matches, err := filepath.Glob(filepath.Join(layout, "blobs", "sha256", "*"))
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range matches {
		info, err := os.Stat(m)
		if err != nil || info.Size() != pushBlobSize {
			continue
		}
		f, err := os.Open(m)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.CopyBuffer(h, f, make([]byte, 256<<10)); err != nil {
			b.Fatal(err)
		}
		return
	}
	b.Fatal("no blob of the benchmark's size in the layout")
}

// cpuTime is the user and system CPU time of this process while f runs.
func cpuTime(b *testing.B, f func()) time.Duration {
	used := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := used()
	f()
	return used() - start
}

// writeBigArtifact writes to layout, tagged 1, an image manifest of one
// pushBlobSize layer of incompressible bytes.
func writeBigArtifact(b *testing.B, layout string) {
	ctx := context.Background()
	store, err := oci.NewWithContext(ctx, layout)
	if err != nil {
		b.Fatal(err)
	}
	blob := filepath.Join(b.TempDir(), "blob")
	f, err := os.Create(blob)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.NewChaCha8([32]byte{1})
	if _, err := io.CopyN(f, rng, pushBlobSize); err != nil {
		b.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		b.Fatal(err)
	}
	d, err := digest.FromReader(f)
	if err != nil {
		b.Fatal(err)
	}
	desc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayerGzip, Digest: d, Size: pushBlobSize}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		b.Fatal(err)
	}
	if err := store.Push(ctx, desc, f); err != nil {
		b.Fatal(err)
	}
	f.Close()
	manifest, err := oras.PackManifest(ctx, store, oras.PackManifestVersion1_1, "application/vnd.example.bench", oras.PackManifestOptions{Layers: []ocispec.Descriptor{desc}})
	if err != nil {
		b.Fatal(err)
	}
	if err := store.Tag(ctx, manifest, "1"); err != nil {
		b.Fatal(err)
	}
}

// startDockerRegistry runs Debian's docker-registry (distribution 2.8) on
// a loopback port until the benchmark ends, and returns its host:port.
func startDockerRegistry(b *testing.B) string {
	bin := "/usr/bin/docker-registry"
	if v := os.Getenv("DOCKER_REGISTRY"); v != "" {
		bin = v
	}
	if _, err := os.Stat(bin); err != nil {
		b.Skipf("no docker-registry at %s (apt-get install docker-registry)", bin)
	}
	dir := b.TempDir()
	config := filepath.Join(dir, "registry.yml")
	yml := fmt.Sprintf("version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: 127.0.0.1:0\n  secret: stax-bench\n", filepath.Join(dir, "data"))
	if err := os.WriteFile(config, []byte(yml), 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", config)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	listening := regexp.MustCompile(`listening on (127\.0\.0\.1:[0-9]+)`)
	found := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			if m := listening.FindStringSubmatch(s.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case host := <-found:
		return host
	case <-time.After(10 * time.Second):
		b.Fatal("docker-registry did not say where it listens within 10 s")
		return ""
	}
}
