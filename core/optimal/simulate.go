package optimal

import (
	"math"

	"github.com/balloc/balloc/kernels"
)

// Tracker follows a run's loads for a Policy: the bins per load, from
// which it ranks the state before each ball. It assumes empty bins at the
// start and one Place per ball, in order.
type Tracker struct {
	p     *Policy
	count []uint32 // bins per load, loads 0..m
	parts []uint32 // scratch: the sorted positive loads, descending
	top   uint32   // the maximum load
}

// NewTracker starts a run from empty bins.
func (p *Policy) NewTracker() *Tracker {
	sp := p.Space
	tr := &Tracker{p: p, count: make([]uint32, sp.M+2), parts: make([]uint32, 0, min(sp.N, sp.M)+1)}
	tr.count[0] = uint32(sp.N)
	return tr
}

// Place puts ball t+1 (t < m balls placed, all by Place) into loads by the
// policy: up to K uniform samples from r, sample c (c samples left) kept
// when the table says so, the last kept. It returns the bin's new load.
// O(n + max load) a ball (the state's rank), nothing allocated.
func Place[L kernels.Load](tr *Tracker, loads []L, r *kernels.PCG32, t int) L {
	sp, k := tr.p.Space, tr.p.K
	state := tr.rank(t)
	moves := sp.MovesOf(t, state)
	n := uint32(len(loads))
	bin := r.Bounded(n)
	for c := k; c >= 2; c-- {
		if tr.p.Keep(t, state, moveOf(moves, uint32(loads[bin])), c) {
			break
		}
		bin = r.Bounded(n)
	}
	l := uint32(loads[bin])
	loads[bin]++
	tr.count[l]--
	tr.count[l+1]++
	tr.top = max(tr.top, l+1)
	return loads[bin]
}

// PlaceLevels is Place on the histogram engine's level counts, which the
// Tracker follows: a sample is a uniform rank in [0, n) in the order of
// loads, whose load is the move whose cumulative count exceeds it (moves
// ascend by load) — the same law as a uniform bin of the load array. It
// returns the bin's new load. O(n + max load) a ball, nothing allocated.
func PlaceLevels(tr *Tracker, lv *kernels.Levels, r *kernels.PCG32, t int) uint64 {
	sp, k := tr.p.Space, tr.p.K
	state := tr.rank(t)
	moves := sp.MovesOf(t, state)
	n := uint32(sp.N)
	i := moveAt(moves, r.Bounded(n))
	for c := k; c >= 2; c-- {
		if tr.p.Keep(t, state, i, c) {
			break
		}
		i = moveAt(moves, r.Bounded(n))
	}
	l := moves[i].Load
	lv.Move(int(uint64(l) - lv.Min()))
	tr.count[l]--
	tr.count[l+1]++
	tr.top = max(tr.top, l+1)
	return uint64(l) + 1
}

// moveAt is the move of the bin of rank x in the order of loads.
func moveAt(moves []Move, x uint32) int {
	for i, mv := range moves {
		if x < mv.Count {
			return i
		}
		x -= mv.Count
	}
	panic("optimal: a rank beyond the bins")
}

// rank is the state of the tracked loads at level t.
func (tr *Tracker) rank(t int) int {
	parts := tr.parts[:0]
	for l := tr.top; l >= 1; l-- {
		for range tr.count[l] {
			parts = append(parts, l)
		}
	}
	return int(tr.p.Space.c.rank(parts, t, tr.p.Space.N))
}

// moveOf is the index of the move of load l (moves ascend by load).
func moveOf(moves []Move, l uint32) int {
	for i, mv := range moves {
		if mv.Load == l {
			return i
		}
	}
	panic("optimal: a sampled load that the state does not hold (the loads were not all placed by Place)")
}

// run places m balls from empty bins and returns the maximum load.
func (p *Policy) run(loads []uint32, r *kernels.PCG32) uint32 {
	clear(loads)
	tr := p.NewTracker()
	var top uint32
	for t := 0; t < p.Space.M; t++ {
		top = max(top, Place(tr, loads, r, t))
	}
	return top
}

// Simulate runs trials of the policy, trial i on kernels.TrialStream(seed,
// i, LaneChoices), and returns the mean maximum load and its standard error.
func (p *Policy) Simulate(seed uint64, trials int) (mean, se float64) {
	loads := make([]uint32, p.Space.N)
	var sum, sq float64
	for i := range trials {
		r := kernels.TrialStream(seed, uint64(i), kernels.LaneChoices)
		x := float64(p.run(loads, &r))
		sum += x
		sq += x * x
	}
	n := float64(trials)
	mean = sum / n
	if trials > 1 {
		se = math.Sqrt(max(sq/n-mean*mean, 0) * n / (n - 1) / n)
	}
	return mean, se
}
