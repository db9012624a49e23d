package process

import (
	"testing"

	"github.com/balloc/balloc/kernels"
)

// K-Thinning's cursors follow the limit ⌈t/n + θ⌉ when t also goes down
// (the deletions model passes the balls present): along a random walk of t
// every answer equals Thinning.At's, computed afresh.
func TestThinCursorFollowsFallingT(t *testing.T) {
	r := kernels.NewPCG32(5, 6)
	for _, c := range []struct {
		n     uint64
		theta float64
	}{{3, 0.5}, {10, -1.25}, {7, 0}, {100, 2.5}} {
		cs := newThinCursors(c.n, []float64{c.theta})
		th := NewThinning(c.n, c.theta)
		tt := uint64(0)
		for step := range 20000 {
			switch {
			case r.Bounded(3) > 0 || tt == 0:
				tt += uint64(r.Bounded(uint32(2 * c.n)))
			default:
				tt -= min(tt, uint64(r.Bounded(uint32(3*c.n))))
			}
			limit, last := cs[0].at(tt)
			wl, wlast := th.At(tt)
			if limit != wl || last < tt || last > wlast {
				t.Fatalf("n=%d θ=%v step %d t=%d: cursor %d (to %d), At %d (to %d)", c.n, c.theta, step, tt, limit, last, wl, wlast)
			}
		}
	}
}
