package process_test

import (
	"slices"

	"github.com/balloc/balloc/internal/proctable"
)

// Memory breaks ties by position (its slots are exchangeable only in law
// with the cache's order), and its state is the cache beside the loads:
// its rows are slow loops (its exact laws are core/engine/memory_test.go's).
func init() {
	table = append(table,
		proctable.Row{Process: "memory", Params: map[string]string{"d": "1", "k": "1"}, Slow: slowMemory(1, 1, false)},
		proctable.Row{Process: "memory", Params: map[string]string{"d": "2", "k": "3"}, Slow: slowMemory(2, 3, false)},
		proctable.Row{Process: "memory", Params: map[string]string{"d": "2", "k": "1", "cache-rule": "last-used"}, Slow: slowMemory(2, 1, true)},
	)
}

// slowMemory: before the first ball, the cache's K slots filled with
// distinct uniform bins in order (each slot drawn, redrawn while it is in
// an earlier slot). A ball: d uniform samples; the first least loaded of
// the samples then the cached bins takes it. Then last-used caches that
// bin; least-loaded puts each sample not cached in place of the heaviest
// cached bin (the first of them) if it is lighter.
func slowMemory(d, k int, lastUsed bool) func([]uint64, proctable.Trial, uint64) {
	var cache []uint32
	return func(loads []uint64, tr proctable.Trial, t uint64) {
		n := uint32(len(loads))
		if t == 0 {
			cache = cache[:0]
			for range k {
				x := tr.Choices.Bounded(n)
				for slices.Contains(cache, x) {
					x = tr.Choices.Bounded(n)
				}
				cache = append(cache, x)
			}
		}
		samples := make([]uint32, d)
		for j := range samples {
			samples[j] = tr.Choices.Bounded(n)
		}
		candidates := append(slices.Clone(samples), cache...)
		best := candidates[0]
		for _, j := range candidates {
			if loads[j] < loads[best] {
				best = j
			}
		}
		loads[best]++
		if lastUsed {
			cache[0] = best
			return
		}
		for _, j := range samples {
			if slices.Contains(cache, j) {
				continue
			}
			heaviest := 0
			for q := range cache {
				if loads[cache[q]] > loads[cache[heaviest]] {
					heaviest = q
				}
			}
			if loads[j] < loads[cache[heaviest]] {
				cache[heaviest] = j
			}
		}
	}
}
