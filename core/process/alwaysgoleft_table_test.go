package process_test

import (
	"github.com/balloc/balloc/internal/proctable"
)

func init() {
	table = append(table,
		proctable.Row{Process: "always-go-left", Params: map[string]string{"d": "2"}, Slow: slowAlwaysGoLeft(2), Law: alwaysGoLeftLaw(4, 2), N: 4, M: 5},
		proctable.Row{Process: "always-go-left", Params: map[string]string{"d": "3"}, Slow: slowAlwaysGoLeft(3), Law: alwaysGoLeftLaw(6, 3), N: 6, M: 4},
		proctable.Row{Process: "always-go-left", Params: map[string]string{"d": "3"}, Law: alwaysGoLeftLaw(3, 3), N: 3, M: 5},
	)
}

// slowAlwaysGoLeft: one uniform bin in each of d equal groups, in group
// order; the least loaded, ties to the leftmost group.
func slowAlwaysGoLeft(d int) func([]uint64, proctable.Trial, uint64) {
	return func(loads []uint64, tr proctable.Trial, _ uint64) {
		g := uint32(len(loads) / d)
		best := -1
		for k := range d {
			j := k*int(g) + int(tr.Choices.Bounded(g))
			if best < 0 || loads[j] < loads[best] {
				best = j
			}
		}
		loads[best]++
	}
}

// alwaysGoLeftLaw: Vöcking's rule on n bins in d groups, exactly.
func alwaysGoLeftLaw(n, d int) proctable.Transition {
	g := make([][]int, d)
	for k := range g {
		for b := k * n / d; b < (k+1)*n/d; b++ {
			g[k] = append(g[k], b)
		}
	}
	return proctable.BestOf(g, true)
}
