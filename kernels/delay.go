package kernels

import "fmt"

// τ-Delay (Los and Sauerwald, "Balanced Allocations with the Choice of
// Noise", §2): a ball samples two bins uniformly and compares loads that may
// be up to τ balls old; the load of bin i read at age a (0 ≤ a ≤ τ) is its
// load after t − a of the t balls placed so far (0 before the start). The
// age is chosen by the mode:
//
//	DelayFixed        a = τ for every read
//	DelayUniform      a uniform in {0, …, τ}, independently per read
//	DelayAdversarial  per comparison, the ages that make the wrong choice
//	                  when one exists: the truly lighter bin is shown at its
//	                  current load, the heavier at its load τ balls ago (the
//	                  least it can show); equal loads are shown as they are.
//	DelayEmpirical    an independent age per ball, from a given distribution
//	                  on {0, …, τ} (Ages), for both of its reads:
//	                  the model of a concurrent run, where a ball reads its
//	                  two bins at one moment and the age measured is the
//	                  ball's (balls placed between its reads and its add).
//	DelayReplay       a given age per ball, in ball order, for both of its
//	                  reads (kernels/replay.go): the exact schedule of a
//	                  concurrent run replayed, not its marginal law.
//
// The ball goes to the bin that looks lighter; equal readings go to i, the
// first sample, a uniformly random one in law (the samples are exchangeable).
//
// Cost. Fixed and adversarial keep the loads as of τ balls ago (past) and a
// ring of the last τ balls' bins: placing a ball adds the ball leaving the
// window to past, O(1). Uniform and empirical keep the last τ balls'
// arrivals (delay_arrivals.go): a read at age a finds its bin's arrivals
// among the last a by jump pointers, O(log(1 + a/n)) expected, and placing
// a ball is O(1). Memory O(n + min(τ, m)) either way, for m balls: no read
// reaches back past the first ball, so a ring longer than the run is never
// needed.

// DelayMode chooses the age of each read.
type DelayMode int

const (
	DelayFixed DelayMode = iota
	DelayUniform
	DelayAdversarial
	DelayEmpirical
	DelayReplay
)

// Delay is the state of a τ-Delay run carried across calls.
type Delay[L loadValue] struct {
	tau  uint64
	mode DelayMode
	ages *Ages     // DelayEmpirical: the law of an age
	t    uint64    // balls placed so far
	past []L       // fixed, adversarial: loads after max(0, t−τ) balls
	bins []uint32  // fixed, adversarial: bin of ball u in slot u mod τ, for the last τ balls
	arr  arrivals  // uniform, empirical, replay: the last τ balls' arrivals by bin (delay_arrivals.go)
	wts  []L       // fixed, adversarial, weighted: weight of ball u in slot u mod τ
	runs *packRuns // Packing: the last τ balls as runs, in place of bins (packing_runs.go)
}

// NewDelay returns the state for n bins, delay τ ≥ 1 and mode, for a run
// of at most balls balls; weighted runs also keep the weights of the last
// τ balls. DelayEmpirical takes the law of the ages over {0, …, τ} (nil
// otherwise). The rings hold min(τ, balls) balls (DelayWindow): slots are
// ball numbers mod τ, and with τ ≥ balls they never wrap.
func NewDelay[L loadValue](n int, tau uint64, mode DelayMode, weighted bool, ages *Ages, balls uint64) *Delay[L] {
	d := &Delay[L]{tau: tau, mode: mode, ages: ages}
	w := DelayWindow(tau, balls)
	if mode == DelayUniform || mode == DelayEmpirical {
		d.arr = newArrivals(n, tau, w, weighted)
		return d
	}
	d.past = make([]L, n)
	d.bins = make([]uint32, w)
	if weighted {
		d.wts = make([]L, w)
	}
	return d
}

// DelayWindow is the length of NewDelay's rings: min(τ, balls), at least 1.
func DelayWindow(tau, balls uint64) uint64 { return max(1, min(tau, balls)) }

// DelayMemory is the bytes NewDelay allocates per bin and per slot of its
// rings (DelayWindow).
func DelayMemory(mode DelayMode, loadBytes int, weighted bool) (perBin, perTau int) {
	if mode == DelayUniform || mode == DelayEmpirical {
		return arrivalsMemory(weighted)
	}
	perBin, perTau = loadBytes, 4
	if weighted {
		perTau += loadBytes
	}
	return perBin, perTau
}

// TauDelay throws count balls by τ-Delay with state d and returns the new
// maximum load.
//
// Stream: two PCG32.Bounded(n) per ball from r; for DelayUniform two
// PCG32.Bounded(τ+1) per ball from noise (i's age, then j's), for
// DelayEmpirical one Alias.Draw per ball. τ < 2^32 − 1.
// 1 ≤ len(loads) ≤ MaxBins.
func TauDelay[L Load](loads []L, r, noise *PCG32, count uint64, d *Delay[L], maxLoad L) L {
	if d.mode == DelayFixed || d.mode == DelayAdversarial {
		general := func(c uint64, maxLoad L) L { return tauDelay(loads, r, noise, c, d, maxLoad) }
		if m, ok := dChoiceSpans(loads, r, count, 2, nil, d, maxLoad, general); ok {
			return m
		}
	}
	return tauDelay(loads, r, noise, count, d, maxLoad)
}

// tauDelay is TauDelay's general loop, every mode (delay_spans.go runs
// fixed and adversarial after the first τ balls).
func tauDelay[L Load](loads []L, r, noise *PCG32, count uint64, d *Delay[L], maxLoad L) L {
	s, inc := r.state, r.inc()
	ns, ninc := noise.state, noise.inc()
	n := uint32(len(loads))
	tau, t := d.tau, d.t
	var idx [2 * stageBalls]uint32
	var ages [2 * stageBalls]uint32
	slot := t % tau
	for count > 0 {
		b := int(min(count, stageBalls))
		s = fillBounded(idx[:2*b], s, inc, n)
		switch d.mode {
		case DelayUniform:
			ns = fillBounded(ages[:2*b], ns, ninc, uint32(tau+1))
		case DelayEmpirical:
			ns = d.ages.fill(ages[:2*b], ns, ninc)
		}
		for k := range b {
			i, j := idx[2*k], idx[2*k+1]
			li, lj := loads[i], loads[j]
			var ri, rj L // the loads as read
			switch d.mode {
			case DelayFixed:
				ri, rj = d.past[i], d.past[j]
			case DelayAdversarial:
				// Written as selects: which bin is lighter is a coin flip
				// for the branch predictor.
				pi, pj := d.past[i], d.past[j]
				ri, rj = choose(b2u(lj < li), li, pi), choose(b2u(li < lj), lj, pj)
			case DelayUniform, DelayEmpirical:
				ri, rj = li, lj
				if back, span, ok := d.arr.within(t, i, ages[2*k]); ok {
					if d.arr.walk { // the same branch every read
						ri -= L(d.arr.chainCount(back, span, slot))
					} else {
						ri -= L(d.arr.count(i, back, span, t, slot))
					}
				}
				if back, span, ok := d.arr.within(t, j, ages[2*k+1]); ok {
					if d.arr.walk { // the same branch every read
						rj -= L(d.arr.chainCount(back, span, slot))
					} else {
						rj -= L(d.arr.count(j, back, span, t, slot))
					}
				}
			}
			c := b2u(rj < ri)
			i, li = choose(c, i, j), choose(c, li, lj)
			li++
			loads[i] = li
			maxLoad = max(maxLoad, li)
			if d.arr.walk { // the same branch every ball
				d.arr.chainAdd(i, t, slot)
			} else if d.arr.last != nil {
				d.arr.add(i, t, slot)
			} else {
				if t >= tau {
					d.past[d.bins[slot]]++
				}
				d.bins[slot] = i
			}
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		count -= uint64(b)
	}
	d.t = t
	r.state, noise.state = s, ns
	return maxLoad
}

// TauDelayWeighted is TauDelay on real loads, ball k weighing w[k]; d must
// come from NewDelay with weighted set.
func TauDelayWeighted(loads []float64, r, noise *PCG32, w []float64, d *Delay[float64], maxLoad float64) float64 {
	s, inc := r.state, r.inc()
	ns, ninc := noise.state, noise.inc()
	n := uint32(len(loads))
	tau, t := d.tau, d.t
	var idx [2 * stageBalls]uint32
	var ages [2 * stageBalls]uint32
	slot := t % tau
	for len(w) > 0 {
		b := min(len(w), stageBalls)
		s = fillBounded(idx[:2*b], s, inc, n)
		switch d.mode {
		case DelayUniform:
			ns = fillBounded(ages[:2*b], ns, ninc, uint32(tau+1))
		case DelayEmpirical:
			ns = d.ages.fill(ages[:2*b], ns, ninc)
		}
		for k, wk := range w[:b] {
			i, j := idx[2*k], idx[2*k+1]
			li, lj := loads[i], loads[j]
			var ri, rj float64
			switch d.mode {
			case DelayFixed:
				ri, rj = d.past[i], d.past[j]
			case DelayAdversarial:
				ri, rj = li, lj
				if li < lj {
					rj = d.past[j]
				} else if lj < li {
					ri = d.past[i]
				}
			case DelayUniform, DelayEmpirical:
				ri = d.arr.pastWeight(t, slot, i, li, ages[2*k])
				rj = d.arr.pastWeight(t, slot, j, lj, ages[2*k+1])
			}
			if rj < ri {
				i, li = j, lj
			}
			if d.arr.last != nil {
				d.arr.before[slot] = li
			}
			li += wk
			loads[i] = li
			maxLoad = max(maxLoad, li)
			if d.arr.walk { // the same branch every ball
				d.arr.chainAdd(i, t, slot)
			} else if d.arr.last != nil {
				d.arr.add(i, t, slot)
			} else {
				if t >= tau {
					d.past[d.bins[slot]] += d.wts[slot]
				}
				d.bins[slot] = i
				d.wts[slot] = wk
			}
			t++
			if slot++; slot == tau {
				slot = 0
			}
		}
		w = w[b:]
	}
	d.t = t
	r.state, noise.state = s, ns
	return maxLoad
}

// DenseAges is the most ages {0, …, τ} whose law Ages draws from a table
// over all of them, zero counts included, as balloc always has: the same
// stream, so seeded runs on such a law give what they gave. A larger τ
// (from an --ages file with ages up to 2^32 − 2) is drawn from a table over
// only the ages of positive count, which keeps memory O(ages listed)
// instead of O(τ).
const DenseAges = 1 << 20

// Ages is the law of a DelayEmpirical age: an alias table over outcomes,
// outcome k being age[k] (or k itself when age is nil, the dense table).
type Ages struct {
	alias *Alias
	age   []uint32 // nil: outcome a is age a
}

// NewAges builds the law of ages age[k] with counts count[k] > 0, the ages
// increasing and at most tau < 2^32 − 1 (a law may list a largest age τ
// with count 0: τ still bounds the ring).
func NewAges(age []uint32, count []uint64, tau uint64) (*Ages, error) {
	if len(age) == 0 || len(age) != len(count) || tau >= MaxBins || uint64(age[len(age)-1]) > tau {
		return nil, fmt.Errorf("kernels: a law of %d ages up to %d", len(age), tau)
	}
	if tau+1 <= DenseAges {
		dense := make([]uint64, tau+1)
		for k, a := range age {
			dense[a] = count[k]
		}
		alias, err := NewAlias(dense)
		if err != nil {
			return nil, err
		}
		return &Ages{alias: alias}, nil
	}
	alias, err := NewAlias(count)
	if err != nil {
		return nil, err
	}
	return &Ages{alias: alias, age: append([]uint32(nil), age...)}, nil
}

// AgesMemory bounds the bytes NewAges holds and builds with (the alias
// table's scaled weights and work lists) for k ages up to tau.
func AgesMemory(k int, tau uint64) uint64 {
	outcomes := uint64(k)
	if tau+1 <= DenseAges {
		outcomes = tau + 1
	}
	// prob, alias, keep (9) and age (4) kept; scaled weights, the two work
	// lists and a dense copy (32) while building.
	return outcomes * (9 + 4 + 32)
}

// Draw returns an age. Stream: that of Alias.Draw over the outcomes: τ+1
// of them for τ < DenseAges, else one per age of positive count.
func (a *Ages) Draw(r *PCG32) uint32 {
	var x uint32
	r.state, x = a.alias.draw(r.state, r.inc())
	if a.age != nil {
		x = a.age[x]
	}
	return x
}

// fill draws len(dst)/2 ages, each written twice (a ball's two reads share
// its age), and returns the new state. The dense or sparse table is chosen
// once per call, not per ball.
func (a *Ages) fill(dst []uint32, s, inc uint64) uint64 {
	alias := a.alias
	for k := 0; k+1 < len(dst); k += 2 {
		s, dst[k] = alias.draw(s, inc)
	}
	if a.age != nil {
		for k := 0; k+1 < len(dst); k += 2 {
			dst[k] = a.age[dst[k]]
		}
	}
	for k := 0; k+1 < len(dst); k += 2 {
		dst[k+1] = dst[k]
	}
	return s
}
