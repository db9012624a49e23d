package process_test

import (
	"github.com/balloc/balloc/internal/proctable"
)

// RBB's rows: a whole trial of rounds (proctable.Row.Whole), against the
// direct engine on the battery's 12 bins, and the exact law of the load
// vector after R rounds (Row.Final) on both engines for tiny n and m.
func init() {
	table = append(table,
		proctable.Row{Process: "rbb", Params: map[string]string{"rounds": "5"}, Whole: slowRBB(5, 1),
			Final: rbbLaw(3, 4, 5, proctable.Uniform(3)), N: 3, M: 4},
		proctable.Row{Process: "rbb", Params: map[string]string{"rounds": "3", "placement": "d-choice", "d": "2"}, Whole: slowRBB(3, 2),
			Final: rbbLaw(3, 5, 3, proctable.DChoice(3, 2)), N: 3, M: 5},
		proctable.Row{Process: "rbb", Params: map[string]string{"rounds": "4", "placement": "d-choice", "d": "3"}, Whole: slowRBB(4, 3),
			Final: rbbLaw(4, 6, 4, proctable.DChoice(4, 3)), N: 4, M: 6},
	)
}

// rbbStart is the authors' uniform start: ⌊m/n⌋ balls a bin, one more in
// the first m mod n bins.
func rbbStart(n, m uint64) []uint64 {
	loads := make([]uint64, n)
	for i := range loads {
		loads[i] = m / n
		if uint64(i) < m%n {
			loads[i]++
		}
	}
	return loads
}

// slowRBB: from the uniform start of the trial's m balls, R rounds; in
// each, every non-empty bin gives up one ball, all at once, and then the k
// balls given up are placed one after another, each by the least loaded of
// d uniform samples (d = 1: one-choice), ties to the earlier sample.
func slowRBB(rounds uint64, d int) func(uint64, proctable.Trial) []uint64 {
	return func(n uint64, tr proctable.Trial) []uint64 {
		loads := rbbStart(n, tr.Balls)
		for range rounds {
			k := 0
			for i := range loads {
				if loads[i] > 0 {
					loads[i]--
					k++
				}
			}
			for range k {
				best := tr.Choices.Bounded(uint32(n))
				for range d - 1 {
					if j := tr.Choices.Bounded(uint32(n)); loads[j] < loads[best] {
						best = j
					}
				}
				loads[best]++
			}
		}
		return loads
	}
}

// rbbLaw is the exact law of the load vector after R rounds from the
// uniform start of m balls in n bins: each round the release (certain),
// then the k released balls placed one by one by tr.
func rbbLaw(n, m, rounds int, tr proctable.Transition) func() map[string]float64 {
	return func() map[string]float64 {
		start := rbbStart(uint64(n), uint64(m))
		v := make([]byte, n)
		for i, x := range start {
			v[i] = byte(x)
		}
		law := map[string]float64{string(v): 1}
		for range rounds {
			next := map[string]float64{}
			for s, p := range law {
				w, k := []byte(s), 0
				for i := range w {
					if w[i] > 0 {
						w[i]--
						k++
					}
				}
				place := map[string]float64{string(w): p}
				for range k {
					placed := map[string]float64{}
					for u, q := range place {
						loads := make([]int, n)
						for i := range loads {
							loads[i] = int(u[i])
						}
						for b, pb := range tr(loads, 0) {
							if pb > 0 {
								x := []byte(u)
								x[b]++
								placed[string(x)] += q * pb
							}
						}
					}
					place = placed
				}
				for u, q := range place {
					next[u] += q
				}
			}
			law = next
		}
		return law
	}
}
