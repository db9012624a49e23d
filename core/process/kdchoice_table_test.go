package process_test

import (
	"slices"

	"github.com/balloc/balloc/internal/proctable"
)

// (k,d)-choice places k balls a step: slow loops by steps (its law is a
// step's, not a ball's).
func init() {
	table = append(table,
		proctable.Row{Process: "kd-choice", Params: map[string]string{"k": "2", "d": "3"}, Step: slowKDChoice(2, 3)},
		proctable.Row{Process: "kd-choice", Params: map[string]string{"k": "3", "d": "5"}, Step: slowKDChoice(3, 5)},
	)
}

// slowKDChoice: d uniform slots a step, sorted by load stably (ties keep
// the earlier slot), one ball on each of the k least loaded, lightest
// first, cut at the run's balls.
func slowKDChoice(k, d int) func([]uint64, proctable.Trial, uint64) uint64 {
	return func(loads []uint64, tr proctable.Trial, w uint64) uint64 {
		slots := make([]uint32, d)
		for j := range slots {
			slots[j] = tr.Choices.Bounded(uint32(len(loads)))
		}
		slices.SortStableFunc(slots, func(a, b uint32) int {
			switch {
			case loads[a] < loads[b]:
				return -1
			case loads[a] > loads[b]:
				return 1
			}
			return 0
		})
		placed := uint64(0)
		for _, b := range slots[:k] {
			if w+placed == tr.Balls {
				break
			}
			loads[b]++
			placed++
		}
		return placed
	}
}
