package registry

import (
	"io"
	"net/http"
)

// rewindableBodies lets the retry transport resend a request whose body is
// a file. oras-go streams blob uploads from the source as they come; the
// retry transport can only resend a body it can rewind (GetBody), so
// without this a blob PUT that met a 5xx or a reset connection could not
// be retried at all.
type rewindableBodies struct {
	next http.RoundTripper
}

func (t rewindableBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.GetBody != nil {
		return t.next.RoundTrip(req)
	}
	seeker, ok := req.Body.(io.ReadSeeker)
	if !ok {
		return t.next.RoundTrip(req)
	}
	start, err := seeker.Seek(0, io.SeekCurrent)
	if err != nil {
		return t.next.RoundTrip(req)
	}
	clone := req.Clone(req.Context())
	// The transport closes a request body once sent; the file must stay
	// open for a retry, and its owner closes it.
	clone.Body = io.NopCloser(seeker)
	clone.GetBody = func() (io.ReadCloser, error) {
		if _, err := seeker.Seek(start, io.SeekStart); err != nil {
			return nil, err
		}
		return io.NopCloser(seeker), nil
	}
	return t.next.RoundTrip(clone)
}
