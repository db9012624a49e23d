package units

import (
	"math"
	"testing"
)

// Products and sums that wrap in uint64 saturate; those that fit are exact.
func TestMulAddSaturate(t *testing.T) {
	for _, c := range []struct{ a, b, mul, add uint64 }{
		{0, 0, 0, 0},
		{3, 5, 15, 8},
		{1 << 32, 1 << 31, 1 << 63, 1<<32 + 1<<31},
		{1 << 32, 1 << 32, math.MaxUint64, 1 << 33},
		{1 << 63, 4, math.MaxUint64, 1<<63 + 4},
		{math.MaxUint64, 1, math.MaxUint64, math.MaxUint64},
		{math.MaxUint64, 0, 0, math.MaxUint64},
		{1 << 63, 1 << 63, math.MaxUint64, math.MaxUint64},
	} {
		if got := Mul(c.a, c.b); got != c.mul {
			t.Errorf("Mul(%d, %d) = %d, want %d", c.a, c.b, got, c.mul)
		}
		if got := Add(c.a, c.b); got != c.add {
			t.Errorf("Add(%d, %d) = %d, want %d", c.a, c.b, got, c.add)
		}
	}
}
