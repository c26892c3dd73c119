package tokens

import "testing"

func TestEstimate(t *testing.T) {
	tests := []struct{ bytes, want int64 }{
		{-1, 0}, {0, 0}, {1, 1}, {3, 1}, {4, 1}, {5, 2}, {8, 2}, {9, 3}, {20000, 5000}, {20001, 5001},
	}
	for _, tt := range tests {
		if got := Estimate(tt.bytes); got != tt.want {
			t.Errorf("Estimate(%d) = %d, want %d", tt.bytes, got, tt.want)
		}
	}
}

func TestBytesIsTheLargestSizeThatFits(t *testing.T) {
	for tok := int64(0); tok < 50; tok++ {
		b := Bytes(tok)
		if Estimate(b) > tok {
			t.Errorf("Estimate(Bytes(%d)) = %d, over", tok, Estimate(b))
		}
		if Estimate(b+1) <= tok {
			t.Errorf("Bytes(%d) = %d is not the largest size that fits", tok, b)
		}
	}
}
