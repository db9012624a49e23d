//go:build !race

package concurrency

import "sync/atomic"

const haveShardStage2Asm = true

// shardStage2Asm is shardStage2 for the packed layout (shardstage_amd64.s):
// count balls, their draws at idx[0 : 2·count].
//
//go:noescape
func shardStage2Asm(cells *atomic.Uint32, idx *uint32, count int, mul, w, sink uint64, foreign *uint32, mine *atomic.Uint64, placed uint64) (nf int)

// prefetchBins asks for the lines of the bins b[0:count] names, to write
// (shardstage_amd64.s), before an owner commits a batch.
//
//go:noescape
func prefetchBins(cells *atomic.Uint32, b *uint32, count int)
