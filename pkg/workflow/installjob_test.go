package workflow

import (
	"errors"
	"testing"

	"github.com/stax-dev/stax/pkg/errdefs"
)

func TestFrozenError(t *testing.T) {
	plain := errors.New("fetch failed")
	tests := []struct {
		frozen bool
		err    error
		want   errdefs.Class
	}{
		{false, errdefs.MarkUnavailable(plain), errdefs.Unavailable}, // not frozen: as it was
		{true, errdefs.MarkUnavailable(plain), errdefs.Unresolved},   // frozen: the lock cannot be honoured
		{true, errdefs.Resolution(plain), errdefs.Unresolved},
	}
	for _, tt := range tests {
		if got := errdefs.Of(frozenError(tt.frozen, tt.err)); got != tt.want {
			t.Errorf("frozenError(%v, %v) class %v, want %v", tt.frozen, tt.err, got, tt.want)
		}
	}
}
