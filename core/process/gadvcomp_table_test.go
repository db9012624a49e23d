package process_test

import (
	"github.com/balloc/balloc/internal/proctable"
)

func init() {
	for _, adv := range []string{"greedy-reverse", "max-target"} {
		table = append(table,
			proctable.Row{Process: "g-adv-comp", Params: map[string]string{"g": "1", "adversary": adv}, Slow: slowGAdv(1, adv), Law: gAdvLaw(3, 1, adv), N: 3, M: 6})
	}
	table = append(table, proctable.Row{Process: "g-adv-comp", Params: map[string]string{"g": "2", "adversary": "random"}, Slow: slowGMyopic(2), Law: gMyopicLaw(3, 2), N: 3, M: 6})
}

// gAdvPick is the adversary's choice between two loads within g: true for
// the second sample. greedy-reverse: the heavier, the first on equal
// loads; max-target: the larger raise of the maximum, raise(x) = max(0,
// x + 1 − max), ties to the heavier, then the first.
func gAdvPick(adv string, li, lj, maxLoad uint64) bool {
	if adv == "greedy-reverse" {
		return lj > li
	}
	raise := func(x uint64) uint64 { return max(x+1, maxLoad) - maxLoad }
	ri, rj := raise(li), raise(lj)
	return rj > ri || rj == ri && lj > li
}

// slowGAdv: two uniform samples; loads within g: the adversary's pick,
// else the lighter (the first on equal loads, which are within g).
func slowGAdv(g uint64, adv string) func([]uint64, proctable.Trial, uint64) {
	return func(loads []uint64, tr proctable.Trial, _ uint64) {
		n := uint32(len(loads))
		i, j := tr.Choices.Bounded(n), tr.Choices.Bounded(n)
		li, lj := loads[i], loads[j]
		pickJ := lj < li
		if max(li, lj)-min(li, lj) <= g {
			pickJ = gAdvPick(adv, li, lj, maxOf(loads))
		}
		if pickJ {
			i = j
		}
		loads[i]++
	}
}

func maxOf(loads []uint64) uint64 {
	m := uint64(0)
	for _, v := range loads {
		m = max(m, v)
	}
	return m
}

// gAdvLaw: two uniform samples, the adversary's pick within g, else the
// lighter.
func gAdvLaw(n, g int, adv string) proctable.Transition {
	return func(loads []int, _ int) []float64 {
		p := make([]float64, n)
		top := 0
		for _, v := range loads {
			top = max(top, v)
		}
		w := 1 / float64(n*n)
		for i := range n {
			for j := range n {
				li, lj := loads[i], loads[j]
				pickJ := lj < li
				if max(li-lj, lj-li) <= g {
					pickJ = gAdvPick(adv, uint64(li), uint64(lj), uint64(top))
				}
				if pickJ {
					p[j] += w
				} else {
					p[i] += w
				}
			}
		}
		return p
	}
}
