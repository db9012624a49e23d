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
// results arrive first.
func Ordered[T any](count, workers int, fn func(i int) T, emit func(i int, v T)) {
	if count <= 0 {
		return
	}
	workers = min(Workers(workers), count)
	type item struct {
		i int
		v T
	}
	done := make(chan item, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= count {
					return
				}
				done <- item{i, fn(i)}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	pending := map[int]T{}
	want := 0
	for it := range done {
		pending[it.i] = it.v
		for {
			v, ok := pending[want]
			if !ok {
				break
			}
			delete(pending, want)
			emit(want, v)
			want++
		}
	}
}
