package layers

import (
	"fmt"
	"io"
	"io/fs"
	"testing"

	"github.com/stax-dev/stax/pkg/exitcode"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{&DigestMismatchError{}, exitcode.Verification},
		{fmt.Errorf("walk: %w", &UnsafeEntryError{Path: "../x", Reason: "traversal"}), exitcode.Materialization},
		{&SizeError{Size: 2, Limit: 1}, exitcode.Materialization},
		{fmt.Errorf("extract: %w", fmt.Errorf("%w: not empty", ErrDestinationInUse)), exitcode.Materialization},
		{fmt.Errorf("write: %w", &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrPermission}), exitcode.FileSystem},
		{fmt.Errorf("gzip: %w", io.ErrUnexpectedEOF), exitcode.Verification},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
