package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/stax-dev/stax/pkg/errdefs"
)

// chunkedRepository uploads blobs in PATCH chunks of at most chunkSize
// bytes, for registries that limit the size of one request (some proxies
// in front of registries; GHCR, ECR and GAR take monolithic uploads).
// Every other operation is the repository's own.
type chunkedRepository struct {
	*remote.Repository
	chunkSize int64
}

// Uploads returns the target to push into repo: repo itself, or with
// chunked blob uploads when the client was made with a ChunkSize.
func (c *Client) Uploads(repo *remote.Repository) oras.GraphTarget {
	if c.opts.ChunkSize <= 0 {
		return repo
	}
	return &chunkedRepository{Repository: repo, chunkSize: c.opts.ChunkSize}
}

func (r *chunkedRepository) Push(ctx context.Context, desc ocispec.Descriptor, blob io.Reader) error {
	if isManifest(desc.MediaType) {
		return r.Repository.Push(ctx, desc, blob)
	}
	ctx = auth.AppendRepositoryScope(ctx, r.Reference, auth.ActionPull, auth.ActionPush)
	scheme := "https"
	if r.PlainHTTP {
		scheme = "http"
	}
	start := &url.URL{Scheme: scheme, Host: r.Reference.Host(), Path: "/v2/" + r.Reference.Repository + "/blobs/uploads/"}
	resp, err := r.do(ctx, http.MethodPost, start, nil, nil)
	if err != nil {
		return err
	}
	location, err := nextLocation(resp, http.StatusAccepted)
	if err != nil {
		return err
	}
	buf := make([]byte, min(r.chunkSize, max(desc.Size, 1)))
	var offset int64
	for {
		n, rerr := io.ReadFull(blob, buf)
		if n > 0 {
			header := http.Header{
				"Content-Type":  {"application/octet-stream"},
				"Content-Range": {fmt.Sprintf("%d-%d", offset, offset+int64(n)-1)},
			}
			resp, err := r.do(ctx, http.MethodPatch, location, header, buf[:n])
			if err != nil {
				return err
			}
			if location, err = nextLocation(resp, http.StatusAccepted); err != nil {
				return err
			}
			offset += int64(n)
		}
		if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
			break
		}
		if rerr != nil {
			return rerr
		}
	}
	if offset != desc.Size {
		// What was handed to the upload is at fault, not the registry.
		return errdefs.MarkDataLoss(fmt.Errorf("blob %s: the content pushed does not match its digest (%d bytes read, %d expected); the upload was not committed", desc.Digest, offset, desc.Size))
	}
	q := location.Query()
	q.Set("digest", desc.Digest.String())
	location.RawQuery = q.Encode()
	resp, err = r.do(ctx, http.MethodPut, location, nil, nil)
	if err != nil {
		return err
	}
	_, err = nextLocation(resp, http.StatusCreated)
	return err
}

// do sends one request of an upload; body is resent whole on a retry.
func (r *chunkedRepository) do(ctx context.Context, method string, u *url.URL, header http.Header, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	return r.Client.Do(req)
}

// nextLocation checks that resp has status want and returns where the
// upload continues.
func nextLocation(resp *http.Response, want int) (*url.URL, error) {
	defer resp.Body.Close()
	if resp.StatusCode != want {
		return nil, errorResponse(resp)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	loc, err := resp.Location()
	if err != nil && want != http.StatusCreated {
		return nil, fmt.Errorf("%s %s: no upload location: %w", resp.Request.Method, resp.Request.URL, err)
	}
	return loc, nil
}

// errorResponse reads a registry's error answer as oras-go does, so that
// Explain treats it alike.
func errorResponse(resp *http.Response) error {
	var body struct {
		Errors errcode.Errors `json:"errors"`
	}
	_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&body)
	return &errcode.ErrorResponse{Method: resp.Request.Method, URL: resp.Request.URL, StatusCode: resp.StatusCode, Errors: body.Errors}
}

func isManifest(mediaType string) bool {
	switch mediaType {
	case ocispec.MediaTypeImageManifest, ocispec.MediaTypeImageIndex,
		"application/vnd.docker.distribution.manifest.v2+json", "application/vnd.docker.distribution.manifest.list.v2+json":
		return true
	}
	return false
}
