// Command imagebase writes the base of stax's container image into the
// OCI layout ko caches base images in ($KOCACHE/img), and prints the
// digest to pin it by, so `make image` builds offline and without a
// Docker daemon: ko finds a base pinned by digest in its cache without
// asking any registry.
//
// The base is what a static Go binary needs and nothing more: a non-root
// user (65532, as in distroless "nonroot") with a writable home for
// $STAX_HOME, and /tmp. There is no shell and no package manager; TLS
// roots are compiled into stax (golang.org/x/crypto/x509roots/fallback).
// The bytes are fixed, so the digest is the same on every machine.
//
// Usage: go run ./internal/cmd/imagebase LAYOUT
package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/match"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The user the image runs as, and its home.
const (
	uid  = 65532
	home = "/home/nonroot"
)

// platforms the base, and so the image, is built for.
var platforms = []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: imagebase LAYOUT")
		os.Exit(2)
	}
	d, err := write(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "imagebase:", err)
		os.Exit(1)
	}
	fmt.Println(d)
}

// write adds the base index to the layout at dir (created if missing)
// and returns its digest.
func write(dir string) (v1.Hash, error) {
	idx, err := base()
	if err != nil {
		return v1.Hash{}, err
	}
	d, err := idx.Digest()
	if err != nil {
		return v1.Hash{}, err
	}
	p, err := layout.FromPath(dir)
	if err != nil {
		if p, err = layout.Write(dir, empty.Index); err != nil {
			return v1.Hash{}, err
		}
	}
	// ko looks each platform's image up by digest among the layout's
	// top-level entries too, so they are listed beside the index.
	// Replacing rather than appending keeps one entry each however often
	// this runs.
	im, err := idx.IndexManifest()
	if err != nil {
		return v1.Hash{}, err
	}
	for _, m := range im.Manifests {
		img, err := idx.Image(m.Digest)
		if err != nil {
			return v1.Hash{}, err
		}
		if err := p.ReplaceImage(img, match.Digests(m.Digest)); err != nil {
			return v1.Hash{}, err
		}
	}
	return d, p.ReplaceIndex(idx, match.Digests(d))
}

func base() (v1.ImageIndex, error) {
	files, err := filesLayer()
	if err != nil {
		return nil, err
	}
	var idx v1.ImageIndex = empty.Index
	idx = mutate.IndexMediaType(idx, types.OCIImageIndex)
	for _, plat := range platforms {
		img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), files)
		if err != nil {
			return nil, err
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			return nil, err
		}
		cfg = cfg.DeepCopy()
		cfg.OS, cfg.Architecture = plat.OS, plat.Architecture
		cfg.Config.User = fmt.Sprintf("%d:%d", uid, uid)
		cfg.Config.WorkingDir = home
		cfg.Config.Env = []string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin"}
		if img, err = mutate.ConfigFile(img, cfg); err != nil {
			return nil, err
		}
		p := plat
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	return idx, nil
}

// filesLayer holds the home directory of the user, and /tmp.
func filesLayer() (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0)
	for _, h := range []tar.Header{
		{Name: "home/", Mode: 0o755},
		{Name: "home/nonroot/", Mode: 0o700, Uid: uid, Gid: uid},
		{Name: "tmp/", Mode: 0o1777},
	} {
		h.Typeflag, h.ModTime, h.Format = tar.TypeDir, epoch, tar.FormatPAX
		if err := tw.WriteHeader(&h); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}
