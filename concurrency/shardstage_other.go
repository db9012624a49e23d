//go:build !amd64 || race

package concurrency

import "sync/atomic"

// The race detector does not see an assembly loop's loads and stores, so
// under -race the Go loop runs, where it checks them.
const haveShardStage2Asm = false

func shardStage2Asm(*atomic.Uint32, *uint32, int, uint64, uint64, uint64, *uint32, *atomic.Uint64, uint64) int {
	panic("concurrency: shardStage2Asm without assembly")
}

func prefetchBins(*atomic.Uint32, *uint32, int) {}
