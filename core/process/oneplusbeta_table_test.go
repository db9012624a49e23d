package process_test

import (
	"github.com/balloc/balloc/internal/proctable"
	"github.com/balloc/balloc/kernels"
)

func init() {
	table = append(table,
		proctable.Row{Process: "one-plus-beta", Params: map[string]string{"beta": "0.3"}, Slow: slowOnePlusBeta(0.3),
			Law: proctable.Mix(0.3, proctable.Uniform(3), proctable.DChoice(3, 2)), N: 3, M: 5},
		proctable.Row{Process: "one-plus-beta", Params: map[string]string{"beta": "0.75"}, Slow: slowOnePlusBeta(0.75),
			Law: proctable.Mix(0.75, proctable.Uniform(4), proctable.DChoice(4, 2)), N: 4, M: 4},
	)
}

// slowOnePlusBeta: the β coin first, then two uniform samples, both drawn
// every ball; the second taken if the coin says two-choice and it is
// lighter.
func slowOnePlusBeta(beta float64) func([]uint64, proctable.Trial, uint64) {
	coin, err := kernels.NewBernoulli(beta)
	if err != nil {
		panic(err)
	}
	return func(loads []uint64, tr proctable.Trial, _ uint64) {
		two := coin.Flip(tr.Choices)
		n := uint32(len(loads))
		i, j := tr.Choices.Bounded(n), tr.Choices.Bounded(n)
		if two && loads[j] < loads[i] {
			i = j
		}
		loads[i]++
	}
}
