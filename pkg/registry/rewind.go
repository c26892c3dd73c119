package registry

import (
	"io"
	"net/http"
	"syscall"
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
	clone.Body = keepOpen(seeker)
	clone.GetBody = func() (io.ReadCloser, error) {
		if _, err := seeker.Seek(start, io.SeekStart); err != nil {
			return nil, err
		}
		return keepOpen(seeker), nil
	}
	return t.next.RoundTrip(clone)
}

// keepOpen is r with a Close that does nothing. A file stays one to the
// transport (syscall.Conn), which then sends it with sendfile on a plain
// TCP connection; io.NopCloser would hide that.
func keepOpen(r io.ReadSeeker) io.ReadCloser {
	if f, ok := r.(file); ok {
		return openFile{f}
	}
	return io.NopCloser(r)
}

type file interface {
	io.ReadSeeker
	syscall.Conn
}

type openFile struct{ file }

func (openFile) Close() error { return nil }
