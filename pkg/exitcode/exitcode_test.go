package exitcode

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
)

func TestOf(t *testing.T) {
	plain := errors.New("x")
	tests := []struct {
		err     error
		code    int
		claimed bool
	}{
		{nil, OK, true},
		{errdefs.Invalid(plain), Validation, true},
		{errdefs.MarkLocal(plain), FileSystem, true},
		{errdefs.MarkUnavailable(plain), Registry, true},
		{errdefs.Resolution(plain), Resolution, true},
		{errdefs.Precondition(plain), Materialization, true},
		{fmt.Errorf("read: %w", errdefs.MarkDataLoss(plain)), Verification, true},
		{&fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}, FileSystem, true},
		{plain, FileSystem, false},
	}
	for _, tt := range tests {
		code, claimed := Of(tt.err)
		if code != tt.code || claimed != tt.claimed {
			t.Errorf("Of(%v) = %d, %v; want %d, %v", tt.err, code, claimed, tt.code, tt.claimed)
		}
	}
}
