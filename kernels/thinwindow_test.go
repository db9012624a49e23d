package kernels

import (
	"fmt"
	"slices"
	"testing"
)

// fillAsmDefault is fillAsm as the package sets it, for tests that clear it.
var fillAsmDefault = fillAsm

// The windows' rare paths against the literal loops (refKThinning,
// refTwoThinning, refRetry), ball for ball: a window cut by a draw that
// Algorithm 5 may redraw, limits of 2^63 or more, and loads of 2^63 or
// more, which the sign test misreads as passing. The small-n cases of
// TestKThinningMatchesReference and TestRetryMatchesReference re-read
// windows after a bin raised past its limit all the time.

// lowHalfStates returns states of stream (seed, seq) just before a draw
// whose Lemire low half is below n: one that Algorithm 5 redraws
// (below 2^32 mod n) and one it keeps.
func lowHalfStates(t *testing.T, n uint32, seed, seq uint64) (redrawn, kept uint64) {
	t.Helper()
	r := NewPCG32(seed, seq)
	var haveR, haveK bool
	for range 1 << 26 {
		s := r.state
		low := uint32(uint64(r.Uint32()) * uint64(n))
		switch {
		case low < -n%n && !haveR:
			redrawn, haveR = s, true
		case low >= -n%n && low < n && !haveK:
			kept, haveK = s, true
		}
		if haveR && haveK {
			return redrawn, kept
		}
	}
	t.Fatalf("n=%d: no low half below n in 2^26 draws", n)
	return 0, 0
}

// back returns the state q steps before s.
func back(s, inc uint64, q uint64) uint64 {
	r := PCG32{state: s, incx: inc ^ pcgDefaultInc}
	r.Advance(-q)
	return r.state
}

// mixedLoads are n loads from 0 to 3, so that limits 1 to 3 pass about
// half the samples.
func mixedLoads[L Load](n int, seed uint64) []L {
	r := NewPCG32(seed, 1)
	loads := make([]L, n)
	for i := range loads {
		loads[i] = L(r.Bounded(4))
	}
	return loads
}

func TestThinWindowsAtRedrawnDraws(t *testing.T) {
	const n = 10_000
	r0 := NewPCG32(7, 11)
	inc := r0.inc()
	redrawn, kept := lowHalfStates(t, n, 7, 11)
	for _, at := range []struct {
		name string
		s    uint64
	}{{"redrawn", redrawn}, {"kept", kept}} {
		for _, off := range []uint64{0, 1, 2, 3, 31, 62, 63, 64, 65, 90, 200} {
			start := PCG32{state: back(at.s, inc, off), incx: inc ^ pcgDefaultInc}
			for _, limits := range [][]uint64{{2}, {1, 3}, {3, 1}, {2, 2, 2}, {1, 2, 3, 1, 2}} {
				name := fmt.Sprintf("%s/off=%d/limits=%v", at.name, off, limits)
				fast, slow := mixedLoads[uint32](n, off), mixedLoads[uint32](n, off)
				rf, rs := start, start
				var maxLoad uint32
				for _, c := range []uint64{1, 2, 5, 40, 100} {
					maxLoad = KThinning(fast, &rf, c, limits, max(maxLoad, slices.Max(fast)))
					refKThinning(slow, &rs, c, limits)
					if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
						t.Fatalf("KThinning %s, after a chunk of %d: state %x, want %x", name, c, rf.state, rs.state)
					}
				}
				if len(limits) == 1 {
					rf, rs = start, start
					fast, slow = mixedLoads[uint32](n, off), mixedLoads[uint32](n, off)
					TwoThinning(fast, &rf, 150, limits[0], 3)
					refTwoThinning(slow, &rs, 150, limits[0])
					if !slices.Equal(fast, slow) || rf != rs {
						t.Fatalf("TwoThinning %s differs", name)
					}
				}
			}
			for _, limit := range []uint64{1, 2, 3} {
				name := fmt.Sprintf("%s/off=%d/limit=%d", at.name, off, limit)
				fast, slow := mixedLoads[uint32](n, off), mixedLoads[uint32](n, off)
				rf, rs := start, start
				var pf, ps Probes
				// retryStretch balls at a time, so that the window loop runs
				// once the plain one has seen the retries.
				for range 3 {
					Retry(fast, &rf, retryStretch+7, limit, &pf, 3)
					refRetry(slow, &rs, retryStretch+7, limit, &ps)
				}
				if !slices.Equal(fast, slow) || rf != rs || pf != ps {
					t.Fatalf("Retry %s: probes %+v, want %+v", name, pf, ps)
				}
			}
		}
	}
}

// Direct calls of the window loops at a cut window, so that they run there
// whatever Retry's choice of loop.
func TestRetryWindowsAtRedrawnDraws(t *testing.T) {
	const n = 10_000
	r0 := NewPCG32(3, 5)
	inc := r0.inc()
	redrawn, kept := lowHalfStates(t, n, 3, 5)
	for _, at := range []uint64{redrawn, kept} {
		for off := range uint64(70) {
			s := back(at, inc, off)
			fast, slow := mixedLoads[uint32](n, off), mixedLoads[uint32](n, off)
			rs := PCG32{state: s, incx: inc ^ pcgDefaultInc}
			var pf, ps Probes
			sf, _ := retryWindows(fast, s, inc, 60, 2, &pf, uint32(3))
			refRetry(slow, &rs, 60, 2, &ps)
			if !slices.Equal(fast, slow) || sf != rs.state || pf != ps {
				t.Fatalf("off=%d: probes %+v, want %+v", off, pf, ps)
			}
		}
	}
}

// Limits from 2^63 up are thrown ball by ball; loads from 2^63 up read as
// passing every limit below 2^63, and the check of the kept sample's load
// must catch it.
func TestThinWindowsHugeLimitsAndLoads(t *testing.T) {
	const big = 1 << 63
	for _, limits := range [][]uint64{{big}, {big, 2}, {2, big + 5}, {^uint64(0), ^uint64(0)}, {2}, {1, 3}, {2, 2, 2}} {
		for _, huge := range []bool{false, true} {
			name := fmt.Sprintf("limits=%v/huge loads=%v", limits, huge)
			fast, slow := mixedLoads[uint64](50, 1), mixedLoads[uint64](50, 1)
			if huge {
				for i := 0; i < 50; i += 3 {
					fast[i], slow[i] = big+uint64(i), big+uint64(i)
				}
			}
			rf, rs := NewPCG32(5, 6), NewPCG32(5, 6)
			maxLoad := KThinning(fast, &rf, 3000, limits, slices.Max(fast))
			refKThinning(slow, &rs, 3000, limits)
			if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
				t.Fatalf("KThinning %s differs", name)
			}
		}
	}
	for _, limit := range []uint64{big, big + 1, ^uint64(0), 3} {
		fast, slow := mixedLoads[uint64](50, 2), mixedLoads[uint64](50, 2)
		for i := 0; i < 50; i += 4 {
			fast[i], slow[i] = big+uint64(i), big+uint64(i)
		}
		rf, rs := NewPCG32(8, 9), NewPCG32(8, 9)
		var pf, ps Probes
		// 20 balls: the bins below 3 hold room for about 50.
		sf, maxLoad := retryWindows(fast, rf.state, rf.inc(), 20, limit, &pf, slices.Max(fast))
		refRetry(slow, &rs, 20, limit, &ps)
		if !slices.Equal(fast, slow) || sf != rs.state || pf != ps || maxLoad != slices.Max(slow) {
			t.Fatalf("Retry limit %d: probes %+v, want %+v", limit, pf, ps)
		}
	}
}

// The batched windows (frozen loads) against the literal choice, at a
// window cut by a low half below n, with limits and loads of 2^63 and up.
func TestChooseWindowsMatchLiteral(t *testing.T) {
	const n = 10_000
	r0 := NewPCG32(12, 13)
	inc := r0.inc()
	redrawn, kept := lowHalfStates(t, n, 12, 13)
	refChoose := func(frozen []uint64, r *PCG32, limits []uint64, retry bool, dst []uint32, pr *Probes) {
		for b := range dst {
			k := uint64(1)
			i := r.Bounded(uint32(len(frozen)))
			for j := 0; retry || j < len(limits); j++ {
				lim := limits[min(j, len(limits)-1)]
				if frozen[i] < lim {
					break
				}
				i = r.Bounded(uint32(len(frozen)))
				k++
			}
			dst[b] = i
			pr.Total += k
			pr.Max = max(pr.Max, k)
		}
	}
	const big = 1 << 63
	for _, at := range []uint64{redrawn, kept} {
		for _, off := range []uint64{0, 1, 2, 40, 63, 64, 65, 130} {
			s := back(at, inc, off)
			frozen := mixedLoads[uint64](n, off)
			for i := 0; i < n; i += 7 {
				frozen[i] = big + uint64(i)
			}
			for _, limits := range [][]uint64{{2}, {1, 3}, {2, 2, 2}, {3, 1, 2, 1}, {big + 1, 2}, {2}} {
				for _, c := range []int{1, 3, 100, 256} {
					fast, slow := make([]uint32, c), make([]uint32, c)
					rs := PCG32{state: s, incx: inc ^ pcgDefaultInc}
					var ps, pf Probes
					refChoose(frozen, &rs, limits, false, slow, &ps)
					if sf := chooseThin(frozen, s, inc, limits, fast); sf != rs.state || !slices.Equal(fast, slow) {
						t.Fatalf("chooseThin off=%d limits=%v c=%d differs", off, limits, c)
					}
					if len(limits) > 1 {
						continue
					}
					rs = PCG32{state: s, incx: inc ^ pcgDefaultInc}
					ps = Probes{}
					refChoose(frozen, &rs, limits, true, slow, &ps)
					if sf := chooseRetry(frozen, s, inc, limits[0], &pf, fast); sf != rs.state || !slices.Equal(fast, slow) || pf != ps {
						t.Fatalf("chooseRetry off=%d limit=%d c=%d: probes %+v, want %+v", off, limits[0], c, pf, ps)
					}
				}
			}
		}
	}
}

// K-Thinning's quantile tests by windows (K = 3) against the literal rule
// at windows cut by a low half below n, from loads whose boundaries move
// within the run.
func TestKThinningQuantileWindowsAtRedrawnDraws(t *testing.T) {
	const n = 2_000
	r0 := NewPCG32(21, 22)
	inc := r0.inc()
	redrawn, kept := lowHalfStates(t, n, 21, 22)
	idx := []uint64{n / 5, n / 3}
	k := []uint64{n - idx[0], n - idx[1]}
	for _, at := range []uint64{redrawn, kept} {
		for _, off := range []uint64{0, 1, 2, 3, 63, 64, 65, 150} {
			fast, slow := mixedLoads[uint32](n, off), mixedLoads[uint32](n, off)
			q := NewKThinningCounts(n, k)
			StartKThinning(q, fast)
			rf := PCG32{state: back(at, inc, off), incx: inc ^ pcgDefaultInc}
			rs := rf
			maxLoad := slices.Max(fast)
			for _, c := range []uint64{1, 2, 60, 100, 2000} {
				maxLoad = KThinningQuantile(fast, &rf, c, q, maxLoad)
				refKThinningQuantile(slow, &rs, c, idx)
				if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
					t.Fatalf("off=%d: differs after a chunk of %d", off, c)
				}
			}
		}
	}
}

// The assembly fills against the portable ones: the same indices, count
// and masks, from states at and before draws with a low half below n, for
// both load widths.
func TestFillPassAsmMatchesGo(t *testing.T) {
	if !fillAsmDefault {
		t.Skip("no assembly fill on this architecture")
	}
	defer func() { fillAsm = fillAsmDefault }()
	for _, n := range []int{1, 3, 10_000, 1<<20 + 7} {
		r0 := NewPCG32(uint64(n), 4)
		inc := r0.inc()
		states := []uint64{12345}
		if n >= 10_000 { // below, a low half below n is too rare to find
			redrawn, kept := lowHalfStates(t, uint32(n), uint64(n), 4)
			states = append(states, redrawn, kept)
		}
		l32, l64 := mixedLoads[uint32](n, 9), mixedLoads[uint64](n, 9)
		for _, at := range states {
			for off := range uint64(70) {
				s := back(at, inc, off)
				for _, want := range []int{1, 2, 7, 63, 64} {
					for _, lims := range [][2]uint64{{0, 0}, {1, 3}, {2, 2}, {4, 1}, {1 << 40, 5}} {
						var ia, ig [thinWin]uint32
						fillAsm = true
						va, ma := fillPass(l32, s, inc, &ia, want, lims[0])
						wa, a1, a2 := fillPass2(l64, s, inc, &ia, want, lims[0], lims[1])
						fillAsm = false
						vg, mg := fillPass(l32, s, inc, &ig, want, lims[0])
						wg, g1, g2 := fillPass2(l64, s, inc, &ig, want, lims[0], lims[1])
						if va != vg || ma != mg || wa != wg || a1 != g1 || a2 != g2 || ia != ig {
							t.Fatalf("n=%d off=%d want=%d lims=%v: asm (%d %x; %d %x %x), go (%d %x; %d %x %x)",
								n, off, want, lims, va, ma, wa, a1, a2, vg, mg, wg, g1, g2)
						}
					}
				}
			}
		}
	}
}

// The window loops with the portable fill, against the literal loops.
func TestThinWindowsPortableFill(t *testing.T) {
	if !fillAsmDefault {
		t.Skip("the portable fill runs everywhere else")
	}
	fillAsm = false
	defer func() { fillAsm = fillAsmDefault }()
	t.Run("redrawn", TestThinWindowsAtRedrawnDraws)
	t.Run("retry", TestRetryWindowsAtRedrawnDraws)
	t.Run("huge", TestThinWindowsHugeLimitsAndLoads)
	t.Run("choose", TestChooseWindowsMatchLiteral)
	t.Run("quantile", TestKThinningQuantileWindowsAtRedrawnDraws)
	t.Run("quantile-reference", TestKThinningQuantileMatchesReference)
	t.Run("k-thinning", TestKThinningMatchesReference)
	t.Run("retry-small", TestRetryMatchesReference)
}

// The quantile walk where the ring of counts must grow (a ball reaching
// past it stops the walk, which resumes after the growth), for both load
// widths and both walks: one bin takes every ball, and a few bins far
// apart.
func TestKThinningQuantileWindowsGrowTheRing(t *testing.T) {
	defer func() { fillAsm = fillAsmDefault }()
	for _, asm := range []bool{fillAsmDefault, false} {
		fillAsm = asm
		l32, l64 := make([]uint32, 1), make([]uint64, 1)
		r32, r64 := NewPCG32(1, 1), NewPCG32(1, 1)
		if got := KThinningQuantile(l32, &r32, 1000, NewKThinningCounts(1, []uint64{1, 1}), 0); got != 1000 || l32[0] != 1000 {
			t.Fatalf("asm=%v n=1 uint32: max %d, loads %v", asm, got, l32)
		}
		if got := KThinningQuantile(l64, &r64, 1000, NewKThinningCounts(1, []uint64{1, 1}), 0); got != 1000 || l64[0] != 1000 || r32 != r64 {
			t.Fatalf("asm=%v n=1 uint64: max %d, loads %v", asm, got, l64)
		}
		const n = 5
		idx := []uint64{1, 3}
		fast := []uint32{0, 200, 0, 90, 3}
		slow := slices.Clone(fast)
		q := NewKThinningCounts(n, []uint64{n - idx[0], n - idx[1]})
		StartKThinning(q, fast)
		rf, rs := NewPCG32(4, 4), NewPCG32(4, 4)
		maxLoad := slices.Max(fast)
		for _, c := range []uint64{1, 7, 100, 500} {
			maxLoad = KThinningQuantile(fast, &rf, c, q, maxLoad)
			refKThinningQuantile(slow, &rs, c, idx)
			if !slices.Equal(fast, slow) || rf != rs || maxLoad != slices.Max(slow) {
				t.Fatalf("asm=%v spread loads: fast %v, slow %v", asm, fast, slow)
			}
		}
		// Both tests at the heaviest position pass every sample: one
		// choice, whose spread on 2 bins passes 64 loads within the run.
		two, ref := make([]uint32, 2), make([]uint32, 2)
		q = NewKThinningCounts(2, []uint64{1, 1})
		rf, rs = NewPCG32(6, 6), NewPCG32(6, 6)
		maxLoad = 0
		for range 40 {
			maxLoad = KThinningQuantile(two, &rf, 1000, q, maxLoad)
			refKThinningQuantile(ref, &rs, 1000, []uint64{1, 1})
		}
		if !slices.Equal(two, ref) || rf != rs || maxLoad != slices.Max(ref) || q.ring.mask < 64 {
			t.Fatalf("asm=%v two bins: fast %v, slow %v", asm, two, ref)
		}
	}
}
