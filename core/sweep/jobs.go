package sweep

import (
	"sort"
	"strconv"
)

// Jobs lists the trials a sweep still runs, in canonical order (grid
// point by grid point, trials increasing) without holding one entry per
// trial: a grid point's trials in shard i of N are an arithmetic
// progression, and only the trials already done are stored, so a sweep of
// 2^31 trials costs its grid, not 2^31 entries.
type Jobs struct {
	points []pointJobs
	cum    []uint64 // cum[p]: jobs of the points before p
	total  uint64   // jobs in all
}

// pointJobs is one grid point's share: trials first, first+step, … (count
// of them), less the progression indices in done (sorted).
type pointJobs struct {
	first, step, count uint64
	done               []uint64
}

// NewJobs is the jobs of shard si of sn: trial t of point p is in it
// when ShardOf(hashes[p], t, sn) == si, and runs unless done[p] lists it.
func NewJobs(g *Grid, si, sn uint64, done [][]uint64) *Jobs {
	js := &Jobs{}
	for p, spec := range g.Specs {
		trials := uint64(spec.Trials)
		// ShardOf(h, t, sn) = (off + t) mod sn: the first t with value si.
		first := (si + sn - ShardOf(g.Hashes[p], 0, sn)) % sn
		var count uint64
		if first < trials {
			count = (trials-first-1)/sn + 1
		}
		pj := pointJobs{first: first, step: sn, count: count}
		for _, t := range done[p] {
			if t >= first && t < trials && (t-first)%sn == 0 {
				pj.done = append(pj.done, (t-first)/sn)
			}
		}
		sort.Slice(pj.done, func(a, b int) bool { return pj.done[a] < pj.done[b] })
		pj.done = compactSorted(pj.done)
		js.cum = append(js.cum, js.total)
		js.total += count - uint64(len(pj.done))
		js.points = append(js.points, pj)
	}
	return js
}

// compactSorted drops repeats from sorted xs, in place.
func compactSorted(xs []uint64) []uint64 {
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// At is job j: its grid point and trial.
func (js *Jobs) At(j uint64) (p int, trial uint64) {
	// The last point with cum ≤ j: it has jobs, since a point without any
	// shares its cum with the point after it.
	p = sort.Search(len(js.cum), func(i int) bool { return js.cum[i] > j }) - 1
	pj := &js.points[p]
	r := j - js.cum[p] // the r-th progression index not done
	// The done indices d_c (c = 0, 1, …) below the answer are those with
	// d_c − c ≤ r, a nondecreasing test in c.
	c := sort.Search(len(pj.done), func(c int) bool { return pj.done[c]-uint64(c) > r })
	k := r + uint64(c)
	return p, pj.first + k*pj.step
}

// ShardOf is the shard trial t of the grid point with hash h runs in:
// consecutive trials of a point go to consecutive shards, from an offset
// the hash fixes, so that raising trials or adding grid points later moves
// no trial that already ran to another shard.
func ShardOf(h string, t, n uint64) uint64 {
	off, _ := strconv.ParseUint(h[:min(len(h), 16)], 16, 64)
	return (off%n + t%n) % n
}

// Total is the number of jobs.
func (js *Jobs) Total() uint64 { return js.total }
