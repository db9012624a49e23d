package balloc

import (
	"fmt"
	"math"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/kernels"
)

// Rule is an allocation rule of your own: it is asked, ball by ball, which
// bin receives the next ball. Set Config.Rule (and leave Config.Process
// empty) to run it.
type Rule interface {
	// Choose returns the bin, 0 ≤ bin < len(loads), that receives the next
	// ball. loads are the current loads, to read only; r is the trial's
	// random source. With RunParallel, Choose is called from several
	// goroutines at once (one trial each), so a Rule with state must guard
	// it or keep it per trial.
	Choose(loads []uint32, r *Rand) int
}

// Rand is a trial's random source: PCG32 on the stream of (seed, trial), the
// one the built-in processes draw their bins from.
type Rand struct{ p kernels.PCG32 }

// Intn returns a uniform integer in [0, n), n > 0 (Lemire's method, no bias).
func (r *Rand) Intn(n int) int { return int(r.p.Bounded64(uint64(n))) }

// Float64 returns a uniform float64 in [0, 1).
func (r *Rand) Float64() float64 { return r.p.Float64() }

func newRuleSpec(c Config) (*Spec, error) {
	switch {
	case c.Process != "" || len(c.Params) > 0:
		return nil, fmt.Errorf("balloc: Config sets both Rule and Process %q; give one", c.Process)
	case c.Bins == 0 || c.Bins > math.MaxInt32:
		return nil, fmt.Errorf("balloc: Bins %d: a Rule runs on 1 … 2^31 − 1 bins", c.Bins)
	case c.Balls >= math.MaxUint32:
		return nil, fmt.Errorf("balloc: Balls %d: a Rule runs up to 2^32 − 2 balls (32-bit loads)", c.Balls)
	case c.Trials < 0:
		return nil, fmt.Errorf("balloc: Trials %d is negative", c.Trials)
	}
	return &Spec{rule: c.Rule, c: c}, nil
}

// runRule is one trial of a user's rule: one interface call per ball.
func (s *Spec) runRule(k int) Result {
	loads := make([]uint32, s.c.Bins)
	r := &Rand{p: kernels.TrialStream(s.c.Seed, uint64(k), kernels.LaneChoices)}
	for range s.c.Balls {
		i := s.rule.Choose(loads, r)
		if i < 0 || i >= len(loads) {
			panic(fmt.Sprintf("balloc: Rule %T chose bin %d of %d", s.rule, i, len(loads)))
		}
		loads[i]++
	}
	snap := result.MeasureLoads(loads, s.c.Balls, 1)
	out := Result{Trial: k, Gap: snap.Gap, MaxLoad: snap.MaxLoad, MinLoad: snap.MinLoad}
	for _, l := range snap.Histogram {
		out.Histogram = append(out.Histogram, Level{Load: l.Load, Count: l.Count})
	}
	return out
}
