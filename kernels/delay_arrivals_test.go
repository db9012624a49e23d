package kernels

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"testing"
)

// The literal loops the arrivals record replaced (delay_arrivals.go), kept
// as the reference: per bin its latest ball, per ball in a ring of the last
// τ the previous ball of the same bin, and a read at age a walking back over
// the bin's balls among the last a, one step per ball. The loops below are
// tauDelay's, TauDelayWeighted's and TauDelayReplay's as they were, with
// their reads through this walk; the fast loops must give their balls, ball
// for ball, and leave the streams where they leave them.

// literalDelay is the walk's state.
type literalDelay struct {
	tau, t uint64
	mode   DelayMode
	ages   *Ages
	prev   []int64   // slot u mod τ: the previous ball to the same bin, −1 if none
	last   []int64   // per bin, its latest ball, −1 if none
	wts    []float64 // weighted: weight of ball u in slot u mod τ
}

func newLiteralDelay(n int, tau uint64, mode DelayMode, ages *Ages, balls uint64) *literalDelay {
	w := DelayWindow(tau, balls)
	if mode == DelayReplay {
		tau = max(tau, 1)
		w = tau
	}
	d := &literalDelay{tau: tau, mode: mode, ages: ages, prev: make([]int64, w), last: make([]int64, n), wts: make([]float64, w)}
	for i := range d.last {
		d.last[i] = -1
	}
	return d
}

// literalRecent counts bin i's balls among the last a of the t placed (all
// of them when a > t: loads before the start are 0).
func literalRecent(last, prev []int64, tau, t uint64, i uint32, a uint32) uint64 {
	c := uint64(0)
	from := max(0, int64(t)-int64(a)) // last[i] = −1 (none) stops the walk
	for u := last[i]; u >= from; u = prev[uint64(u)%tau] {
		c++
	}
	return c
}

// literalPastWeight is bin i's load a balls ago, given its load x now: x
// minus the weight it received from the last a balls, and exactly 0 when
// that was all of it.
func literalPastWeight(d *literalDelay, t uint64, i uint32, x float64, a uint32) float64 {
	from := max(0, int64(t)-int64(a))
	u := d.last[i]
	for ; u >= from; u = d.prev[uint64(u)%d.tau] {
		x -= d.wts[uint64(u)%d.tau]
	}
	if u < 0 {
		return 0
	}
	return x
}

// literalTauDelay is tauDelay in DelayUniform and DelayEmpirical.
func literalTauDelay[L Load](loads []L, r, noise *PCG32, count uint64, d *literalDelay, maxLoad L) L {
	n := uint32(len(loads))
	tau, t := d.tau, d.t
	for ; count > 0; count-- {
		i, j := r.Bounded(n), r.Bounded(n)
		var ai, aj uint32
		if d.mode == DelayUniform {
			ai, aj = noise.Bounded(uint32(tau+1)), noise.Bounded(uint32(tau+1))
		} else {
			ai = d.ages.Draw(noise)
			aj = ai
		}
		li, lj := loads[i], loads[j]
		ri := li - L(literalRecent(d.last, d.prev, tau, t, i, ai))
		rj := lj - L(literalRecent(d.last, d.prev, tau, t, j, aj))
		if rj < ri {
			i, li = j, lj
		}
		li++
		loads[i] = li
		maxLoad = max(maxLoad, li)
		d.prev[t%tau] = d.last[i]
		d.last[i] = int64(t)
		t++
	}
	d.t = t
	return maxLoad
}

// literalTauDelayWeighted is TauDelayWeighted in DelayUniform and
// DelayEmpirical.
func literalTauDelayWeighted(loads []float64, r, noise *PCG32, w []float64, d *literalDelay, maxLoad float64) float64 {
	n := uint32(len(loads))
	tau, t := d.tau, d.t
	for _, wk := range w {
		i, j := r.Bounded(n), r.Bounded(n)
		var ai, aj uint32
		if d.mode == DelayUniform {
			ai, aj = noise.Bounded(uint32(tau+1)), noise.Bounded(uint32(tau+1))
		} else {
			ai = d.ages.Draw(noise)
			aj = ai
		}
		li, lj := loads[i], loads[j]
		ri := literalPastWeight(d, t, i, li, ai)
		rj := literalPastWeight(d, t, j, lj, aj)
		if rj < ri {
			i, li = j, lj
		}
		li += wk
		loads[i] = li
		maxLoad = max(maxLoad, li)
		d.prev[t%tau] = d.last[i]
		d.last[i] = int64(t)
		d.wts[t%tau] = wk
		t++
	}
	d.t = t
	return maxLoad
}

// literalReplay is TauDelayReplay.
func literalReplay[L Load](loads []L, r *PCG32, ages []uint32, d *literalDelay, maxLoad L) L {
	n := uint32(len(loads))
	tau, t := d.tau, d.t
	for _, a := range ages {
		i, j := r.Bounded(n), r.Bounded(n)
		li, lj := loads[i], loads[j]
		ri := li - L(literalRecent(d.last, d.prev, tau, t, i, a))
		rj := lj - L(literalRecent(d.last, d.prev, tau, t, j, a))
		if rj < ri {
			i, li = j, lj
		}
		li++
		loads[i] = li
		maxLoad = max(maxLoad, li)
		d.prev[t%tau] = d.last[i]
		d.last[i] = int64(t)
		t++
	}
	d.t = t
	return maxLoad
}

// forEachRecord runs f as a subtest with each arrivals record forced
// through walkRatio: the chain (walk) and the jumps, whatever τ/n; the
// reference checks below run under both, so each record is checked against
// the literal walk at every τ/n of the grid, not only where newArrivals
// would choose it.
func forEachRecord(t *testing.T, f func(t *testing.T, walk bool)) {
	defer func(r [2]uint64) { walkRatio = r }(walkRatio)
	for _, rec := range []struct {
		name  string
		ratio uint64
		walk  bool
	}{{"chain", math.MaxUint32, true}, {"jumps", 0, false}} {
		walkRatio = [2]uint64{rec.ratio, rec.ratio}
		t.Run(rec.name, func(t *testing.T) { f(t, rec.walk) })
	}
}

// checkRecord fails unless a, when in use (uniform, empirical, replay), is
// the record forced: a dispatch that ignored walkRatio would check one
// record twice.
func checkRecord(t *testing.T, a *arrivals, walk bool) {
	t.Helper()
	if a.last != nil && a.walk != walk {
		t.Fatalf("the record is the chain: %v, want %v", a.walk, walk)
	}
}

// put is the loops' insert: the chain's or the jumps'.
func (a *arrivals) put(i uint32, t, ts uint64) {
	if a.walk {
		a.chainAdd(i, t, ts)
	} else {
		a.add(i, t, ts)
	}
}

// literalBalls is the balls for n bins and delay τ that keep a literal
// run's walk within budget steps (the walk costs about τ/n a read, at most
// the balls placed), at least 2000.
func literalBalls(n int, tau uint64, budget float64) uint64 {
	m := math.Sqrt(budget * float64(n))
	if perRead := float64(tau) / float64(n); perRead >= 1 {
		m = max(m, budget/perRead/2)
	}
	return uint64(max(2000, min(m, 3e5)))
}

// The grid of the checks below: bins, delays (0 for replay only), seeds.
var (
	arrivalBins   = []int{1, 2, 3, 64, 1000}
	arrivalSeeds  = func() []uint64 { return []uint64{1, 2, 3, 4, 5, 6, 7, 8} }
	arrivalBudget = 3e7 // literal walk steps a case, about
)

func arrivalTaus(n int) []uint64 {
	return []uint64{0, 1, uint64(n), 100 * uint64(n), 100000}
}

// arrivalGrid is the seeds and walk budget of a case: all eight seeds and
// the full budget in the long suite; under -short one seed and a tenth of
// the budget, every bins × delay × mode × record case still run. The seeds
// vary the stream, not the branches: off-by-ones in the reads (within's
// back ≤ span as <, earliest's prev step ≤ span as <, count's snapshot
// test sb > span as ≥) fail 26, 13 and 3 of the τ-Delay, weighted and
// replay cases with one seed (44, 25 and 4 with two).
func arrivalGrid(short bool) ([]uint64, float64) {
	if short {
		return arrivalSeeds()[:1], arrivalBudget / 10
	}
	return arrivalSeeds(), arrivalBudget
}

// parts splits m balls into uneven calls, so the state carried between
// calls is checked too.
func parts(m uint64) []uint64 {
	var p []uint64
	for c := uint64(1); m > 0; c = c*7 + 3 {
		c = min(c, m)
		p = append(p, c)
		m -= c
	}
	return p
}

// TauDelay in its uniform and empirical modes (the empirical law over a
// few ages up to τ, the largest at τ), 32- and 64-bit loads, gives the
// literal loop's balls and streams for every bins × delay × seed.
func TestTauDelayArrivalsMatchLiteral(t *testing.T) {
	forEachRecord(t, func(t *testing.T, walk bool) {
		seeds, budget := arrivalGrid(testing.Short())
		for _, n := range arrivalBins {
			for _, tau := range arrivalTaus(n) {
				if tau == 0 {
					continue // TauDelay takes τ ≥ 1: core runs two-choice at 0
				}
				ages, err := NewAges([]uint32{0, uint32(tau / 3), uint32(tau)}, []uint64{2, 3, 4}, tau)
				if err != nil {
					t.Fatal(err)
				}
				m := literalBalls(n, tau, budget)
				for _, mode := range []DelayMode{DelayUniform, DelayEmpirical} {
					for _, seed := range seeds {
						name := fmt.Sprintf("n=%d τ=%d mode=%d seed=%d m=%d", n, tau, mode, seed, m)
						fast, slow, wide := make([]uint32, n), make([]uint32, n), make([]uint64, n)
						r1, z1 := TrialStream(seed, uint64(n), LaneChoices), TrialStream(seed, uint64(n), LaneNoise)
						r2, z2, r3, z3 := r1, z1, r1, z1
						d := NewDelay[uint32](n, tau, mode, false, ages, m)
						dw := NewDelay[uint64](n, tau, mode, false, ages, m)
						lit := newLiteralDelay(n, tau, mode, ages, m)
						checkRecord(t, &d.arr, walk)
						checkRecord(t, &dw.arr, walk)
						var mf, ms uint32
						var mw uint64
						for _, c := range parts(m) {
							mf = TauDelay(fast, &r1, &z1, c, d, mf)
							mw = TauDelay(wide, &r3, &z3, c, dw, mw)
							ms = literalTauDelay(slow, &r2, &z2, c, lit, ms)
						}
						if !slices.Equal(fast, slow) || mf != ms || r1 != r2 || z1 != z2 {
							t.Errorf("%s: TauDelay differs from the literal loop", name)
						}
						for i := range wide {
							if wide[i] != uint64(slow[i]) || r3 != r2 || z3 != z2 || mw != uint64(ms) {
								t.Fatalf("%s: 64-bit TauDelay differs from the literal loop", name)
							}
						}
					}
				}
			}
		}
	})
}

// TauDelayReplay, ages uniform in {0, …, τ} with runs of old and of fresh
// reads mixed in, gives the literal loop's balls, τ = 0 included.
func TestReplayArrivalsMatchLiteral(t *testing.T) {
	forEachRecord(t, func(t *testing.T, walk bool) {
		seeds, budget := arrivalGrid(testing.Short())
		for _, n := range arrivalBins {
			for _, tau := range arrivalTaus(n) {
				m := literalBalls(n, tau, budget)
				for _, seed := range seeds {
					gen := TrialStream(seed, 99, LaneNoise)
					ages := make([]uint32, m)
					for k := range ages {
						switch a := gen.Bounded(uint32(tau + 1)); k / 500 % 3 {
						case 0:
							ages[k] = a
						case 1:
							ages[k] = uint32(tau) // a burst of the oldest reads
						default:
							ages[k] = min(a, uint32(k%7)) // fresh reads
						}
					}
					fast, slow := make([]uint32, n), make([]uint32, n)
					r1 := TrialStream(seed, uint64(n)+tau, LaneChoices)
					r2 := r1
					d := NewReplay[uint32](n, tau)
					lit := newLiteralDelay(n, tau, DelayReplay, nil, m)
					checkRecord(t, &d.arr, walk)
					var mf, ms uint32
					done := uint64(0)
					for _, c := range parts(m) {
						mf = TauDelayReplay(fast, &r1, ages[done:done+c], d, mf)
						ms = literalReplay(slow, &r2, ages[done:done+c], lit, ms)
						done += c
					}
					if !slices.Equal(fast, slow) || mf != ms || r1 != r2 {
						t.Errorf("n=%d τ=%d seed=%d m=%d: TauDelayReplay differs from the literal loop", n, tau, seed, m)
					}
				}
			}
		}
	})
}

// Weighted τ-Delay in the uniform and empirical modes. With weights that
// are multiples of 1/8 every load is exact in float64, the literal loop's
// subtractions included, so the balls must be its balls. With exponential
// weights the read is the bin's load as it was after t − a balls, exactly
// (the reference keeps every bin's load after every ball), where the
// literal loop's subtractions left rounding residue.
func TestTauDelayWeightedArrivalsMatchLiteral(t *testing.T) {
	forEachRecord(t, func(t *testing.T, walk bool) {
		seeds, budget := arrivalGrid(testing.Short())
		for _, n := range arrivalBins {
			for _, tau := range arrivalTaus(n) {
				if tau == 0 {
					continue
				}
				ages, err := NewAges([]uint32{0, uint32(tau / 2), uint32(tau)}, []uint64{1, 1, 2}, tau)
				if err != nil {
					t.Fatal(err)
				}
				m := literalBalls(n, tau, budget)
				for _, mode := range []DelayMode{DelayUniform, DelayEmpirical} {
					for _, seed := range seeds {
						name := fmt.Sprintf("n=%d τ=%d mode=%d seed=%d m=%d", n, tau, mode, seed, m)
						wr := TrialStream(seed, 5, LaneWeights)
						w := make([]float64, m)
						for k := range w {
							w[k] = float64(1+wr.Bounded(16)) / 8
						}
						fast, slow := make([]float64, n), make([]float64, n)
						r1, z1 := TrialStream(seed, uint64(n), LaneChoices), TrialStream(seed, uint64(n), LaneNoise)
						r2, z2 := r1, z1
						d := NewDelay[float64](n, tau, mode, true, ages, m)
						lit := newLiteralDelay(n, tau, mode, ages, m)
						checkRecord(t, &d.arr, walk)
						var mf, ms float64
						done := uint64(0)
						for _, c := range parts(m) {
							mf = TauDelayWeighted(fast, &r1, &z1, w[done:done+c], d, mf)
							ms = literalTauDelayWeighted(slow, &r2, &z2, w[done:done+c], lit, ms)
							done += c
						}
						if !slices.Equal(fast, slow) || mf != ms || r1 != r2 || z1 != z2 {
							t.Errorf("%s: weighted TauDelay differs from the literal loop", name)
						}
					}
				}
			}
		}
	})
}

// The weighted read is the bin's load after t − a balls, bit for bit:
// checked read by read against every bin's load after every ball, with
// exponential weights (sums rounded), in a two-choice run driven by the
// reads themselves.
func TestPastWeightIsTheLoadThen(t *testing.T) {
	forEachRecord(t, func(t *testing.T, walk bool) {
		for _, n := range []int{1, 3, 64} {
			for _, tau := range []uint64{1, uint64(n), 100 * uint64(n)} {
				const m = 6000
				a := newArrivals(n, tau, DelayWindow(tau, m), true)
				checkRecord(t, &a, walk)
				loads := make([]float64, n)
				then := make([][]float64, n) // then[i][u]: bin i's load after u balls
				for i := range then {
					then[i] = make([]float64, 1, m+1)
				}
				r := TrialStream(uint64(n), tau, LaneNoise)
				for u := uint64(0); u < m; u++ {
					ts := u % tau
					i, j := r.Bounded(uint32(n)), r.Bounded(uint32(n))
					ai, aj := r.Bounded(uint32(tau+1)), r.Bounded(uint32(tau+1))
					ri := a.pastWeight(u, ts, i, loads[i], ai)
					rj := a.pastWeight(u, ts, j, loads[j], aj)
					if want := then[i][u-min(u, uint64(ai))]; ri != want {
						t.Fatalf("n=%d τ=%d ball %d: bin %d at age %d reads %v, its load then was %v", n, tau, u, i, ai, ri, want)
					}
					if want := then[j][u-min(u, uint64(aj))]; rj != want {
						t.Fatalf("n=%d τ=%d ball %d: bin %d at age %d reads %v, its load then was %v", n, tau, u, j, aj, rj, want)
					}
					if rj < ri {
						i = j
					}
					a.before[ts] = loads[i]
					a.put(i, u, ts)
					loads[i] += r.Exp()
					for b := range then {
						then[b] = append(then[b], loads[b])
					}
				}
			}
		}
	})
}

// walkSteps is arrivals.earliest's walk for bin i at age a, counting its
// steps, and the arrivals it spans.
func walkSteps(ar *arrivals, t, ts uint64, i uint32, age uint32) (steps, count int) {
	b := &ar.bins[i]
	span := min(uint64(age), t)
	back := uint64(int64(t) - ar.last[i])
	if back > span {
		return 0, 0
	}
	nd := ar.nodes[slotBack(ts, back, ar.tau)]
	for {
		if j := back + uint64(nd.jump); j <= span {
			back = j
		} else if p := back + uint64(nd.prev); p <= span {
			back = p
		} else {
			return steps, int(b.depth - nd.depth + 1)
		}
		steps++
		nd = ar.nodes[slotBack(ts, back, ar.tau)]
	}
}

// The record's counts are the literal walk's, read by read, for bins
// chosen uniformly, by a heavy bin, and in runs (long chains, the walk's
// worst case); and the jump pointers keep every walk within 2·len(k) +
// len(D) + 2 steps for k arrivals from a ball of depth D (len: bits.Len;
// the skew-binary walk's O(log D), and the bound held over 1.6·10^7 random
// reads at n up to 1000, τ up to 10^6, D up to 2·10^6). A record whose
// jumps were its previous balls would take k − 1: this catches a layout
// that is right but slow.
func TestArrivalsCountsAndSteps(t *testing.T) {
	forEachRecord(t, func(t *testing.T, walk bool) {
		_, budget := arrivalGrid(testing.Short())
		for _, n := range arrivalBins {
			for _, tau := range arrivalTaus(n) {
				ring := max(tau, 1)
				m := min(20000, literalBalls(n, tau, budget/3))
				w := DelayWindow(ring, m)
				for pattern := range 3 {
					ar := newArrivals(n, ring, w, false)
					checkRecord(t, &ar, walk)
					lit := newLiteralDelay(n, ring, DelayReplay, nil, m)
					r := TrialStream(uint64(n)+tau, uint64(pattern), LaneNoise)
					for u := uint64(0); u < m; u++ {
						ts := u % ring
						for range 2 {
							i, a := r.Bounded(uint32(n)), r.Bounded(uint32(ring+1))
							if u%97 == 0 {
								a = uint32(ring) // the oldest read
							}
							want := literalRecent(lit.last, lit.prev, ring, u, i, a)
							if got := ar.recent(u, ts, i, a); got != want {
								t.Fatalf("n=%d τ=%d pattern %d ball %d: bin %d at age %d: %d arrivals, the literal walk %d", n, tau, pattern, u, i, a, got, want)
							}
							if walk {
								continue // the chain's steps are its count
							}
							steps, k := walkSteps(&ar, u, ts, i, a)
							if uint64(k) != want {
								t.Fatalf("walkSteps spans %d arrivals, want %d", k, want)
							}
							if top := ar.bins[i].depth; k > 0 && steps > 2*bits.Len(uint(k))+bits.Len(uint(top))+2 {
								t.Fatalf("n=%d τ=%d pattern %d ball %d: %d steps for %d arrivals, depth %d", n, tau, pattern, u, steps, k, top)
							}
						}
						var i uint32
						switch pattern {
						case 0:
							i = r.Bounded(uint32(n))
						case 1: // half the balls to bin 0
							i = r.Bounded(uint32(n)) & -uint32(r.Uint32()&1)
						default: // runs of 1000 balls to one bin
							i = uint32(u/1000) % uint32(n)
						}
						ar.put(i, u, ts)
						lit.prev[ts] = lit.last[i]
						lit.last[i] = int64(u)
					}
				}
			}
		}
	})
}

// The skew-binary counter of Myers's jumps: skewInc's form sums to the
// count, in canonical form (digits 0 or 1, the least nonzero one may be 2).
func TestSkewInc(t *testing.T) {
	m := uint64(0)
	for c := uint64(1); c < 1<<16; c++ {
		m = skewInc(m)
		sum := uint64(0)
		d := m &^ (1 << 63)
		for k := range 63 {
			if d>>k&1 != 0 {
				sum += 1<<(k+1) - 1
			}
		}
		if m>>63 != 0 {
			sum += d&-d<<1 - 1 // the least term twice
		}
		if sum != c {
			t.Fatalf("count %d: skew form %#x sums to %d", c, m, sum)
		}
	}
}
