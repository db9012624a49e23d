package sweep

import (
	"math/rand/v2"
	"testing"

	"github.com/balloc/balloc/core"
)

// The lazy job list is the obvious one: every trial of every point, in
// order, that is in the shard and not done. Random grids of 1–5 points, up
// to 40 trials, 1–5 shards, random done sets (with repeats and trials
// outside the grid); an off-by-one in the progression's start, in the
// count, or in the search past done trials makes the two lists differ.
func TestJobsMatchTheObviousList(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		g := &Grid{}
		points := 1 + rng.IntN(5)
		for range points {
			g.Specs = append(g.Specs, &core.Spec{Common: core.Common{Trials: rng.IntN(41)}})
			g.Hashes = append(g.Hashes, []string{"00", "0f", "a3", "ffffffffffffffff", "7b2c"}[rng.IntN(5)])
		}
		sn := 1 + uint64(rng.IntN(5))
		si := uint64(rng.IntN(int(sn)))
		done := make([][]uint64, points)
		isDone := map[[2]uint64]bool{}
		for p := range points {
			for range rng.IntN(30) {
				tr := uint64(rng.IntN(45))
				done[p] = append(done[p], tr)
				isDone[[2]uint64{uint64(p), tr}] = true
			}
		}
		var want [][2]uint64
		for p, s := range g.Specs {
			for tr := range uint64(s.Trials) {
				if ShardOf(g.Hashes[p], tr, sn) == si && !isDone[[2]uint64{uint64(p), tr}] {
					want = append(want, [2]uint64{uint64(p), tr})
				}
			}
		}
		js := NewJobs(g, si, sn, done)
		if js.Total() != uint64(len(want)) {
			t.Fatalf("shard %d/%d: %d jobs, want %d", si, sn, js.Total(), len(want))
		}
		for j, w := range want {
			if p, tr := js.At(uint64(j)); uint64(p) != w[0] || tr != w[1] {
				t.Fatalf("shard %d/%d job %d: point %d trial %d, want %d %d", si, sn, j, p, tr, w[0], w[1])
			}
		}
	}
}
