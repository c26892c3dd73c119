package layers

import "io"

// inspecting is fn with the content of each file it is given copied, as
// fn reads it, to the writer ReadOptions.Inspect returns for the file.
func inspecting(fn func(Header, io.Reader) error, inspect func(string) io.WriteCloser) func(Header, io.Reader) error {
	return func(h Header, content io.Reader) error {
		if h.Dir {
			return fn(h, content)
		}
		return fn(h, &inspectedContent{path: h.Path, r: content, inspect: inspect})
	}
}

// inspectedContent is a file's content that a check sees as it is read,
// in the same pass that uses it: each chunk read is written to the
// writer Inspect returned for the file, and the writer is closed once the
// content is read to its end. An error of the writer's is the error of
// the read, so a check stops the use of content it refuses. The writer is
// asked for at the first read: a file fn skips costs nothing.
type inspectedContent struct {
	path    string
	r       io.Reader
	inspect func(string) io.WriteCloser
	w       io.WriteCloser
	err     error // the check's refusal, returned by every later read
	closed  bool
}

func (c *inspectedContent) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.w == nil {
		if c.w = c.inspect(c.path); c.w == nil {
			c.w = nopWriteCloser{}
		}
	}
	n, err := c.r.Read(p)
	if n > 0 {
		if _, werr := c.w.Write(p[:n]); werr != nil {
			c.err = werr
			return n, werr
		}
	}
	if err == io.EOF && !c.closed {
		c.closed = true
		if cerr := c.w.Close(); cerr != nil {
			c.err = cerr
			return n, cerr
		}
	}
	return n, err
}

type nopWriteCloser struct{}

func (nopWriteCloser) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriteCloser) Close() error                { return nil }
