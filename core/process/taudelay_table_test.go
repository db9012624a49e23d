package process_test

import (
	"github.com/balloc/balloc/internal/proctable"
)

// τ-Delay reads loads as they were up to τ balls ago, which a law of the
// next bin given the current loads cannot express: its rows have the slow
// loop only (its exact laws by the history are core/engine's delay tests).
func init() {
	table = append(table,
		proctable.Row{Process: "tau-delay", Params: map[string]string{"tau": "3", "delay": "fixed"}, Slow: slowTauDelay(3, "fixed")},
		proctable.Row{Process: "tau-delay", Params: map[string]string{"tau": "4", "delay": "uniform"}, Slow: slowTauDelay(4, "uniform")},
		proctable.Row{Process: "tau-delay", Params: map[string]string{"tau": "2", "delay": "adversarial"}, Slow: slowTauDelay(2, "adversarial")},
	)
}

// slowTauDelay: two uniform samples from the choices stream; each read at
// an age a, as its load after max(0, t − a) of the t balls placed: a = τ
// (fixed), a uniform in {0, …, τ} from the noise stream, the first
// sample's age then the second's (uniform), or, per comparison, the truly
// lighter at its current load and the heavier at age τ, equal loads as
// they are (adversarial). The ball goes to the second sample only if its
// reading is smaller.
func slowTauDelay(tau uint64, mode string) func([]uint64, proctable.Trial, uint64) {
	var placed []uint32 // the bin of every ball so far
	loadAfter := func(i uint32, u uint64) uint64 {
		c := uint64(0)
		for _, b := range placed[:u] {
			if b == i {
				c++
			}
		}
		return c
	}
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		if t == 0 {
			placed = placed[:0]
		}
		n := uint32(len(loads))
		i, j := tr.Choices.Bounded(n), tr.Choices.Bounded(n)
		at := func(age uint64) uint64 { return t - min(age, t) }
		var ri, rj uint64
		switch mode {
		case "fixed":
			ri, rj = loadAfter(i, at(tau)), loadAfter(j, at(tau))
		case "uniform":
			ai := uint64(tr.Noise.Bounded(uint32(tau + 1)))
			aj := uint64(tr.Noise.Bounded(uint32(tau + 1)))
			ri, rj = loadAfter(i, at(ai)), loadAfter(j, at(aj))
		case "adversarial":
			ri, rj = loads[i], loads[j]
			if loads[j] < loads[i] {
				rj = loadAfter(j, at(0))
				ri = loadAfter(i, at(tau))
			} else if loads[i] < loads[j] {
				rj = loadAfter(j, at(tau))
			}
		}
		if rj < ri {
			i = j
		}
		loads[i]++
		placed = append(placed, i)
	}
}
