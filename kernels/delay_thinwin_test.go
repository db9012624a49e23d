package kernels

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The delayed windows' edges (delay_thinwin.go) against literal spans, ball
// for ball: windows cut by a draw Lemire's method may redraw (the stream
// started at offsets before one), retirements that raise a window's kept
// first sample to its limit mid-window (small n, past loads at the limit's
// edge), and the span's end. TestDelayedThinningWideMatchesReference and
// TestDelayedRetryWideMatchesReference run them through the drivers.

// twoThinKeptLiteral walks Two-Thinning's balls over w's first valid bits.
func twoThinKeptLiteral(w uint64, valid int) (kept, first uint64) {
	for p := 0; p < valid; {
		if w>>uint(p)&1 == 1 {
			kept |= 1 << uint(p)
			first |= 1 << uint(p)
			p++
			continue
		}
		if p+1 < valid {
			kept |= 1 << uint(p+1)
		}
		p += 2
	}
	return kept, first & kept
}

func TestTwoThinKept(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	masks := []uint64{0, ^uint64(0), 0x5555555555555555, 0xaaaaaaaaaaaaaaaa, 1, 1 << 63, 0x8000000000000001}
	for range 20000 {
		w := r.Uint64()
		switch r.IntN(3) { // runs of zeros and ones longer than a fair coin's
		case 1:
			w &= r.Uint64()
		case 2:
			w |= r.Uint64()
		}
		masks = append(masks, w)
	}
	for _, w := range masks {
		for valid := 1; valid <= thinWin; valid++ {
			m := w
			if valid < thinWin {
				m &= 1<<uint(valid) - 1 // fillPass's positions from valid on are 0
			}
			kept, first := twoThinKept(m, valid)
			wk, wf := twoThinKeptLiteral(m, valid)
			if kept != wk || first&kept != wf {
				t.Fatalf("w=%#x valid=%d: kept %#x first %#x, want %#x %#x", m, valid, kept, first&kept, wk, wf)
			}
		}
	}
}

// thinSpan is a window span on uint32 loads, the limits bound: it places
// the balls of ring's slots until one needs the general loop.
type thinSpan func(loads, past []uint32, ring []uint32, s, inc uint64, pr *Probes) (int, uint64)

// literalBall is one ball of the span's rule, drawn by r (redraws
// included), reading past; it returns the bin and its probes.
type literalBall func(past []uint32, r *PCG32) (uint32, uint64)

// spanCase runs span over a ring as delayedSpans does (a ball the span
// leaves thrown by lit) and lit over a copy, from stream state s, and
// compares loads, past, ring, state and probes. It returns the balls whose
// first sample passed at the span's start and failed when read, a window
// kept sample raised mid-window.
func spanCase(t *testing.T, name string, span thinSpan, lit literalBall, n int, s, inc uint64, pastLoads []uint32, ring []uint32, limit uint64) (crossed int) {
	t.Helper()
	lf, pf, rf := make([]uint32, n), slices.Clone(pastLoads), slices.Clone(ring)
	ll, pl, rl := make([]uint32, n), slices.Clone(pastLoads), slices.Clone(ring)
	var prF, prL Probes
	sf := s
	for k := 0; k < len(rf); {
		c, s2 := span(lf, pf, rf[k:], sf, inc, &prF)
		prF.Total += uint64(c) // each ball's first probe, as DelayedRetry counts it
		sf, k = s2, k+c
		if k < len(rf) {
			r := PCG32{state: sf, incx: inc ^ pcgDefaultInc}
			i, p := lit(pf, &r)
			prF.Total += p
			prF.Max = max(prF.Max, p)
			lf[i]++
			pf[rf[k]]++
			rf[k] = i
			sf = r.state
			k++
		}
	}
	start := slices.Clone(pastLoads)
	r := PCG32{state: s, incx: inc ^ pcgDefaultInc}
	for k := range rl {
		before := r.state
		i, p := lit(pl, &r)
		first := (&PCG32{state: before, incx: inc ^ pcgDefaultInc}).Bounded(uint32(n))
		if uint64(start[first]) < limit && uint64(pl[first]) >= limit {
			crossed++
		}
		prL.Total += p
		prL.Max = max(prL.Max, p)
		ll[i]++
		pl[rl[k]]++
		rl[k] = i
	}
	if prF.Max == 0 && len(rf) > 0 {
		prF.Max = 1
	}
	if !slices.Equal(lf, ll) || !slices.Equal(pf, pl) || !slices.Equal(rf, rl) || sf != r.state {
		t.Fatalf("%s: window span and literal loop differ", name)
	}
	if prF != prL {
		t.Fatalf("%s: probes %+v, literal %+v", name, prF, prL)
	}
	return crossed
}

// nearLoads are n past loads within 1 of limit − 1 and a ring of τ bins, so
// that a retirement often raises a bin to the limit; bin 0's load is 0 and
// no slot retires into it, so that a retry always ends.
func nearLoads(n, tau int, limit uint64, seed uint64) ([]uint32, []uint32) {
	r := NewPCG32(seed, 3)
	past := make([]uint32, n)
	for i := range past[1:] {
		past[i+1] = uint32(limit) - 2 + r.Bounded(3)
	}
	ring := make([]uint32, tau)
	for k := range ring {
		ring[k] = 1 + r.Bounded(uint32(n-1))
	}
	return past, ring
}

func twoThinLiteral(limit uint64) literalBall {
	return func(past []uint32, r *PCG32) (uint32, uint64) {
		n := uint32(len(past))
		i := r.Bounded(n)
		if uint64(past[i]) >= limit {
			i = r.Bounded(n)
		}
		return i, 1 // thinning's spans count no probes
	}
}

func twoThinWin(limit uint64) thinSpan {
	return func(loads, past []uint32, ring []uint32, s, inc uint64, _ *Probes) (int, uint64) {
		k, s, _ := twoThinningWinSpan(loads, past, ring, s, inc, limit, 0)
		return k, s
	}
}

// Two-Thinning's window span at small n (kept samples raised mid-window on
// most windows), at n = 10^4 from offsets before a redrawn draw and a kept
// one, and with rings shorter than a window.
func TestTwoThinningWinSpanEdges(t *testing.T) {
	testSpanEdges(t, "two-thinning", 3, func(limit uint64) (thinSpan, literalBall) {
		return twoThinWin(limit), twoThinLiteral(limit)
	})
}

// testSpanEdges runs spanCase over the edges for a rule built from a limit.
func testSpanEdges(t *testing.T, rule string, limit uint64, build func(limit uint64) (thinSpan, literalBall)) {
	span, lit := build(limit)
	crossed := 0
	for _, n := range []int{2, 5, 16} {
		for _, tau := range []int{1, 3, 63, 64, 65, 500} {
			past, ring := nearLoads(n, tau, limit, uint64(n*1000+tau))
			r := NewPCG32(uint64(tau), uint64(n))
			crossed += spanCase(t, fmt.Sprintf("%s/n=%d/tau=%d", rule, n, tau), span, lit, n, r.state, r.inc(), past, ring, limit)
		}
	}
	if crossed < 100 {
		t.Errorf("%s: %d balls whose first sample was raised to the limit within the span: the re-read is barely tested", rule, crossed)
	}
	const n = 10_000
	r0 := NewPCG32(7, 11)
	inc := r0.inc()
	redrawn, kept := lowHalfStates(t, n, 7, 11)
	for _, at := range []uint64{redrawn, kept} {
		for off := range uint64(70) {
			past, ring := nearLoads(n, 200, limit, off)
			spanCase(t, fmt.Sprintf("%s/n=%d/off=%d", rule, n, off), span, lit, n, back(at, inc, off), inc, past, ring, limit)
		}
	}
}

// Threshold's and Adaptive's window span, the probes counted as
// DelayedRetry counts them.
func TestRetryWinSpanEdges(t *testing.T) {
	testSpanEdges(t, "retry", 3, func(limit uint64) (thinSpan, literalBall) {
		span := func(loads, past []uint32, ring []uint32, s, inc uint64, pr *Probes) (int, uint64) {
			k, s, _ := retryWinSpan(loads, past, ring, s, inc, limit, pr, 0)
			return k, s
		}
		lit := func(past []uint32, r *PCG32) (uint32, uint64) {
			n := uint32(len(past))
			p := uint64(1)
			i := r.Bounded(n)
			for uint64(past[i]) >= limit {
				i = r.Bounded(n)
				p++
			}
			return i, p
		}
		return span, lit
	})
}

// K-Thinning's window span with two limits, in either order and equal.
func TestKThinning2WinSpanEdges(t *testing.T) {
	for _, d := range [][2]int{{-1, 0}, {0, -1}, {0, 0}} {
		testSpanEdges(t, fmt.Sprintf("k-thinning%v", d), 3, func(limit uint64) (thinSpan, literalBall) {
			lims := []uint64{uint64(int(limit) + d[0]), uint64(int(limit) + d[1])}
			span := func(loads, past []uint32, ring []uint32, s, inc uint64, _ *Probes) (int, uint64) {
				k, s, _ := kThinningWinSpan(loads, past, ring, s, inc, lims, 0)
				return k, s
			}
			lit := func(past []uint32, r *PCG32) (uint32, uint64) {
				n := uint32(len(past))
				i := r.Bounded(n)
				for _, lim := range lims {
					if uint64(past[i]) < lim {
						break
					}
					i = r.Bounded(n)
				}
				return i, 1 // thinning's spans count no probes
			}
			return span, lit
		})
	}
}
