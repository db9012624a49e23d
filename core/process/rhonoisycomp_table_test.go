package process_test

import (
	"github.com/balloc/balloc/internal/proctable"
	"github.com/balloc/balloc/kernels"
)

func init() {
	table = append(table,
		proctable.Row{Process: "rho-noisy-comp", Params: map[string]string{"rho": "step:1,0.7"}, Slow: slowRhoStep(1, 0.7), Law: rhoStepLaw(3, 1, 0.7), N: 3, M: 5},
	)
}

// slowRhoStep is ρ-Noisy-Comp with ρ = step:g,p: two uniform samples from
// the choices stream; from the noise stream, every ball, the exact coin
// "wrong" of probability 1 − ρ(δ), δ the loads' difference: 1/2 for
// δ = 0 (equal loads: a fair coin, whatever ρ), 1 − p for 0 < δ ≤ g, and
// beyond (ρ = 1) one output drawn and the comparison right.
// The second sample takes the ball when it is the lighter and the
// comparison right, or not the lighter (equal included) and it is wrong.
func slowRhoStep(g uint64, p float64) func([]uint64, proctable.Trial, uint64) {
	coin, err := kernels.NewBernoulli(1 - p)
	if err != nil {
		panic(err)
	}
	fair, err := kernels.NewBernoulli(0.5)
	if err != nil {
		panic(err)
	}
	return func(loads []uint64, tr proctable.Trial, _ uint64) {
		n := uint32(len(loads))
		i, j := tr.Choices.Bounded(n), tr.Choices.Bounded(n)
		li, lj := loads[i], loads[j]
		wrong := false
		switch d := max(li, lj) - min(li, lj); {
		case d == 0:
			wrong = fair.Flip(tr.Noise)
		case d <= g:
			wrong = coin.Flip(tr.Noise)
		default:
			tr.Noise.Uint32()
		}
		if (lj < li) != wrong {
			i = j
		}
		loads[i]++
	}
}

// rhoStepLaw: the lighter of two uniform samples with probability ρ(δ),
// the other with 1 − ρ(δ); equal loads either, with probability 1/2.
func rhoStepLaw(n, g int, p float64) proctable.Transition {
	return func(loads []int, _ int) []float64 {
		out := make([]float64, n)
		w := 1 / float64(n*n)
		for i := range n {
			for j := range n {
				q := 0.0 // wrong
				switch d := max(loads[i]-loads[j], loads[j]-loads[i]); {
				case d == 0:
					q = 0.5
				case d <= g:
					q = 1 - p
				}
				pj := q // j when wrong, unless j is the lighter
				if loads[j] < loads[i] {
					pj = 1 - q
				}
				out[j] += w * pj
				out[i] += w * (1 - pj)
			}
		}
		return out
	}
}
