package kernels

import "math"

// IDEA, Improved D-choice with Estimated Average ("Perfectly Balanced
// Allocation With Estimated Average Using Expected Constant Retries", §3).
// Every bin i keeps a load L_i and an estimate Â_i of the global average. A
// ball draws d bins uniformly with replacement (one round); if the least
// estimated gap L_i − Â_i among them is ≤ 0 it goes there, else it draws a
// new round, up to γ rounds, and then goes to the least estimated gap of its
// last round. The estimate of each of the d bins of its final round grows by
// w/d (one share per sample, so a bin drawn twice gets two), unless the
// variant's hold rule refuses it; a held increment is dropped, not deferred
// (§3: the bin "refrains from increasing its estimated average").
//
// Ties among a round's samples go to the first least one, which is the
// random tie-break of DESIGN.md in law for the reason given in dchoice.go:
// the samples are i.i.d., and the estimates that grow are the round's d
// bins whichever of them gets the ball.

// IdeaVariant is the rule that holds an estimate back.
type IdeaVariant uint8

const (
	// IdeaNumbered: balls carry their number j (for weights, the total weight
	// thrown up to and including them). An increment that would take Â past
	// an integer α is held while j ≤ α·n (§3, "Similarly when the estimated
	// average of a bin increases beyond α, α ∈ N, it checks if the next ball
	// selecting it has a number greater than αn"). With Â ≤ ⌈j/n⌉ as an
	// invariant this is exactly: the increment is held when it would take Â
	// above ⌈j/n⌉, which is how the loop tests it.
	IdeaNumbered IdeaVariant = iota
	// IdeaSampling: an increment that would take Â past an integer α ≥ 1
	// (the largest such α when it passes several) samples K bins uniformly
	// from its own stream and goes ahead only if the mean of their estimates
	// says the system has reached α (§3 "in the scenario where numbering of
	// the balls is forbidden …", Appendix A): mean ≥ α, or with Rounded,
	// mean ≥ α − 1/2.
	IdeaSampling
	// IdeaOracle: every bin knows the true average W/n of the balls already
	// thrown (§3 opening: "Given each bin has an accurate knowledge of the
	// average …"); no estimates are kept. A reference, not the paper's rule.
	IdeaOracle
)

// LaneIdeaSamples is the stream of IdeaSampling's checks, and LaneDims the
// stream that picks the populated dimensions of multi-dimensional balls;
// stream.go's lanes are small integers and worker lanes start at 2^16, so
// these values are left free there.
const (
	LaneIdeaSamples Lane = 0x1de0
	LaneDims        Lane = 0x1de1
)

// IdeaBin is one bin of IDEA. For unit balls (T = int64) L counts balls and E
// is the estimate in units of 1/d, so Â = E/d exactly; for weighted balls
// (T = float64) both are reals and E = Â.
type IdeaBin[T int64 | float64] struct{ L, E T }

// IdeaStats counts what IDEA's balls did.
type IdeaStats struct {
	Rounds    []uint64 // Rounds[r]: balls that took r rounds of d draws, 1 ≤ r ≤ γ
	Fallbacks uint64   // balls that found no bin at or below its estimate in γ rounds
	Held      uint64   // increments the hold rule refused
	Checks    uint64   // IdeaSampling: samples of K bins taken
}

// IdeaConfig is IDEA's setup, fixed for a trial.
type IdeaConfig struct {
	N       uint32
	D       int // bins per round, ≥ 1
	Gamma   int // rounds at most, ≥ 1
	Variant IdeaVariant
	K       int  // IdeaSampling: bins per check, ≥ 1
	Rounded bool // IdeaSampling: reached when the mean ≥ α − 1/2
}

// ideaScale holds the constants that make one loop serve integer and real
// estimates: the key of a bin is mult·L − E (d·(L − Â) for integers, L − Â
// for reals; the oracle's n·L and L), an estimate's integers are multiples
// of unit, and a ball of weight w adds w·share to each estimate.
type ideaScale[T int64 | float64] struct {
	real   bool
	mult   T // key = mult·L − E
	unit   T // E of Â = 1
	offDiv T // oracle: the bar of the key is W/offDiv
	d      T
}

func newIdeaScale[T int64 | float64](c IdeaConfig) ideaScale[T] {
	var zero T
	_, real := any(zero).(float64)
	sc := ideaScale[T]{real: real, d: T(c.D), mult: T(c.D), unit: T(c.D), offDiv: 1}
	if real {
		sc.mult, sc.unit = 1, 1
	}
	if c.Variant == IdeaOracle {
		// Integers: n·L ≤ W exactly. Reals: L ≤ W/n, as the definition reads.
		sc.mult, sc.offDiv = T(c.N), 1
		if real {
			sc.mult, sc.offDiv = 1, T(c.N)
		}
	}
	return sc
}

// Idea is one trial's scalar IDEA loop with its running state.
type Idea[T int64 | float64] struct {
	cfg     IdeaConfig
	sc      ideaScale[T]
	idx     []uint32 // the current round's samples
	w       T        // total weight thrown, the current ball included
	capAt   T        // IdeaNumbered: α·n for the current α = ⌈w/n⌉
	capE    T        // IdeaNumbered: α in units of E
	Sampler PCG32    // IdeaSampling's stream (LaneIdeaSamples)
	Stats   IdeaStats
}

// NewIdea sets up the loop; c must be valid (core checks it).
func NewIdea[T int64 | float64](c IdeaConfig, sampler PCG32) *Idea[T] {
	if c.N < 1 || c.D < 1 || c.Gamma < 1 || (c.Variant == IdeaSampling && c.K < 1) {
		panic("kernels: invalid IDEA configuration")
	}
	return &Idea[T]{cfg: c, sc: newIdeaScale[T](c), idx: make([]uint32, c.D), Sampler: sampler,
		Stats: IdeaStats{Rounds: make([]uint64, c.Gamma+1)}}
}

// Run throws count balls (weights w[0:count] when T is float64; w is unused
// for unit balls) and returns the new maximum load.
//
// Stream r: per round, d PCG32.Bounded(n). Sampler: per check, K
// PCG32.Bounded(n), in the order the round's samples are listed.
//
// Unit balls with d = 2 and IdeaNumbered, the benchmark's case, run a
// specialised loop (numbered2); every other case runs general.
func (k *Idea[T]) Run(bins []IdeaBin[T], r *PCG32, w []T, count uint64, maxLoad T) T {
	c := &k.cfg
	if ub, ok := any(bins).([]IdeaBin[int64]); ok && c.D == 2 && c.Variant == IdeaNumbered {
		return T(k.numbered2(ub, r, w, count, int64(maxLoad)))
	}
	return k.general(bins, r, w, count, maxLoad)
}

// general is Run for every case. The variant and d = 2 are tested inside
// the loop: loop-invariant branches that the predictor always gets right,
// which keep one copy of the loop so that the reference test covers every
// variant with the same code.
func (k *Idea[T]) general(bins []IdeaBin[T], r *PCG32, w []T, count uint64, maxLoad T) T {
	c, sc := &k.cfg, k.sc
	s, inc := r.state, r.inc()
	n := uint32(len(bins))
	n64 := uint64(n)
	nT := T(n)
	d, gamma := c.D, c.Gamma
	idx := k.idx[:d]
	hist := k.Stats.Rounds[:gamma+1]
	mult := sc.mult
	wsum, capAt, capE := k.w, k.capAt, k.capE
	oracle := c.Variant == IdeaOracle
	sampling := c.Variant == IdeaSampling
	var fallbacks, held uint64
	for b := range count {
		wl, we := T(1), T(1)
		if sc.real {
			wl = w[b]
			we = wl / sc.d
		}
		var bar T
		if oracle {
			bar = wsum / sc.offDiv // the average before this ball (times n for integers)
		}
		wsum += wl
		for wsum > capAt {
			capAt += nT
			capE += sc.unit
		}
		var best uint32
		var bz T
		rounds := 0
		for {
			rounds++
			s0 := s
			if d == 2 {
				var m1, m2 uint64
				s, m1 = lemire(s, inc, n64)
				s, m2 = lemire(s, inc, n64)
				i, j := uint32(m1>>32), uint32(m2>>32)
				if uint32(m1) < n || uint32(m2) < n {
					s, i = bounded(s0, inc, n)
					s, j = bounded(s, inc, n)
				}
				idx[0], idx[1] = i, j
				bi, bj := &bins[i], &bins[j]
				ki, kj := mult*bi.L-bi.E, mult*bj.L-bj.E
				best, bz = i, ki
				if kj < ki {
					best, bz = j, kj
				}
			} else {
				low := ^uint32(0)
				for q := range idx {
					var m uint64
					s, m = lemire(s, inc, n64)
					low = min(low, uint32(m))
					idx[q] = uint32(m >> 32)
				}
				if low < n {
					s = fillBoundedSlow(idx, s0, inc, n)
				}
				best = idx[0]
				bz = mult*bins[best].L - bins[best].E
				for _, j := range idx[1:] {
					if kj := mult*bins[j].L - bins[j].E; kj < bz {
						best, bz = j, kj
					}
				}
			}
			if bz <= bar || rounds == gamma {
				break
			}
		}
		hist[rounds]++
		if bz > bar {
			fallbacks++
		}
		l := bins[best].L + wl
		bins[best].L = l
		maxLoad = max(maxLoad, l)
		if oracle {
			continue
		}
		for _, x := range idx {
			e := bins[x].E
			switch {
			case !sampling:
				if e+we <= capE {
					bins[x].E = e + we
				} else {
					held++
				}
			case k.reached(bins, e, we):
				bins[x].E = e + we
			default:
				held++
			}
		}
	}
	k.w, k.capAt, k.capE = wsum, capAt, capE
	k.Stats.Fallbacks += fallbacks
	k.Stats.Held += held
	r.state = s
	return maxLoad
}

// fillBoundedSlow redoes a round's draws from state s with exact bounded
// draws.
func fillBoundedSlow(idx []uint32, s, inc uint64, n uint32) uint64 {
	for q := range idx {
		s, idx[q] = bounded(s, inc, n)
	}
	return s
}

// reached decides IdeaSampling's increment of an estimate e by we: true when
// it passes no integer α ≥ 1, else after a check of K sampled bins.
func (k *Idea[T]) reached(bins []IdeaBin[T], e, we T) bool {
	alpha, ok := passes(k.sc, e, we)
	if !ok {
		return true
	}
	k.Stats.Checks++
	n := uint32(len(bins))
	var sum T
	for range k.cfg.K {
		sum += bins[k.Sampler.Bounded(n)].E
	}
	return sampleReached(k.sc, sum, k.cfg.K, alpha, k.cfg.Rounded)
}

// passes reports whether raising an estimate from e by we passes an integer
// α ≥ 1 (old ≤ α < new, in units of Â), and the largest such α.
func passes[T int64 | float64](sc ideaScale[T], e, we T) (int64, bool) {
	if !sc.real {
		// Integers: we = 1 unit of 1/d, so it passes α exactly when e = α·d.
		ei, d := int64(e), int64(sc.d)
		return ei / d, ei%d == 0 && ei >= d
	}
	oldA, newA := float64(e), float64(e+we)
	a := math.Ceil(newA) - 1
	return int64(a), a >= oldA && a >= 1
}

// sampleReached reports whether the mean of K sampled estimates (their sum
// given in units of E) has reached α: mean ≥ α, or mean ≥ α − 1/2 when
// rounded. Exact for integers; for reals the mean is computed as sum/K.
func sampleReached[T int64 | float64](sc ideaScale[T], sum T, K int, alpha int64, rounded bool) bool {
	if !sc.real {
		// mean = sum/(d·K): sum ≥ α·d·K, or 2·sum ≥ (2α − 1)·d·K.
		dk := int64(sc.d) * int64(K)
		if rounded {
			return 2*int64(sum) >= (2*alpha-1)*dk
		}
		return int64(sum) >= alpha*dk
	}
	mean := float64(sum) / float64(K)
	if rounded {
		return mean >= float64(alpha)-0.5
	}
	return mean >= float64(alpha)
}

// numbered2 is Run for unit balls, d = 2 and IdeaNumbered, the case the
// benchmark target names: the same draws and decisions, with the two outputs
// of a round taken from one two-step jump of the state (so the rounds'
// dependency chain is one multiply-add each), branch-free selects and
// increments, and no call inside the loop (a call makes the compiler keep
// the loop's values on the stack): fast2 stops before a ball whose draws
// need Lemire's rare rejection step, and the general loop throws that one.
func (k *Idea[T]) numbered2(bins []IdeaBin[int64], r *PCG32, w []T, count uint64, maxLoad int64) int64 {
	for count > 0 {
		var done uint64
		done, maxLoad = k.fast2(bins, r, count, maxLoad)
		count -= done
		if count > 0 {
			maxLoad = int64(k.general(any(bins).([]IdeaBin[T]), r, w, 1, T(maxLoad)))
			count--
		}
	}
	return maxLoad
}

// fast2 throws balls until count are thrown or the next ball needs an exact
// bounded draw, and returns how many it threw.
func (k *Idea[T]) fast2(bins []IdeaBin[int64], r *PCG32, count uint64, maxLoad int64) (uint64, int64) {
	s, inc := r.state, r.inc()
	mul := uint64(pcgMul)
	mul2, inc2 := mul*mul, inc*(mul+1)
	n := uint32(len(bins))
	n64 := uint64(n)
	gamma := k.cfg.Gamma
	hist := k.Stats.Rounds[:gamma+1]
	wsum, capAt, capE := int64(k.w), int64(k.capAt), int64(k.capE)
	nI := int64(n)
	var fallbacks, held uint64
	done := uint64(0)
	for ; done < count; done++ {
		ns, i, j, lt, bz, rounds := rounds2(bins, s, inc, mul2, inc2, n64, gamma)
		if rounds == 0 {
			break // a draw needs Lemire's rejection step: the general loop throws this ball
		}
		s = ns
		wsum++
		if wsum > capAt {
			capAt += nI
			capE += 2
		}
		best := i ^ (i^j)&uint32(lt)
		hist[rounds]++
		fallbacks += uint64(-bz) >> 63 // bz > 0
		l := bins[best].L + 1
		bins[best].L = l
		maxLoad = max(maxLoad, l)
		// An estimate below the cap grows by one unit, else the increment is held.
		e := bins[i].E
		below := (e - capE) >> 63 // −1 when e < capE
		bins[i].E = e - below
		held += uint64(1 + below)
		e = bins[j].E
		below = (e - capE) >> 63
		bins[j].E = e - below
		held += uint64(1 + below)
	}
	k.w, k.capAt, k.capE = T(wsum), T(capAt), T(capE)
	k.Stats.Fallbacks += fallbacks
	k.Stats.Held += held
	r.state = s
	return done, maxLoad
}

// rounds2 draws fast2's rounds for one ball from state s and returns the new
// state, the last round's bins, the select mask (all ones when j is taken),
// the least key and the number of rounds; 0 rounds when a draw is inexact.
func rounds2(bins []IdeaBin[int64], s, inc, mul2, inc2, n64 uint64, gamma int) (uint64, uint32, uint32, int64, int64, int) {
	for rounds := 1; ; rounds++ {
		m1 := uint64(pcgOutput(s)) * n64
		m2 := uint64(pcgOutput(s*pcgMul+inc)) * n64
		s = s*mul2 + inc2
		if min(uint32(m1), uint32(m2)) < uint32(n64) {
			return 0, 0, 0, 0, 0, 0
		}
		i, j := uint32(m1>>32), uint32(m2>>32)
		bi, bj := &bins[i], &bins[j]
		ki, kj := 2*bi.L-bi.E, 2*bj.L-bj.E
		// lt is all ones when kj < ki: |keys| < 2^62, so kj − ki cannot overflow.
		lt := (kj - ki) >> 63
		bz := ki + (kj-ki)&lt
		if bz <= 0 || rounds == gamma {
			return s, i, j, lt, bz, rounds
		}
	}
}
