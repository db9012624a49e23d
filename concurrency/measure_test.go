package concurrency

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

// literalShare is a worker's number of balls as Config documents it: m/W,
// the first m mod W workers one more.
func literalShare(m uint64, W, w int) uint64 {
	s := m / uint64(W)
	if uint64(w) < m%uint64(W) {
		s++
	}
	return s
}

// Every K-th ball of each worker is measured, its last one included when
// its share is a multiple of K: the global staleness counts exactly
// Σ_w ⌊share_w/K⌋ balls, in every mode, real and emulated. Catches a
// worker's last measured ball left out of the tally (the loop's measured
// test also asking k < count): with shares that are multiples of K the
// count falls short by one a worker.
func TestMeasuredBallsAllCounted(t *testing.T) {
	const K = 7
	for _, mode := range []Mode{Racy, CAS, LocalBatch, Sharded} {
		for _, W := range []int{1, 2, 3} {
			for _, m := range []uint64{uint64(W) * K * 300, uint64(W)*K*300 + 5} {
				for _, emu := range []bool{false, true} {
					for _, proc := range []string{"two-choice", "one-choice"} { // two-choice takes the racy fast path between measured balls
						name := fmt.Sprintf("%s/W=%d/m=%d/emulate=%v/%s", mode, W, m, emu, proc)
						res, err := Run(Config{Spec: spec(t, proc, nil, 500, m, 11), Workers: W, Mode: mode, Batch: 5, MeasureEvery: K, Emulate: emu})
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						want := uint64(0)
						for w := range W {
							want += literalShare(m, W, w) / K
						}
						if got := res.GlobalStaleness.Count; got != want {
							t.Errorf("%s: %d balls measured, want Σ⌊share/%d⌋ = %d", name, got, K, want)
						}
					}
				}
			}
		}
	}
}

// One worker: a measured ball's global staleness is the balls committed
// between its read of the total and its own commit, its own excluded. In
// racy and cas that is none; in local-batch with batch B the ball at place
// q of its batch (from 0) follows the q balls committed before it in the
// same batch, all read before the batch began: age q. The whole law is
// checked against that literal count. Catches the age taken before the
// ball's own commit is published (q − 1, wrapping to 2^64 − 1 at q = 0),
// or counting its own ball (q + 1).
func TestOneWorkerMeasuredAgesExact(t *testing.T) {
	const m, K, B = 10007, 3, 5
	for _, mode := range []Mode{Racy, CAS, LocalBatch} {
		for _, proc := range []string{"two-choice", "one-choice"} {
			res, err := Run(Config{Spec: spec(t, proc, nil, 1000, m, 12), Workers: 1, Mode: mode, Batch: B, MeasureEvery: K})
			if err != nil {
				t.Fatal(err)
			}
			count := map[uint64]uint64{}
			for k := uint64(K); k <= m; k += K {
				age := uint64(0)
				if mode == LocalBatch {
					age = (k - 1) % B
				}
				count[age]++
			}
			var want [][2]uint64
			for _, a := range slices.Sorted(maps.Keys(count)) {
				want = append(want, [2]uint64{a, count[a]})
			}
			if got := res.GlobalStaleness.Histogram; !slices.Equal(got, want) {
				t.Errorf("%s %s: global staleness of the measured balls %v, want %v", mode, proc, got, want)
			}
		}
	}
}
