package concurrency

import "sync/atomic"

// shardStage2 places a stage of a sharded worker's two-choice balls
// (twoChoice): ball k reads bins idx[2k] and idx[2k+1] and
// picks the second only if it is strictly less loaded. If this worker
// (owner w by mul) owns the chosen bin, it adds the ball there (a plain
// store) and counts it in placed; otherwise it adds it to cell sink, which
// nothing reads. Every chosen bin is written to foreign[nf], and nf grows
// only for a foreign one, so foreign[:nf] are the stage's foreign bins, in
// order. After each ball the worker's count is stored in mine. It returns
// nf.
//
// Nothing in it branches on the loads or the owner: on amd64 outside the
// race detector it is shardStage2Asm (shardstage_amd64.s), with the
// choices made by CMOV; shardStage2Go is the same loop in Go, by masks, for
// the padded layout, other architectures and -race. Go does not keep these
// selects free of branches, and its masks lengthen what waits on each load:
// BenchmarkShardStage2 (one goroutine, n = 2^20, half the balls foreign)
// ran the assembly at 1.4e8–1.75e8 balls/s and the Go loop at 8.7e7–9.4e7.
func shardStage2(all []atomic.Uint32, stride uint64, idx []uint32, mul, w, sink uint64, foreign *[shardStage]uint32, mine *atomic.Uint64, placed uint64) int {
	if sink >= uint64(len(all)) {
		panic("concurrency: a sharded worker's sink lies past its cells") // the assembly would write there
	}
	if haveShardStage2Asm && stride == 1 && len(idx) > 0 {
		return shardStage2Asm(&all[0], &idx[0], len(idx)/2, mul, w, sink, &foreign[0], mine, placed)
	}
	return shardStage2Go(all, stride, idx, mul, w, sink, foreign, mine, placed)
}

// shardStage2Go is shardStage2 in Go.
func shardStage2Go(all []atomic.Uint32, stride uint64, idx []uint32, mul, w, sink uint64, foreign *[shardStage]uint32, mine *atomic.Uint64, placed uint64) int {
	nf := 0
	for k := 0; k+1 < len(idx); k += 2 {
		i, j := idx[k], idx[k+1]
		m := -uint32(b2u(all[uint64(j)*stride].Load() < all[uint64(i)*stride].Load()))
		i = i&^m | j&m
		own := -uint64(b2u(uint64(owner(i, mul)) == w)) // all ones if this worker's
		cl := &all[uint64(i)*stride&own|sink&^own]
		storeOwned(cl, cl.Load()+1)
		placed -= own // +1 for an own ball
		storeOwned64(mine, placed)
		foreign[nf&(shardStage-1)] = i
		nf += int(1 + own) // 0 for an own ball
	}
	return nf
}
