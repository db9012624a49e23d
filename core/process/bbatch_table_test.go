package process_test

import (
	"github.com/balloc/balloc/internal/proctable"
)

// b-Batch decides on the loads at its batch's start, which a law of the
// next bin given the current loads cannot express: its row has the slow
// loop only (its exact law is core/engine/batchany_test.go's, by batches).
func init() {
	table = append(table,
		proctable.Row{Process: "b-batch", Params: map[string]string{"batch": "5"}, Slow: slowBBatch(5)},
		proctable.Row{Process: "b-batch", Params: map[string]string{"batch": "64"}, Slow: slowBBatch(64)},
	)
}

// slowBBatch: batches of b balls; at each batch's start the loads are
// frozen; a ball samples two uniform bins and takes the second only if
// its frozen load is smaller.
func slowBBatch(b uint64) func([]uint64, proctable.Trial, uint64) {
	var frozen []uint64
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		if t%b == 0 {
			frozen = append(frozen[:0], loads...)
		}
		n := uint32(len(loads))
		i, j := tr.Choices.Bounded(n), tr.Choices.Bounded(n)
		if frozen[j] < frozen[i] {
			i = j
		}
		loads[i]++
	}
}
