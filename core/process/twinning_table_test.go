package process_test

import (
	"github.com/balloc/balloc/internal/proctable"
)

// Twinning and packing place one or more balls a step, so their rows are
// slow loops by steps; the law of a step is not a one-ball transition.
func init() {
	table = append(table,
		proctable.Row{Process: "twinning", Step: slowTwinning(false)},
		proctable.Row{Process: "packing", Step: slowTwinning(true)},
	)
}

// slowTwinning: one uniform bin a step; below the average W/n (W the balls
// placed) it takes 2 balls (twinning) or is raised to ⌈W/n⌉ + 1 (packing),
// else 1; the last step is cut at the run's balls.
func slowTwinning(packing bool) func([]uint64, proctable.Trial, uint64) uint64 {
	return func(loads []uint64, tr proctable.Trial, w uint64) uint64 {
		n := uint64(len(loads))
		i := tr.Choices.Bounded(uint32(n))
		add := uint64(1)
		if x := loads[i]; x*n < w {
			add = 2
			if packing {
				add = (w+n-1)/n + 1 - x
			}
		}
		add = min(add, tr.Balls-w)
		loads[i] += add
		return add
	}
}
