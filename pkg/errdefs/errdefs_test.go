package errdefs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

type claims struct{}

func (claims) Error() string { return "claims" }
func (claims) Class() Class  { return DataLoss }

func TestOf(t *testing.T) {
	plain := errors.New("plain")
	tests := []struct {
		name string
		err  error
		want Class
	}{
		{"nil", nil, Unclassified},
		{"plain", plain, Unclassified},
		{"attached", Invalid(plain), InvalidArgument},
		{"wrapped after", fmt.Errorf("ctx: %w", MarkUnavailable(plain)), Unavailable},
		{"innermost kept", Invalid(MarkDataLoss(plain)), DataLoss},
		{"reclassified", Reclassify(Unresolved, MarkDataLoss(plain)), Unresolved},
		{"type claims", fmt.Errorf("x: %w", claims{}), DataLoss},
		{"the type's class kept", Precondition(claims{}), DataLoss},
		{"path error", &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrPermission}, Local},
		{"canceled", fmt.Errorf("run: %w", context.Canceled), Local},
	}
	for _, tt := range tests {
		if got := OfOrLocal(tt.err); got != tt.want {
			t.Errorf("%s: Of = %v, want %v", tt.name, got, tt.want)
		}
	}
	pathErr := &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrPermission}
	if got := Of(Invalid(fmt.Errorf("layout: %w", pathErr))); got != InvalidArgument {
		t.Errorf("a file-system error kept its own class under Invalid: %v", got)
	}
	if With(Local, nil) != nil || Reclassify(Local, nil) != nil {
		t.Error("a nil error got a class")
	}
	if got := Invalid(plain).Error(); got != "plain" {
		t.Errorf("a class changed the message: %q", got)
	}
}
