//go:build race

package concurrency

import "sync/atomic"

// storeOwned: atomic under the race detector (see plainstore.go).
func storeOwned(p *atomic.Uint32, v uint32) { p.Store(v) }

func storeOwned64(p *atomic.Uint64, v uint64) { p.Store(v) }
