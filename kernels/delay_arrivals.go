package kernels

import "math/bits"

// Arrivals: the record behind a delayed read at any age (DelayUniform,
// DelayEmpirical, DelayReplay). A read of bin i at age a needs the bin's
// arrivals among the last a balls: its load then is its load now less
// those. Each bin's balls form a chain, latest first, each ball linking to
// the bin's ball before it; a walk down that chain costs one step per
// arrival counted, O(1 + a/n) expected, which at τ ≫ n is most of a run
// (a τ-Delay run at n = 64, τ = 10^5, uniform ages: 50 s against 0.3 s with
// fixed ages).
//
// So each ball also links to an earlier ball of its bin by a jump pointer
// laid out as in Myers, "An applicative random-access stack" (Information
// Processing Letters 17(5), 1983): with the bin's balls numbered by depth
// (1 for its first ball), the jump of the ball at depth d skips the least
// term of d's canonical skew-binary form (sums of 2^k − 1, the least term
// possibly twice), so every jump is 2^k − 1 balls of the bin long and from
// any ball the walk "jump while the jump lands in the window, else step to
// the previous ball" reaches the bin's earliest ball at or after t − a in
// O(log) steps (at most 2·len(k) + len(D) + 2 in the tests, for k arrivals
// between them from a ball of depth D, len being bits.Len). Its depth
// against the latest ball's gives the count; weighted runs keep per ball the
// bin's load before it, which is the load read.
//
// The rule needs, on adding the ball at depth d + 1, only whether the
// least term of d appears twice: then the new ball jumps where the jump of
// the previous ball's jump lands, else to the previous ball. Each bin keeps
// its count in skew binary (skewInc) to know it in O(1); the jump of the
// jump is read from that ball's record, when it is still in the ring.
//
// At few bins a bin's earliest ball at or after t − a is near t − a: every
// n-th ball or so is the bin's. So below scanBins bins a read that spans
// 8n balls or more first scans the ring's bins forward from t − a, up to 4n
// balls (sequential reads, a nanosecond each where a jump is a cache miss),
// and walks the jumps only when the scan does not reach one of the bin's
// balls (a fraction e^−4 of the reads under Two-Choice's near-uniform
// arrivals). Shorter reads walk at once: a few steps.
//
// At many bins a read's walk from the bin's latest ball is short (about
// log(1 + a/n) jumps) but each jump is a cache miss in a ring of τ balls:
// at n = 10^5, τ = 10^7 a read cost 2 µs. So from scanBins bins on, the
// record also keeps every bin's depth and latest ball as they were at
// every B-th ball (B the power of two at or above n), for the last τ balls:
// a read at age a starts from the snapshot at the first multiple S of B at
// or after t − a. If the bin's latest ball before S is before t − a, the
// count is its depth now less its depth then; else the walk starts from
// that ball, fewer than B balls back from S, so its expected count of
// arrivals is below 2 and the walk one or two steps: about two cache
// misses a read whatever τ/n. Taking a snapshot copies n bins every B ≥ n
// balls, O(1) a ball. (Weighted reads walk from the latest ball: the
// snapshot keeps no loads.)
//
// Two records, chosen once per run by newArrivals: at τ ≤ c·n a read's
// walk down the plain chain (link: back to the bin's ball before) is short,
// about τ/(2n) steps under uniform ages, and a ball's insert is two stores,
// where the jump record's is about 90 instructions over more memory; past
// that the jump record wins. The loops test walk, fixed at construction,
// and inline the chain's insert and read. c = walkRatio: 16 below scanBins
// bins, 4 from them on, by measurement: BenchmarkTauDelayUniform, uniform
// ages from a full window, balls/s of the jump record over the chain's,
// each forced, one run (-benchtime 1s -count 2, 2 cores shared):
//
//	jumps/chain   τ = n    4n     8n     16n    100n
//	n = 2          0.69   0.73   0.92   1.37   4.75
//	n = 64         0.75   0.46   0.48   0.47   1.64
//	n = 1000       0.68   0.70   1.15   1.44   6.77
//	n = 100000     0.19   0.56   1.18   3.94  23.32
//
// Below scanBins bins the jumps overtake the chain between 8n and 16n at
// n = 2 and between 16n and 100n at n = 64 (c = 16 keeps the chain where
// it is the faster by 2×, at a cost below 30% at n = 2, τ = 16n); from
// scanBins on, between 4n and 8n (n = 10^5: each chain step a cache miss). Both records give the literal walk's
// counts read by read (delay_arrivals_test.go forces each).
//
// Memory. Balls are kept in a ring of the last τ (slot u mod τ, as Delay's
// other rings), 12 bytes a ball, 4 more at few bins (the scan's bins) and 8
// more weighted; 24 bytes a bin; from scanBins bins on, ⌊τ/B⌋ + 2
// snapshots of 8 bytes a bin, at most 8τ + 16n bytes. The chain record
// keeps 4 bytes a ball (8 more weighted) and 8 a bin, less than the jump
// record in both. A link is stored as
// the distance back to the ball it names, far when that does not fit: a
// read never follows a link longer than its age a ≤ τ < far, so a ball out
// of the ring (or before the first) is never visited, and a jump computed
// from one, which lands further back than the ball it stands for, is never
// followed either. Depths are kept mod 2^32: a count is a difference of
// depths of at most τ < 2^32.

// far is the distance of a link to a ball out of the ring, or to none:
// more than any age (τ < 2^32 − 1).
const far = ^uint32(0)

// arrival is one ball's record in the ring.
type arrival struct {
	prev  uint32 // back to the bin's ball before, or far
	jump  uint32 // back to its jump target, or far
	depth uint32 // the bin's balls up to and including this one, mod 2^32
}

// binArrivals is a bin's count in skew binary and its latest ball's links
// (the ball itself is kept apart, in arrivals.last: every read tests it,
// and a slice of it alone stays in cache at more bins).
type binArrivals struct {
	skew  uint64 // the bin's count in skew binary (skewInc)
	jump  uint32 // back from last to its jump target, or far
	depth uint32 // last's depth
}

// arrivals is the record of a delayed read at any age: the last τ balls'
// links and each bin's latest. before is kept for weighted runs only.
type arrivals struct {
	walk   bool          // the chain record (τ ≤ walkRatio·n): link and last only
	link   []uint32      // chain: slot u mod τ: back from ball u to its bin's ball before, or far
	tau    uint64        // ring modulus: slot of ball u is u mod τ
	scan   uint64        // the most balls a read scans, 4n (0 at scanBins bins or more)
	nodes  []arrival     // slot u mod τ: ball u, for the last min(τ, balls) balls
	ring   []uint32      // slot u mod τ: ball u's bin
	last   []int64       // per bin, its latest ball, −1 if none
	bins   []binArrivals // per bin
	before []float64     // weighted: slot u mod τ: ball u's bin's load before it

	// Snapshots, from scanBins bins on (snaps nil below): row k of n
	// entries holds the bins at a multiple of B = 2^snapLg; cur is the row
	// of the latest, at t − t mod B; rows snapK in all.
	snaps  []snapEntry
	snapLg uint
	snapK  uint64
	cur    uint64
}

// snapEntry is a bin at a snapshot at ball S: its depth then, and its
// latest ball before S as a distance back from S (far if none or past τ).
type snapEntry struct {
	depth uint32
	back  uint32
}

// scanBins is the fewest bins at which a read walks the jumps at once.
const scanBins = 128

// walkRatio is the largest τ/n at which newArrivals keeps the chain
// record, not the jumps: below scanBins bins and from them on (a variable
// so that tests can force either record).
var walkRatio = [2]uint64{16, 4}

// newArrivals returns the record of n empty bins for a ring of τ with
// window slots (window = τ, or the run's balls when fewer).
func newArrivals(n int, tau, window uint64, weighted bool) arrivals {
	var before []float64
	if weighted {
		before = make([]float64, window)
	}
	c := walkRatio[0]
	if n >= scanBins {
		c = walkRatio[1]
	}
	if tau <= c*uint64(n) {
		a := arrivals{walk: true, tau: tau, link: make([]uint32, window), last: make([]int64, n), before: before}
		for i := range a.last {
			a.last[i] = -1
		}
		return a
	}
	a := arrivals{before: before, tau: tau, nodes: make([]arrival, window), last: make([]int64, n), bins: make([]binArrivals, n)}
	if n < scanBins {
		a.scan = 4 * uint64(n)
		a.ring = make([]uint32, window)
	} else {
		a.snapLg = uint(bits.Len64(uint64(n) - 1))
		a.snapK = window>>a.snapLg + 2
		a.snaps = make([]snapEntry, a.snapK*uint64(n)) // row 0, at ball 0: every bin empty
		for k := range a.snaps {
			a.snaps[k].back = far
		}
	}
	for i := range a.bins {
		a.last[i], a.bins[i] = -1, binArrivals{jump: far}
	}
	return a
}

// arrivalsMemory is the bytes newArrivals allocates per bin and per slot:
// the jump record's, which bound the chain record's (8 a bin, 4 a slot,
// weighted 8 more).
func arrivalsMemory(weighted bool) (perBin, perSlot int) {
	perBin, perSlot = 24+16, 12+8 // the scan's ring, 4 a slot, or the snapshots, at most 8τ + 16n
	if weighted {
		perSlot += 8
	}
	return perBin, perSlot
}

// skewInc returns the skew-binary form of c + 1 given that of c: bit k
// set for a digit k ≥ 1 (term 2^(k+1) − 1), and bit 63 set when the least
// nonzero digit is 2, the only digit that may be (the canonical form). The
// increment carries that 2 into the next digit, else adds 1 to digit 0
// (Myers 1983, §3). Counts stay below 2^63 − 1, so bit 63 is free.
func skewInc(m uint64) uint64 {
	// Selects, not branches: whether the count ends in a 2 alternates
	// about every other ball, a coin flip for the branch predictor.
	const two = 1 << 63
	d := m &^ two
	low := d & -d
	c := d ^ low                                                                // with a 2: digit k cleared …
	carry := c | low<<1 | (c&(low<<1))<<(uint(62-bits.TrailingZeros64(low))&63) // … and carried into k+1, or made its 2
	plain := m | 1 | m<<63                                                      // else digit 0 grows, to a 2 if it was 1
	return pickMask(-(m >> 63), plain, carry)
}

// slotBack is the ring slot of the ball back balls before t, whose slot
// is ts: ts − back mod τ, for back ≤ τ.
func slotBack(ts, back, tau uint64) uint64 {
	s := int64(ts) - int64(back)
	return uint64(s + int64(tau)&(s>>63))
}

// chainAdd records ball t, in slot ts = t mod τ, on bin i, in the chain
// record (the loops test walk, and call add for the jumps).
func (a *arrivals) chainAdd(i uint32, t, ts uint64) {
	a.link[ts] = uint32(min(uint64(int64(t)-a.last[i]), uint64(far)))
	a.last[i] = int64(t)
}

// add records ball t, in slot ts = t mod τ, on bin i, in the jump record.
func (a *arrivals) add(i uint32, t, ts uint64) {
	b := &a.bins[i]
	tau := a.tau
	back := uint64(int64(t) - a.last[i]) // t + 1 for none: then never followed
	// The jump's target, back from t: the previous ball, or, when the
	// previous ball's count ends in a 2, where its jump's jump lands (far
	// when its jump has left the ring: then so has the target). Selects:
	// the 2 comes every other ball or so.
	merge := -(b.skew >> 63)
	jb := back + uint64(b.jump)&merge
	in := merge & ltMask(jb, min(tau, t)+1) // the jump's ball is in the ring: read its jump
	jb += uint64(a.nodes[slotBack(ts, jb&in, tau)].jump) & in
	// A link past τ is never followed (a read spans at most τ), so it
	// need only fit: a jump computed from a ball out of the ring lands
	// further back than the one it stands for.
	nd := arrival{prev: uint32(min(back, uint64(far))), jump: uint32(min(jb, uint64(far))), depth: b.depth + 1}
	a.nodes[ts] = nd
	a.last[i], b.jump, b.depth, b.skew = int64(t), nd.jump, nd.depth, skewInc(b.skew)
	if a.ring != nil { // the same branch every ball
		a.ring[ts] = i
	} else if (t+1)&(1<<a.snapLg-1) == 0 {
		a.snapshot(t + 1)
	}
}

// snapshot keeps the bins as they are at ball S, a multiple of B, in the
// next row.
func (a *arrivals) snapshot(S uint64) {
	if a.cur++; a.cur == a.snapK {
		a.cur = 0
	}
	n := uint64(len(a.bins))
	row := a.snaps[a.cur*n : (a.cur+1)*n]
	for i, b := range a.bins {
		row[i] = snapEntry{depth: b.depth, back: uint32(min(uint64(int64(S)-a.last[i]), uint64(far)))}
	}
}

// earliest finds bin i's earliest ball at most span balls back from t,
// given the back distance of its latest ball (≤ span): it returns that
// ball's slot.
func (a *arrivals) earliest(i uint32, back, span, ts uint64) uint64 {
	tau := a.tau
	s := slotBack(ts, span, tau)
	if c := min(span-back+1, a.scan); 2*c > a.scan {
		// Forward from t − span: the ring's slots, wrapping at τ (a ring
		// shorter than τ never wraps).
		ring := a.ring
		for ; c > 0; c-- {
			if ring[s] == i {
				return s
			}
			if s++; s == tau {
				s = 0
			}
		}
	}
	s = slotBack(ts, back, tau)
	nd := a.nodes[s]
	for {
		if j := back + uint64(nd.jump); j <= span {
			back = j
		} else if p := back + uint64(nd.prev); p <= span {
			back = p
		} else {
			return s
		}
		s = slotBack(ts, back, tau)
		nd = a.nodes[s]
	}
}

// recent counts bin i's balls among the last age of the t placed, ts =
// t mod τ (all of them when age > t: loads before the start are 0).
func (a *arrivals) recent(t, ts uint64, i uint32, age uint32) uint64 {
	if back, span, ok := a.within(t, i, age); ok {
		return a.count(i, back, span, t, ts)
	}
	return 0
}

// within is the test of a read that counts none, for the loops to inline
// (recent, with its call, is past the inliner's budget): the back distance
// of bin i's latest ball and the read's span, min(age, t), and whether
// the one is within the other.
func (a *arrivals) within(t uint64, i uint32, age uint32) (back, span uint64, ok bool) {
	span, back = min(uint64(age), t), uint64(int64(t)-a.last[i])
	return back, span, back <= span
}

// count is recent's count of bin i's balls at most span back from t, its
// latest back balls back (≤ span), ts = t mod τ.
func (a *arrivals) count(i uint32, back, span, t, ts uint64) uint64 {
	if a.walk { // the loops call chainCount themselves
		return a.chainCount(back, span, ts)
	}
	top := a.bins[i].depth
	if a.snaps != nil {
		// The snapshot at S, the first multiple of B at or after t − span,
		// if one is taken yet (S ≤ t): row cur holds the latest, at L.
		mask := uint64(1)<<a.snapLg - 1
		S, L := (t-span+mask)&^mask, t&^mask
		if S <= L {
			k := int64(a.cur) - int64((L-S)>>a.snapLg)
			k += int64(a.snapK) & (k >> 63)
			e := a.snaps[uint64(k)*uint64(len(a.bins))+uint64(i)]
			sb := t - S + uint64(e.back) // the bin's latest ball before S, back from t
			if sb > span {
				return uint64(top - e.depth) // none from t − span to S
			}
			back = sb
		}
	}
	return uint64(top - a.nodes[a.earliest(i, back, span, ts)].depth + 1)
}

// pastWeight is bin i's load age balls ago, given its load x now: the load
// it had before its earliest ball among the last age, as kept when that
// ball was added (x when it has none).
func (a *arrivals) pastWeight(t, ts uint64, i uint32, x float64, age uint32) float64 {
	span, back := min(uint64(age), t), uint64(int64(t)-a.last[i])
	if back > span {
		return x
	}
	if a.walk {
		_, s := a.chain(back, span, ts)
		return a.before[s]
	}
	return a.before[a.earliest(i, back, span, ts)]
}

// chainCount is count for the chain record, small enough to inline in the
// loops (a call costs a read at τ ≈ n a sixth of its time).
func (a *arrivals) chainCount(back, span, ts uint64) (c uint64) {
	for back <= span {
		c++
		back += uint64(a.link[slotBack(ts, back, a.tau)])
	}
	return c
}

// chain walks the chain record from a bin's latest ball, back balls back
// from t (≤ span), one ball at a time while the next is at most span back:
// the balls it counts and the slot of the earliest. A link to a ball out
// of the ring is far, past any span.
func (a *arrivals) chain(back, span, ts uint64) (c, s uint64) {
	tau, link := a.tau, a.link
	s = slotBack(ts, back, tau)
	for c = 1; ; c++ {
		p := back + uint64(link[s])
		if p > span {
			return c, s
		}
		back = p
		s = slotBack(ts, back, tau)
	}
}
