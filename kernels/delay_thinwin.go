package kernels

import "math/bits"

// Windows (thinwindow.go) for the thinning family's spans in τ-Delay's
// setting, --delay fixed (delay_spans.go): Two-Thinning, K-Thinning with
// two limits, Threshold and Adaptive. A span's balls test their samples'
// loads τ balls old (past) against limits fixed for the call, and the
// test, a near-fair coin, was a branch the predictor missed (5.7 ns a ball
// against 1.6 with every sample accepted).
//
// The past loads only rise too: each ball of a span retires the ball τ
// before it into past. So a window works as on the current loads: fillPass
// draws the next positions of the stream and keeps a bit per position and
// limit, past < limit, as past stood at the window's start; a position read
// as rejected stays rejected, and an accepted one can only have been raised
// past its limit by a retirement of an earlier ball of the window. Each
// ball therefore reads its kept sample's past load again (a branch almost
// always taken the same way) and, when a retirement raised it to the limit,
// the window is drawn again from that ball's first sample. A window ends
// before a draw that Lemire's method may redraw, and a ball that does not
// fit in a fresh window (its draws reach such a draw, or a retry takes more
// probes than the window has) ends the span unplaced: the general loop
// throws it, from the same state. The samples are the ball-by-ball span's,
// draw for draw (delay_wide_test.go's literal loops; delay_thinwin_test.go
// for the windows' edges).

// twoThinningWinSpan is twoThinningSpan by windows: the first sample kept
// when its past load is below limit, else the second. A ball takes one
// position of the window or two, so the walk needs no chain from one ball
// to the next: twoThinKept finds every ball's kept position at once, and
// the balls take them in turn, lowest first.
func twoThinningWinSpan[L Load](loads, past []L, ring []uint32, s, inc, limit uint64, maxLoad L) (int, uint64, L) {
	n := uint32(len(loads))
	if limit >= 1<<63 { // beyond fillPass's sign test
		k, s := twoThinningSpan(past, n, ring, s, inc, limit)
		return k, s, addPlaced(loads, ring[:k], maxLoad)
	}
	past = past[:n]
	loads = loads[:len(past)] // one bound for both
	var idx [thinWin]uint32
	k := 0
	for k < len(ring) {
		// No more positions than slots, so no more balls: the walk ends
		// with the kept positions.
		valid, w := fillPass(past, s, inc, &idx, min(thinWin, len(ring)-k), limit)
		kept, first := twoThinKept(w, valid)
		all := kept
		for kept != 0 {
			low := kept & -kept
			i := idx[bits.TrailingZeros64(kept)&(thinWin-1)] // a BSF (lowBitIndex measured 10% slower here)
			// A first sample must still pass (a second is kept whatever
			// its load): the limit, or all ones when low is not in first.
			lim := limit | uint64(int64((first&low)-1)>>63)
			if uint64(past[i]) >= lim {
				break // raised to the limit by this window's retirements: draw again from this ball
			}
			kept ^= low
			v := loads[i] + 1
			loads[i] = v
			maxLoad = max(maxLoad, v)
			past[ring[k]]++
			ring[k] = i
			k++
		}
		p := bits.Len64(all ^ kept) // past the last ball placed
		if p == 0 {
			break // the general loop throws this ball
		}
		s = jump(s, inc, p)
	}
	return k, s, maxLoad
}

// twoThinKept reads Two-Thinning's balls off a window's mask w (bit q:
// position q's load passed; positions from valid on are 0): a ball from
// position q keeps q if its bit is set, else takes q + 1 whatever its bit.
// It returns the kept positions below valid, and those of them that were a
// ball's first sample. A zero at a ball's start thus claims the position
// after it, as a backslash escapes the next character; the positions after
// a set bit are always a ball's start, so within a run of zeros (from a
// ball's start) the zeros at odd offsets are second samples, and so is the
// set bit that ends a run of odd length: the carries of the runs of even
// and odd start (simdjson's escape detection, Langdale and Lemire 2019)
// find both.
func twoThinKept(w uint64, valid int) (kept, first uint64) {
	const even = 0x5555555555555555
	const odd = ^uint64(even)
	z := ^w
	starts := z &^ (z << 1)            // each run's first zero
	ce := z + (starts & even)          // runs from even positions carried past their end
	co := z + (starts & odd)           // and from odd ones
	inE, inO := z&^ce, z&^co           // the runs' zeros, by their start's parity
	ends := (ce&^z)&odd | (co&^z)&even // the set bit after a run of odd length
	kept = w | inE&odd | inO&even
	first = w &^ ends
	if valid < thinWin {
		kept &= 1<<uint(valid) - 1
	}
	return kept, first
}

// kThinning2WinSpan is kThinningSpan for K = 3 by windows: sample 1 kept
// when its past load is below lim1, else sample 2 when below lim2, else
// sample 3. The tests' failure masks are read at the ball's first
// position p rather than shifted on with the balls as thinTwoTests's are
// (the shifts took CX, and the compiler spilled the masks: a chain from
// ball to ball through the stack, 3.8× the naive loop against 4.1×).
func kThinning2WinSpan[L Load](loads, past []L, ring []uint32, s, inc, lim1, lim2 uint64, maxLoad L) (int, uint64, L) {
	n := uint32(len(loads))
	past = past[:n]
	loads = loads[:len(past)] // one bound for both
	keep := [4]uint64{lim1, lim2, ^uint64(0)}
	var idx [thinWin]uint32
	k := 0
	for k < len(ring) {
		// No more positions than slots, so no more balls than slots.
		valid, a, b := fillPass2(past, s, inc, &idx, min(thinWin, len(ring)-k), lim1, lim2)
		// The tests' failures: fa's bit q, test 1 of a ball from q; both's,
		// tests 1 and 2. Read at p, not shifted on: only p runs from one
		// ball to the next.
		fa := ^a
		both := fa & (^b >> 1)
		p := 0
		for {
			t := int(fa>>uint(p&(thinWin-1))&1 + both>>uint(p&(thinWin-1))&1) // 0 if test 1 passes, else 1 if test 2 does, else 2
			if p+t >= valid {
				break
			}
			i := idx[(p+t)&(thinWin-1)]
			if uint64(past[i]) >= keep[t] {
				break // raised to its limit by this window's retirements: draw again from here
			}
			p += t + 1
			v := loads[i] + 1
			loads[i] = v
			maxLoad = max(maxLoad, v)
			past[ring[k]]++
			ring[k] = i
			k++
		}
		if p == 0 {
			break // the general loop throws this ball
		}
		s = jump(s, inc, p)
	}
	return k, s, maxLoad
}

// kThinningWinSpan is DelayedKThinning's span, by windows where they fit
// (one or two limits, below 2^63), else kThinningSpan's.
func kThinningWinSpan[L Load](loads, past []L, ring []uint32, s, inc uint64, limits []uint64, maxLoad L) (int, uint64, L) {
	switch {
	case len(limits) == 1:
		return twoThinningWinSpan(loads, past, ring, s, inc, limits[0], maxLoad)
	case len(limits) == 2 && max(limits[0], limits[1]) < 1<<63:
		return kThinning2WinSpan(loads, past, ring, s, inc, limits[0], limits[1], maxLoad)
	}
	k, s := kThinningSpan(past, uint32(len(loads)), ring, s, inc, limits)
	return k, s, addPlaced(loads, ring[:k], maxLoad)
}

// retryWinSpan is retrySpan by windows: samples until one's past load is
// below limit, so the balls' kept positions are the window's set bits, each
// re-read as Two-Thinning's first samples; the probes counted in pr as
// retrySpan counts them (all but each placed ball's first: the caller
// counts those).
func retryWinSpan[L Load](loads, past []L, ring []uint32, s, inc, limit uint64, pr *Probes, maxLoad L) (int, uint64, L) {
	n := uint32(len(loads))
	if limit >= 1<<63 { // beyond fillPass's sign test
		k, s := retrySpan(past, n, ring, s, inc, limit, pr)
		return k, s, addPlaced(loads, ring[:k], maxLoad)
	}
	past = past[:n]
	loads = loads[:len(past)] // one bound for both
	total, most := pr.Total, pr.Max
	var idx [thinWin]uint32
	k := 0
	for k < len(ring) {
		// No more positions than slots, so no more balls than slots.
		_, w := fillPass(past, s, inc, &idx, min(thinWin, len(ring)-k), limit)
		kept, k0 := w, k
		for kept != 0 {
			i := idx[lowBitIndex(kept&-kept)]
			if uint64(past[i]) >= limit {
				break // raised to the limit by this window's retirements: draw again from this ball
			}
			kept &= kept - 1
			v := loads[i] + 1
			loads[i] = v
			maxLoad = max(maxLoad, v)
			past[ring[k]]++
			ring[k] = i
			k++
		}
		from := bits.Len64(w ^ kept) // past the last ball placed
		if from == 0 {
			break // the general loop throws this ball
		}
		total += uint64(from - (k - k0)) // the probes but each ball's first
		// The balls' rejections are the runs of zeros of w below from:
		// the most probes is the longest run's length + 1.
		z := ^w & (1<<uint(from) - 1)
		if from == thinWin {
			z = ^w
		}
		run := uint64(0)
		for ; z != 0; z &= z >> 1 {
			run++
		}
		most = max(most, run+1)
		s = jump(s, inc, from)
	}
	pr.Total, pr.Max = total, most
	return k, s, maxLoad
}

// windowSpans is delayedSpans with a span that places its balls in loads
// (loadSpan's, with the limit given).
func windowSpans[L Load](loads []L, r *PCG32, count uint64, dl *Delay[L], limit uint64, maxLoad L, span func(loads, past []L, ring []uint32, s, inc, limit uint64, maxLoad L) (int, uint64, L), general func(c uint64, maxLoad L) L) L {
	past := dl.past[:len(loads)]
	return delayedSpans(dl, count, maxLoad, func(ring []uint32, maxLoad L) (int, L) {
		k, s, m := span(loads, past, ring, r.state, r.inc(), limit, maxLoad)
		r.state = s
		return k, m
	}, general)
}

// lowBitIndex is the index of low's one set bit, by a de Bruijn sequence
// (Leiserson, Prokop and Randall 1998). bits.TrailingZeros64 is a BSF
// below GOAMD64=v3, which waits for the last value of its destination
// register, and the compiler gave the walks' BSF the register of the load
// before it (the ball before's): a chain from ball to ball through memory
// that ran the retry walk at half speed. (Two-Thinning's walk, whose BSF
// got another register, runs faster with the BSF.)
func lowBitIndex(low uint64) int {
	return int(deBruijnIndex[(low*deBruijn64)>>58])
}

const deBruijn64 = 0x03f79d71b4ca8b09

var deBruijnIndex = func() (t [64]uint8) {
	for q := range t {
		t[(uint64(1)<<uint(q))*deBruijn64>>58] = uint8(q)
	}
	return t
}()
