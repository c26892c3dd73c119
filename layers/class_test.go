package layers

import (
	"fmt"
	"io"
	"io/fs"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
)

func TestClass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want errdefs.Class
	}{
		{&DigestMismatchError{}, errdefs.DataLoss},
		{fmt.Errorf("walk: %w", &UnsafeEntryError{Path: "../x", Reason: "traversal"}), errdefs.FailedPrecondition},
		{&SizeError{Size: 2, Limit: 1}, errdefs.FailedPrecondition},
		{fmt.Errorf("extract: %w", fmt.Errorf("%w: not empty", ErrDestinationInUse)), errdefs.FailedPrecondition},
		{fmt.Errorf("write: %w", &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrPermission}), errdefs.Local},
		{fmt.Errorf("gzip: %w", io.ErrUnexpectedEOF), errdefs.DataLoss},
	}
	for _, tt := range tests {
		if got := Class(tt.err); got != tt.want {
			t.Errorf("Class(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
