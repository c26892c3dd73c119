package store

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
)

// TeeBlob hands read the bytes it stores, and keeps them only when read
// succeeded and they match the descriptor; the error names what went
// wrong first. Nothing is ever left in ingest.
func TestTeeBlob(t *testing.T) {
	data := bytes.Repeat([]byte("layer bytes "), 100_000)
	desc := ocispec.Descriptor{Digest: digest.FromBytes(data), Size: int64(len(data))}
	other := append(bytes.Clone(data[:len(data)-1]), '!')
	errRead := errors.New("read refused the stream")
	readHalf := func(got *[]byte) func(io.Reader) error {
		return func(r io.Reader) error {
			var err error
			*got, err = io.ReadAll(io.LimitReader(r, int64(len(data)/2)))
			return err
		}
	}
	for name, tt := range map[string]struct {
		src     io.Reader
		read    func(*[]byte) func(io.Reader) error
		wantErr func(error) bool
	}{
		"whole":                {bytes.NewReader(data), nil, nil},
		"read stops half way":  {bytes.NewReader(data), readHalf, nil},
		"mismatch":             {bytes.NewReader(other), nil, isMismatch},
		"longer":               {io.MultiReader(bytes.NewReader(data), bytes.NewReader([]byte("x"))), nil, isMismatch},
		"shorter":              {bytes.NewReader(data[1:]), nil, isMismatch},
		"source fails":         {io.MultiReader(bytes.NewReader(data[:100]), iotest.ErrReader(io.ErrClosedPipe)), nil, func(err error) bool { return errors.Is(err, io.ErrClosedPipe) }},
		"read fails, bad blob": {bytes.NewReader(other), func(*[]byte) func(io.Reader) error { return func(io.Reader) error { return errRead } }, isMismatch},
		"read fails":           {bytes.NewReader(data), func(*[]byte) func(io.Reader) error { return func(io.Reader) error { return errRead } }, func(err error) bool { return errors.Is(err, errRead) }},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var got []byte
			read := func(r io.Reader) error {
				var err error
				got, err = io.ReadAll(r)
				return err
			}
			if tt.read != nil {
				read = tt.read(&got)
			}
			err := TeeBlob(dir, desc, tt.src, read)
			stored, statErr := os.ReadFile(filepath.Join(dir, "blobs", "sha256", desc.Digest.Encoded()))
			if tt.wantErr == nil {
				if err != nil || statErr != nil || !bytes.Equal(stored, data) || !bytes.Equal(got, data[:len(got)]) || len(got) == 0 {
					t.Errorf("TeeBlob: %v; stored %d bytes (%v), read %d", err, len(stored), statErr, len(got))
				}
			} else if !tt.wantErr(err) || statErr == nil {
				t.Errorf("TeeBlob: %v; stored: %v", err, statErr == nil)
			}
			if entries, _ := os.ReadDir(filepath.Join(dir, "ingest")); len(entries) > 0 {
				t.Errorf("left in ingest: %s", entries[0].Name())
			}
		})
	}
}

func isMismatch(err error) bool { return errors.Is(err, content.ErrMismatchedDigest) }
