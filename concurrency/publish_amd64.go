//go:build !race

package concurrency

import "sync/atomic"

// storeRelease publishes v in a ring index that only the calling goroutine
// writes, after everything it stored before: on amd64 every store is a
// release (x86-64 keeps stores in order, TSO), so a plain MOV does it, where
// atomic.Store is an XCHG that first waits for every store in flight to
// reach the cache. Draining a ring ends with one: with XCHG it took 11% of
// a sharded two-choice run of 2 workers (n = 2^20), behind the owner's adds
// of the batch, each a cache line taken from the other core.
func storeRelease(p *atomic.Uint64, v uint64) { storeOwned64(p, v) }
