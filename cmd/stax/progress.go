package main

import (
	"errors"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/stax-dev/stax/pkg/artifact"
)

// progressBars draws a bar per blob, with bytes and rate, on a terminal.
type progressBars struct {
	p *mpb.Progress
}

func newProgressBars(w io.Writer) *progressBars {
	// The caller decided w is a terminal; mpb cannot tell through an io.Writer.
	return &progressBars{p: mpb.New(mpb.WithOutput(w), mpb.WithWidth(32), mpb.WithAutoRefresh())}
}

func blobLabel(desc ocispec.Descriptor) string {
	label := desc.Digest.Encoded()
	if len(label) > 12 {
		label = label[:12]
	}
	if title := desc.Annotations[artifact.AnnotationTitle]; title != "" {
		label += " " + title
	}
	return label
}

// Track wraps r in a reader that moves a bar.
func (b *progressBars) Track(desc ocispec.Descriptor, r io.ReadCloser) io.ReadCloser {
	bar := b.p.AddBar(desc.Size,
		mpb.PrependDecorators(decor.Name(blobLabel(desc), decor.WCSyncSpaceR)),
		mpb.AppendDecorators(
			decor.CountersKibiByte("% .1f / % .1f"),
			decor.Name(" "),
			decor.AverageSpeed(decor.SizeB1024(0), "% .1f"),
		),
	)
	return &trackedReader{ReadCloser: r, bar: bar, size: desc.Size}
}

// Skipped shows a finished bar for a blob the destination had.
func (b *progressBars) Skipped(desc ocispec.Descriptor) {
	bar := b.p.AddBar(desc.Size,
		mpb.PrependDecorators(decor.Name(blobLabel(desc), decor.WCSyncSpaceR)),
		mpb.AppendDecorators(decor.Name("exists")),
	)
	bar.SetCurrent(desc.Size)
}

// Wait finishes drawing.
func (b *progressBars) Wait() { b.p.Wait() }

// trackedReader counts bytes into a bar. It keeps Seek so that the upload
// it feeds can still be rewound and resent on a retry.
type trackedReader struct {
	io.ReadCloser
	bar *mpb.Bar
	// pos and size are the reader's own account of progress; asking the
	// bar would race with its rendering.
	pos, size int64
}

func (t *trackedReader) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.pos += int64(n)
	t.bar.IncrBy(n)
	return n, err
}

func (t *trackedReader) Seek(offset int64, whence int) (int64, error) {
	seeker, ok := t.ReadCloser.(io.Seeker)
	if !ok {
		return 0, errors.New("blob reader cannot seek")
	}
	pos, err := seeker.Seek(offset, whence)
	if err == nil {
		t.pos = pos
		t.bar.SetCurrent(pos)
	}
	return pos, err
}

func (t *trackedReader) Close() error {
	if t.pos < t.size {
		t.bar.Abort(false)
	}
	return t.ReadCloser.Close()
}
