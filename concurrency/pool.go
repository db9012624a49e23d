package concurrency

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers returns w, or the number of CPUs when w ≤ 0.
func Workers(w int) int {
	if w <= 0 {
		return runtime.NumCPU()
	}
	return w
}

// Ordered runs fn(0), …, fn(count−1) on `workers` goroutines (at most count)
// and calls emit(i, fn(i)) on the calling goroutine in increasing i, each as
// soon as every smaller index has been emitted, so output can stream while
// later items still run. Items are taken in index order, so the earliest
// results arrive first. At most `workers` items are running or waiting to
// be emitted at once (a worker that finishes ahead of a slow earlier item
// waits for it), so what the items hold never exceeds what `workers` of
// them hold. When emit returns false no further item starts: the ones
// running finish, are not emitted, and Ordered returns.
func Ordered[T any](count, workers int, fn func(i int) T, emit func(i int, v T) bool) {
	if count <= 0 {
		return
	}
	workers = min(Workers(workers), count)
	type item struct {
		i int
		v T
	}
	done := make(chan item, workers)
	// A token per item running or waiting; the earliest item not emitted
	// always holds one (it was taken before every later item), so the
	// tokens never all wait on each other.
	tokens := make(chan struct{}, workers)
	quit := make(chan struct{})
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case tokens <- struct{}{}:
				case <-quit:
					return
				}
				i := int(next.Add(1) - 1)
				if i >= count {
					return
				}
				select {
				case <-quit:
					return
				default:
				}
				done <- item{i, fn(i)}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	pending := make(map[int]T, workers)
	want := 0
	stopped := false
	for it := range done {
		if stopped {
			continue // drain the items that were running
		}
		pending[it.i] = it.v
		for {
			v, ok := pending[want]
			if !ok {
				break
			}
			delete(pending, want)
			<-tokens
			if !emit(want, v) {
				stopped = true
				close(quit)
				break
			}
			want++
		}
	}
}
