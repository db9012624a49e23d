package process_test

import (
	"github.com/balloc/balloc/internal/proctable"
)

func init() {
	table = append(table,
		proctable.Row{Process: "two-choice", Slow: slowDChoice(2), Law: proctable.DChoice(3, 2), N: 3, M: 6},
		proctable.Row{Process: "d-choice", Params: map[string]string{"d": "3"}, Slow: slowDChoice(3), Law: proctable.DChoice(3, 3), N: 3, M: 5},
		proctable.Row{Process: "d-choice", Params: map[string]string{"d": "2"}, Slow: slowDChoice(2), Law: proctable.DChoice(4, 2), N: 4, M: 5},
		proctable.Row{Process: "d-choice", Params: map[string]string{"d": "1"}, Slow: slowOneChoice, Law: proctable.Uniform(3), N: 3, M: 5},
	)
}

// slowDChoice: d uniform samples drawn first, the first of the least
// loaded taken (ties to the earlier sample: random ties in law, the
// samples being exchangeable).
func slowDChoice(d int) func([]uint64, proctable.Trial, uint64) {
	return func(loads []uint64, tr proctable.Trial, _ uint64) {
		samples := make([]uint32, d)
		for k := range samples {
			samples[k] = tr.Choices.Bounded(uint32(len(loads)))
		}
		best := samples[0]
		for _, j := range samples[1:] {
			if loads[j] < loads[best] {
				best = j
			}
		}
		loads[best]++
	}
}
