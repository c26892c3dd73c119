package transfer

import (
	"context"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/registry"
)

// mountOrUpload returns dst as the destination of a copy: when dst can
// mount, a mount the registry refuses outright becomes an upload. The OCI
// distribution spec has a registry that will not mount answer 202 and
// start an upload, which oras-go follows; some answer an error instead
// (403 for a repository the credentials cannot read, 404, 405), which
// would fail the copy.
func mountOrUpload(dst oras.GraphTarget) oras.GraphTarget {
	if m, ok := dst.(registry.Mounter); ok {
		return uploadingMounter{GraphTarget: dst, mounter: m}
	}
	return dst
}

type uploadingMounter struct {
	oras.GraphTarget
	mounter registry.Mounter
}

// Mount mounts desc from the repository from, else sends what getContent
// gives. getContent failing (oras-go's sign to try its next repository)
// ends the attempt with its error.
func (u uploadingMounter) Mount(ctx context.Context, desc ocispec.Descriptor, from string, getContent func() (io.ReadCloser, error)) error {
	var fetched bool
	err := u.mounter.Mount(ctx, desc, from, func() (io.ReadCloser, error) {
		fetched = true
		return getContent()
	})
	if err == nil || fetched || ctx.Err() != nil {
		return err
	}
	rc, err := getContent()
	if err != nil {
		return err
	}
	defer rc.Close()
	return u.GraphTarget.Push(ctx, desc, rc)
}
