package process_test

import (
	"github.com/balloc/balloc/internal/proctable"
)

func init() {
	table = append(table,
		proctable.Row{Process: "kp-groups", Params: map[string]string{"group-size": "2"}, Slow: slowKPGroups(2, false), Law: kpGroupsLaw(4, 2, false), N: 4, M: 5},
		proctable.Row{Process: "kp-groups", Params: map[string]string{"group-size": "3", "group-rule": "min"}, Slow: slowKPGroups(3, true), Law: kpGroupsLaw(6, 3, true), N: 6, M: 4},
	)
}

// groupLoad is a group's load: the sum of its k bins' loads, or their
// least (byMin); leftmost is its least loaded bin, the first on ties.
func groupLoad(loads []uint64, g, k int, byMin bool) (load uint64, leftmost int) {
	leftmost = g * k
	for i := g * k; i < (g+1)*k; i++ {
		load += loads[i]
		if loads[i] < loads[leftmost] {
			leftmost = i
		}
	}
	if byMin {
		load = loads[leftmost]
	}
	return load, leftmost
}

// slowKPGroups: two uniform groups of the n/k aligned ones, then one coin
// bit (the low bit of a choices-stream output kept for 32 balls, shifted
// out one a ball); the second group if its load is lower, or equal with
// the bit set; the ball to that group's leftmost least loaded bin.
func slowKPGroups(k int, byMin bool) func([]uint64, proctable.Trial, uint64) {
	var word, left uint32
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		if t == 0 {
			word, left = 0, 0
		}
		groups := uint32(len(loads) / k)
		a, b := tr.Choices.Bounded(groups), tr.Choices.Bounded(groups)
		if left == 0 {
			word, left = tr.Choices.Uint32(), 32
		}
		heads := word & 1
		word, left = word>>1, left-1
		la, ia := groupLoad(loads, int(a), k, byMin)
		lb, ib := groupLoad(loads, int(b), k, byMin)
		if lb < la || lb == la && heads == 1 {
			ia = ib
		}
		loads[ia]++
	}
}

// kpGroupsLaw: two uniform groups, the lesser loaded (a fair coin on a
// tie), its leftmost least loaded bin.
func kpGroupsLaw(n, k int, byMin bool) proctable.Transition {
	return func(ints []int, _ int) []float64 {
		loads := make([]uint64, n)
		for i, v := range ints {
			loads[i] = uint64(v)
		}
		groups := n / k
		p := make([]float64, n)
		w := 1 / float64(groups*groups)
		for a := range groups {
			for b := range groups {
				la, ia := groupLoad(loads, a, k, byMin)
				lb, ib := groupLoad(loads, b, k, byMin)
				switch {
				case la < lb:
					p[ia] += w
				case lb < la:
					p[ib] += w
				default:
					p[ia] += w / 2
					p[ib] += w / 2
				}
			}
		}
		return p
	}
}
