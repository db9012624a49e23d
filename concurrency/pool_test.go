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
		}, func(i, v int) bool {
			if i != len(got) {
				t.Fatalf("workers=%d: emitted %d after %d items", w, i, len(got))
			}
			got = append(got, v)
			return true
		})
		if !slices.Equal(got, want) {
			t.Errorf("workers=%d: results differ", w)
		}
		if p := int(peak.Load()); p > min(w, count) {
			t.Errorf("workers=%d: %d items ran at once", w, p)
		}
	}
	Ordered(0, 4, func(int) int { t.Fatal("ran an item of an empty pool"); return 0 }, func(int, int) bool { return true })
}

// A slow first item holds back the rest: at most `workers` items are
// running or waiting to be emitted, whatever their speed (without the
// bound, the other workers would run every later item meanwhile).
func TestOrderedBoundsWaitingItems(t *testing.T) {
	const count, w = 100, 4
	var started atomic.Int32
	release := make(chan struct{})
	go func() {
		time.Sleep(50 * time.Millisecond)
		close(release)
	}()
	var startedWhileBlocked int32
	Ordered(count, w, func(i int) int {
		started.Add(1)
		if i == 0 {
			<-release
			startedWhileBlocked = started.Load()
		}
		return i
	}, func(i, v int) bool { return true })
	if startedWhileBlocked > w {
		t.Errorf("%d items started while the first ran, want at most %d", startedWhileBlocked, w)
	}
}

// emit returning false stops the pool: no item starts after it, and
// Ordered returns without emitting the ones that were running.
func TestOrderedStopsWhenEmitSaysSo(t *testing.T) {
	for _, w := range []int{1, 2, 8} {
		var ran atomic.Int32
		emitted := 0
		Ordered(1_000_000, w, func(i int) int {
			ran.Add(1)
			return i
		}, func(i, v int) bool {
			emitted++
			return i < 9
		})
		if emitted != 10 {
			t.Errorf("workers=%d: %d emitted, want 10", w, emitted)
		}
		if r := ran.Load(); r > int32(10+2*w) {
			t.Errorf("workers=%d: %d items ran after a stop at the tenth", w, r)
		}
	}
}
