package concurrency

import (
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

func TestOrderedEmitsInOrderForAnyWorkers(t *testing.T) {
	const count = 200
	var want []int
	for i := range count {
		want = append(want, i*i)
	}
	for _, w := range []int{1, 2, 3, 8, 64, 1000} {
		var got []int
		var running, peak atomic.Int32
		Ordered(count, w, func(i int) int {
			r := running.Add(1)
			for {
				p := peak.Load()
				if r <= p || peak.CompareAndSwap(p, r) {
					break
				}
			}
			time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond) // finish out of order
			running.Add(-1)
			return i * i
		}, func(i, v int) {
			if i != len(got) {
				t.Fatalf("workers=%d: emitted %d after %d items", w, i, len(got))
			}
			got = append(got, v)
		})
		if !slices.Equal(got, want) {
			t.Errorf("workers=%d: results differ", w)
		}
		if p := int(peak.Load()); p > min(w, count) {
			t.Errorf("workers=%d: %d items ran at once", w, p)
		}
	}
	Ordered(0, 4, func(int) int { t.Fatal("ran an item of an empty pool"); return 0 }, func(int, int) {})
}
