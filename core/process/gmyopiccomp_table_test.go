package process_test

import (
	"github.com/balloc/balloc/internal/proctable"
)

func init() {
	table = append(table,
		proctable.Row{Process: "g-myopic-comp", Params: map[string]string{"g": "1"}, Slow: slowGMyopic(1), Law: gMyopicLaw(3, 1), N: 3, M: 6},
		proctable.Row{Process: "g-myopic-comp", Params: map[string]string{"g": "0"}, Slow: slowGMyopic(0), Law: gMyopicLaw(3, 0), N: 3, M: 5},
	)
}

// slowGMyopic: two uniform samples from the choices stream and a coin, a
// 32-bit output of the noise stream, every ball; loads within g: the
// second if the coin's top bit is set, else the lighter (the first on a
// tie, which is within any g ≥ 0).
func slowGMyopic(g uint64) func([]uint64, proctable.Trial, uint64) {
	return func(loads []uint64, tr proctable.Trial, _ uint64) {
		n := uint32(len(loads))
		i, j := tr.Choices.Bounded(n), tr.Choices.Bounded(n)
		coin := tr.Noise.Uint32()
		li, lj := loads[i], loads[j]
		diff := max(li, lj) - min(li, lj)
		pickJ := lj < li
		if diff <= g {
			pickJ = coin>>31 == 1
		}
		if pickJ {
			i = j
		}
		loads[i]++
	}
}

// gMyopicLaw: two uniform samples; within g, either with probability 1/2,
// else the lighter.
func gMyopicLaw(n int, g int) proctable.Transition {
	return func(loads []int, _ int) []float64 {
		p := make([]float64, n)
		w := 1 / float64(n*n)
		for i := range n {
			for j := range n {
				d := loads[i] - loads[j]
				switch {
				case max(d, -d) <= g:
					p[i] += w / 2
					p[j] += w / 2
				case loads[j] < loads[i]:
					p[j] += w
				default:
					p[i] += w
				}
			}
		}
		return p
	}
}
