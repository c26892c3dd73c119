package transfer

import (
	"math"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/stax-dev/stax/layers"
)

// The size budget of a copy: every blob counted, a negative size or a sum
// past the 64-bit maximum refused, the limit enforced when positive.
func TestSizeBudget(t *testing.T) {
	tests := []struct {
		name  string
		limit int64
		sizes []int64
		ok    bool
	}{
		{"under the limit", 100, []int64{40, 60}, true},
		{"over the limit", 100, []int64{60, 41}, false},
		{"no limit", -1, []int64{1 << 40, 1 << 40}, true},
		{"negative size", -1, []int64{-1}, false},
		{"overflow", -1, []int64{math.MaxInt64, 1}, false},
	}
	for _, tt := range tests {
		b := &sizeBudget{limit: tt.limit}
		var err error
		for _, s := range tt.sizes {
			if err = b.add(ocispec.Descriptor{Size: s}); err != nil {
				break
			}
		}
		if (err == nil) != tt.ok {
			t.Errorf("%s: err = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
	if limit(0) != layers.DefaultMaxSize || limit(-1) != -1 || limit(5) != 5 {
		t.Error("limit: 0 is the default, negative none, else itself")
	}
}
