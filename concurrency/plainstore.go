//go:build !race

package concurrency

import (
	"sync/atomic"
	"unsafe"
)

// storeOwned stores v into a cell that only the calling goroutine writes,
// with a plain store: on amd64 atomic.Store is an XCHG, a locked
// instruction, where an aligned MOV is already atomic for readers (x86-64
// and arm64 never tear an aligned word). Readers use atomic loads. Under the
// race detector the store is atomic (plainstore_race.go), since a plain
// store read by others is a data race in Go's memory model.
func storeOwned(p *atomic.Uint32, v uint32) { *(*uint32)(unsafe.Pointer(p)) = v }

// storeOwned64 is storeOwned for a 64-bit count.
func storeOwned64(p *atomic.Uint64, v uint64) { *(*uint64)(unsafe.Pointer(p)) = v }
