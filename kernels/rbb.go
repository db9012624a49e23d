package kernels

import (
	"math/bits"
	"unsafe"
)

// Repeated balls-into-bins (Los and Sauerwald, "Tight bounds for repeated
// balls-into-bins", STACS 2023; the authors' code Dim131/RBB,
// RepeatedBallsIntoBins::nextRound): each round every non-empty bin releases
// one ball, all at once, and then the released balls are placed one after
// another. These are the release halves of a round; the placements are the
// placement process's own loops (OneChoice, TwoChoice, …; ThrowLevels on the
// histogram).

// RBBRelease takes one ball from every non-empty bin and returns the balls
// released (the bins that were non-empty) and the maximum load after, which
// is maxLoad − 1 (every bin at the maximum is non-empty), maxLoad the
// maximum before. One pass, no branch on the loads; 32-bit loads go two at
// a time in a 64-bit word (SWAR: a lane's top bit after adding 2^31 − 1 to
// its low 31 bits, or-ed with the lane, is set exactly when the lane is not
// zero, and subtracting one from a non-zero lane borrows from no other).
func RBBRelease[L Load](loads []L, maxLoad L) (released uint64, after L) {
	if maxLoad == 0 {
		return 0, 0
	}
	k := uint64(0)
	if l32, ok := any(loads).([]uint32); ok && len(l32) >= 2 {
		words := unsafe.Slice((*uint64)(unsafe.Pointer(&l32[0])), len(l32)/2)
		const low, top = 0x7fffffff7fffffff, 0x8000000080000000
		for i, x := range words {
			nz := ((x&low + low) | x) & top
			words[i] = x - nz>>31
			k += uint64(bits.OnesCount64(nz))
		}
		if len(l32)%2 == 1 {
			last := &l32[len(l32)-1]
			nz := uint32(b2u(*last != 0))
			*last -= nz
			k += uint64(nz)
		}
		return k, maxLoad - 1
	}
	for i, v := range loads {
		nz := L(b2u(v != 0))
		loads[i] = v - nz
		k += uint64(nz)
	}
	return k, maxLoad - 1
}

// Release takes one ball from every non-empty bin of the histogram and
// returns the balls released: every level moves down by one, and the bins
// at load 1 join those at 0. O(1) when no bin is empty, else O(guide).
func (lv *Levels) Release() uint64 {
	if lv.lo > 0 {
		lv.lo-- // the prefix counts and the guide are unchanged
		return lv.n
	}
	c := lv.cum[lv.head:]
	if len(c) == 1 {
		return 0 // every bin empty
	}
	released := lv.n - c[0]
	// Level 0 merges into level 1, which becomes level 0: drop the first
	// prefix count; each rank's level index falls by one (level 0's stay 0).
	lv.head++
	for b := range lv.guide {
		if lv.guide[b] > 0 {
			lv.guide[b]--
		}
	}
	if lv.head >= 64 && lv.head*2 >= len(lv.cum) {
		lv.cum = append(lv.cum[:0], lv.cum[lv.head:]...)
		lv.head = 0
	}
	return released
}
