package process_test

import "github.com/balloc/balloc/internal/proctable"

func init() {
	table = append(table, proctable.Row{Process: "one-choice", Slow: slowOneChoice, Law: proctable.Uniform(3), N: 3, M: 5})
}

// slowOneChoice: one uniform bin.
func slowOneChoice(loads []uint64, tr proctable.Trial, _ uint64) {
	loads[tr.Choices.Bounded(uint32(len(loads)))]++
}
