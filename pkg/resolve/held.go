package resolve

import (
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"

	"github.com/stax-dev/stax/pkg/artifact"
)

// heldBlobs is a view of a registry repository that keeps, while
// recording, the verified bytes of what is fetched through it, and then
// serves them, and the descriptors of the manifests among them, without a
// request. Resolving a package fetches and checks its manifest and config
// through it; storing the package afterwards needs both again.
type heldBlobs struct {
	oras.GraphTarget
	mu        sync.Mutex
	recording bool
	blobs     map[digest.Digest][]byte
	manifests map[string]ocispec.Descriptor // by digest
}

func holdBlobs(t oras.GraphTarget) *heldBlobs {
	return &heldBlobs{GraphTarget: t, recording: true, blobs: map[digest.Digest][]byte{}, manifests: map[string]ocispec.Descriptor{}}
}

// hold keeps manifest, the content of desc fetched with the lookup that
// found it, when it is a manifest small enough to read: what is not is
// left to be fetched, and refused, as any other. It closes manifest.
func (h *heldBlobs) hold(desc ocispec.Descriptor, manifest io.ReadCloser) {
	defer manifest.Close()
	if desc.MediaType != ocispec.MediaTypeImageManifest || desc.Size < 0 || desc.Size > artifact.MaxMetadataSize {
		return
	}
	// A manifest that does not read whole is fetched again, and its
	// failure reported then.
	_, _ = h.keep(desc, manifest)
}

// keep reads the blob desc names from rc, checking its size and digest,
// and holds it.
func (h *heldBlobs) keep(desc ocispec.Descriptor, rc io.Reader) ([]byte, error) {
	b, err := content.ReadAll(rc, desc)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.blobs[desc.Digest] = b
	if desc.MediaType == ocispec.MediaTypeImageManifest {
		h.manifests[desc.Digest.String()] = desc
	}
	h.mu.Unlock()
	return b, nil
}

// heldBytes is the blob d, when it is held.
func (h *heldBlobs) heldBytes(d digest.Digest) ([]byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	b, ok := h.blobs[d]
	return b, ok
}

// stopRecording keeps what was fetched so far, and nothing more: what is
// fetched from now on (a layer) streams from the repository.
func (h *heldBlobs) stopRecording() {
	h.mu.Lock()
	h.recording = false
	h.mu.Unlock()
}

func (h *heldBlobs) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	h.mu.Lock()
	b, held := h.blobs[desc.Digest]
	recording := h.recording
	h.mu.Unlock()
	if held && int64(len(b)) == desc.Size {
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	rc, err := h.GraphTarget.Fetch(ctx, desc)
	if err != nil || !recording {
		return rc, err
	}
	defer rc.Close()
	if b, err = h.keep(desc, rc); err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (h *heldBlobs) Resolve(ctx context.Context, reference string) (ocispec.Descriptor, error) {
	h.mu.Lock()
	desc, ok := h.manifests[reference]
	h.mu.Unlock()
	if ok {
		return desc, nil
	}
	return h.GraphTarget.Resolve(ctx, reference)
}
