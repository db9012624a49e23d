package optimal

import (
	"math"

	"github.com/balloc/balloc/kernels"
)

// Sim runs a Policy ball by ball on a real load vector: before each ball it
// ranks the sorted loads to find the state, then reads the decision table
// for each sample. O(n + max load) a ball, nothing allocated.
type Sim struct {
	p     *Policy
	loads []uint32 // per bin
	count []uint32 // bins per load, loads 0..m
	parts []uint32 // the sorted positive loads, descending
}

// NewSim prepares runs of p.
func (p *Policy) NewSim() *Sim {
	sp := p.Space
	return &Sim{p: p, loads: make([]uint32, sp.N), count: make([]uint32, sp.M+2), parts: make([]uint32, 0, min(sp.N, sp.M)+1)}
}

// Loads is the load vector after the last Run.
func (s *Sim) Loads() []uint32 { return s.loads }

// Run places m balls from empty bins and returns the maximum load.
func (s *Sim) Run(r *kernels.PCG32) uint32 {
	sp, k := s.p.Space, s.p.K
	clear(s.loads)
	clear(s.count)
	s.count[0] = uint32(sp.N)
	var top uint32
	for t := 0; t < sp.M; t++ {
		state := s.rank(t, top)
		moves := sp.MovesOf(t, state)
		bin := r.Bounded(uint32(sp.N))
		for c := k; c >= 2; c-- {
			if s.p.Keep(t, state, moveOf(moves, s.loads[bin]), c) {
				break
			}
			bin = r.Bounded(uint32(sp.N))
		}
		l := s.loads[bin]
		s.loads[bin] = l + 1
		s.count[l]--
		s.count[l+1]++
		top = max(top, l+1)
	}
	return top
}

// rank is the state of the current loads at level t.
func (s *Sim) rank(t int, top uint32) int {
	parts := s.parts[:0]
	for l := top; l >= 1; l-- {
		for range s.count[l] {
			parts = append(parts, l)
		}
	}
	return int(s.p.Space.c.rank(parts, t, s.p.Space.N))
}

// moveOf is the index of the move of load l (moves ascend by load).
func moveOf(moves []Move, l uint32) int {
	for i, mv := range moves {
		if mv.Load == l {
			return i
		}
	}
	panic("optimal: a sampled load that the state does not hold")
}

// Simulate runs trials of the policy, trial i on kernels.TrialStream(seed,
// i, LaneChoices), and returns the mean maximum load and its standard error.
func (p *Policy) Simulate(seed uint64, trials int) (mean, se float64) {
	sim := p.NewSim()
	var sum, sq float64
	for i := range trials {
		r := kernels.TrialStream(seed, uint64(i), kernels.LaneChoices)
		x := float64(sim.Run(&r))
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
