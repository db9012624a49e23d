package main

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/core/units"
)

// The lazy job list is the obvious one: every trial of every point, in
// order, that is in the shard and not done. Random grids of 1–5 points, up
// to 40 trials, 1–5 shards, random done sets (with repeats and trials
// outside the grid); an off-by-one in the progression's start, in the
// count, or in the search past done trials makes the two lists differ.
func TestSweepJobsMatchTheObviousList(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		g := &sweep.Grid{}
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
				if shardOf(g.Hashes[p], tr, sn) == si && !isDone[[2]uint64{uint64(p), tr}] {
					want = append(want, [2]uint64{uint64(p), tr})
				}
			}
		}
		js := newSweepJobs(g, si, sn, done)
		if js.total != uint64(len(want)) {
			t.Fatalf("shard %d/%d: %d jobs, want %d", si, sn, js.total, len(want))
		}
		for j, w := range want {
			if p, tr := js.at(uint64(j)); uint64(p) != w[0] || tr != w[1] {
				t.Fatalf("shard %d/%d job %d: point %d trial %d, want %d %d", si, sn, j, p, tr, w[0], w[1])
			}
		}
	}
}

// A sweep of 2^31 trials lists no 2^31 jobs (32 GiB) before its memory
// check: refused for memory, it has allocated little, and the refusal
// names the grid point and the flag that drives its size.
func TestSweepTrials2To31AllocatesNoJobList(t *testing.T) {
	avail := units.AvailableMemory()
	if avail == 0 {
		t.Skip("no memory figure on this machine")
	}
	file := tempFile(t, "big.toml", "processes = [\"two-choice\"]\nbins = [\"4e9\"]\nballs = [10]\nengine = \"direct\"\ntrials = \"2^31\"\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, out, errs := run(t, "sweep", file, "--out", t.TempDir()+"/d", "--workers", "2")
	runtime.ReadMemStats(&after)
	oneLineExit2(t, "sweep of 2^31 trials", code, out, errs, "mostly for --bins 4e9")
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("a refused sweep of 2^31 trials allocated %d MiB", grew>>20)
	}
}
