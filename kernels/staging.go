package kernels

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// Staging. When the load array outgrows the L2 cache, every sample is a miss
// to L3 or DRAM, and a loop that interleaves the generator with the loads
// keeps few of those misses in flight. The staged loops first draw the bin
// indices of a block of balls into a small buffer (pure arithmetic), then
// run the block's decisions, whose loads are independent of one another and
// overlap in the out-of-order window: 1.5× the throughput of two-choice at
// n = 10^7 on the machine of bench/README.md, and 15% slower at n = 10^4,
// where the array fits in L2. Both consume the stream identically, so the
// choice changes speed only, never results: a trial is the same on every
// machine.

// A staged loop on an array larger than L3 then prefetches the block's bins
// (prefetchLoads) before it decides: every miss of the block is requested
// at once, where the out-of-order window alone keeps a few balls' misses in
// flight. That doubles the speed from DRAM (two-choice, n = 2^24, 64 MB, on
// the 2-core EPYC with 32 MB of L3 of this project's sessions: 4.4e7 ->
// 9.6e7 balls/s; one-choice 7.4e7 -> 1.5e8; d = 3 2.2e7 -> 5.7e7), and cost
// two-choice 3% inside L3 (n = 2^20: medians of 6, 2.02e8 -> 1.96e8).

// prefetchLoads prefetches the bins idx names (PREFETCHT0 on amd64, a
// no-op elsewhere) when the array is larger than L3: a hint, which changes
// no result.
func prefetchLoads[L Load | float64](loads []L, idx []uint32) {
	if len(idx) > 0 && len(loads)*int(unsafe.Sizeof(loads[0])) > prefetchAbove {
		prefetchIdx(unsafe.Pointer(&loads[0]), &idx[0], len(idx), uint64(bits.TrailingZeros(uint(unsafe.Sizeof(loads[0])))))
	}
}

// prefetchAbove is the load-array size in bytes above which staged loops
// prefetch: the L3 size read at start-up (32 MiB when cpuid cannot tell).
var prefetchAbove = l3Bytes()

func l3Bytes() int {
	if l3 := cpuid.CPU.Cache.L3; l3 > 0 {
		return l3
	}
	return 32 << 20
}

// stageBalls is the block of balls whose samples are drawn ahead.
const stageBalls = 128

// stagingAbove is the load-array size in bytes above which loops stage: the
// L2 cache size read once at start-up (1 MiB when cpuid cannot tell).
var stagingAbove = l2Bytes()

func l2Bytes() int {
	if l2 := cpuid.CPU.Cache.L2; l2 > 0 {
		return l2
	}
	return 1 << 20
}

// StagingAbove reports the load-array size in bytes from which the
// allocation loops draw samples a block ahead.
func StagingAbove() int { return stagingAbove }

func staged(loadsBytes int) bool { return loadsBytes > stagingAbove }

// fillBounded writes len(dst) consecutive PCG32.Bounded(n) draws from raw
// state s and returns the new state.
//
// It stays a call: inlined (which boundedFast now allows) it made the loops
// that stage their draws 5–14% slower at n = 1e4 (BenchmarkDirect
// d-choice-d3 0.86, tau-delay-fixed-n 0.88, g-myopic-comp-g4 0.96).
//
//go:noinline
func fillBounded(dst []uint32, s, inc uint64, n uint32) uint64 {
	for k := range dst {
		s, dst[k] = boundedFast(s, inc, n)
	}
	return s
}

// fillOutputs writes len(dst) consecutive PCG32 outputs.
func fillOutputs(dst []uint32, s, inc uint64) uint64 {
	for k := range dst {
		s, dst[k] = step(s, inc)
	}
	return s
}

// fillNormal writes len(dst) consecutive PCG32.Normal draws: normZig with
// its fast path written out, the sign applied without a branch (it is a
// coin flip for the predictor), and the two outputs of an attempt taken
// from one two-step jump of the state (the same outputs, a shorter chain).
func fillNormal(dst []float64, s, inc uint64) uint64 {
	t := zigNorm
	mul := uint64(pcgMul)
	mul2, inc2 := mul*mul, inc*(mul+1)
	for k := 0; k < len(dst); {
		u := uint64(pcgOutput(s))<<32 | uint64(pcgOutput(s*pcgMul+inc))
		s = s*mul2 + inc2
		i := u & (zigBoxes - 1)
		j := u >> 11
		x := float64(j) * t.w[i]
		if j >= t.k[i] {
			var ok bool
			if s, x, ok = normZigSlow(s, inc, i, x); !ok {
				continue
			}
		}
		dst[k] = math.Float64frombits(math.Float64bits(x) | (u&(1<<8))<<55)
		k++
	}
	return s
}
