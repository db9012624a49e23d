package process

import (
	"math"
	"math/big"
	"strings"
	"testing"
)

// kThinningIndex is ⌊n(1 − 2^(−1/c))⌋: it brackets n·2^(−1/c) between two
// integers exactly, (n − idx − 1)^c < n^c/2 < (n − idx)^c, and agrees with
// the authors' floating-point formula for every n and c tried.
func TestKThinningIndexExact(t *testing.T) {
	pow := func(x uint64, c int) *big.Int {
		return new(big.Int).Exp(new(big.Int).SetUint64(x), big.NewInt(int64(c)), nil)
	}
	for _, n := range []uint64{1, 2, 3, 4, 5, 7, 10, 100, 1000, 12345, 1 << 20, 1<<32 - 1} {
		for c := 2; c <= maxK; c++ {
			idx := kThinningIndex(n, c)
			nc := pow(n, c)
			hi := pow(n-idx, c)
			if hi.Lsh(hi, 1).Cmp(nc) <= 0 {
				t.Fatalf("n=%d c=%d: idx %d too large", n, c, idx)
			}
			if idx+1 < n {
				lo := pow(n-idx-1, c)
				if lo.Lsh(lo, 1).Cmp(nc) >= 0 {
					t.Fatalf("n=%d c=%d: idx %d too small", n, c, idx)
				}
			}
			if f := uint64(math.Floor(float64(n) * (1 - math.Pow(2, -1/float64(c))))); f != idx {
				t.Errorf("n=%d c=%d: exact %d, floating point %d", n, c, idx, f)
			}
		}
	}
}

// --thresholds reads quantile or K − 1 reals, and Check wants their count
// to be K − 1.
func TestKThinningThresholds(t *testing.T) {
	for _, c := range []struct {
		k    string
		th   string
		want string // "" when legal
	}{
		{"3", "0.5,1", ""}, {"2", "quantile", ""}, {"7", "quantile", ""}, {"2", "-1e9", ""},
		{"3", "0.5", "takes K − 1 = 2 thresholds"}, {"2", "1,2", "takes K − 1 = 1 thresholds"},
		{"3", "1,,2", "want quantile or"}, {"3", "1,NaN", "want quantile or"}, {"3", "Quantile", "want quantile or"},
		{"3", "1,2e15", "want quantile or"},
	} {
		p := &KThinning{}
		err := Apply(p, map[string]string{"k": c.k, "thresholds": c.th}, nil)
		if err == nil {
			err = p.Check(&Setup{Bins: 10})
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("--k %s --thresholds %s: %v", c.k, c.th, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--thresholds")):
			t.Errorf("--k %s --thresholds %s: %v, want an error naming --thresholds saying %q", c.k, c.th, err, c.want)
		}
	}
}

// The cursor's limits and stretch ends are Thinning.At's for every ball,
// walking t forward one stretch at a time (as the steppers do) and in jumps.
func TestThinCursorMatchesAt(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 7, 100} {
		for _, theta := range []float64{0, 0.5, 1, -0.3, 2.75, 1.0 / 3, -5, -1e9, 1e15} {
			th := NewThinning(n, theta)
			c := thinCursor{th: th, n: n}
			for u := uint64(0); u < 50*n; u++ {
				limit, last := c.at(u)
				wl, wlast := th.At(u)
				if limit != wl || last != wlast {
					t.Fatalf("n=%d θ=%v t=%d: cursor (%d, %d), At (%d, %d)", n, theta, u, limit, last, wl, wlast)
				}
			}
			c = thinCursor{th: th, n: n}
			for u := uint64(0); u < 2e4; u += 3*n + 1 {
				limit, last := c.at(u)
				if wl, wlast := th.At(u); limit != wl || last != wlast {
					t.Fatalf("n=%d θ=%v t=%d (jumps): cursor (%d, %d), At (%d, %d)", n, theta, u, limit, last, wl, wlast)
				}
			}
		}
	}
}
