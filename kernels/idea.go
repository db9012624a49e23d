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
// variant's hold rule refuses it; a held increment is dropped (§3: the bin
// "refrains from increasing its estimated average"), or with Carry banked
// and paid when the hold lifts:
//
//   - IdeaNumbered: the bin's pending total P = E + bank + w/d goes into the
//     estimate as far as the cap ⌈j/n⌉ allows, the rest stays banked. So a
//     held bin catches up when "a ball with number more than αn selects it"
//     (§3), never past the cap.
//   - IdeaSampling: P is the proposed estimate: if it passes no integer, or
//     the sample says the largest it passes is reached, the estimate becomes
//     P and the bank empties; else the estimate rises as far as the sample
//     allows — to A+1, A the largest integer the sampled mean has reached,
//     so that it passes no unreached integer — and the rest is banked. (Were
//     the whole increment banked instead, a bin whose pending total passes α
//     could never reach α exactly, the sampled mean could never reach α, and
//     every estimate would stop below it.)
//
// Drop is Carry with the bank always empty; the held count is the same
// event in both: an increment that does not go in whole at its ball.
//
// Ties among a round's samples go to the first least one, which is the
// uniformly random tie-break of the definition, in law, for the reason given in dchoice.go:
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
	Carry   bool // a held increment is banked, not dropped (see Idea.Bank)
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
	pairs   bool     // d = 2 and n < 2^16: a round is one boundedPair
	thresh  uint32   // pairThresh(n) when pairs
	refuses []uint8  // numbered2: refuses(bin) of every bin
	Bank    []T      // Carry: each bin's banked increments (units of E)
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
	k := &Idea[T]{cfg: c, sc: newIdeaScale[T](c), idx: make([]uint32, c.D), Sampler: sampler,
		Stats: IdeaStats{Rounds: make([]uint64, c.Gamma+1)}}
	k.pairs, k.thresh = roundPairs(c)
	if c.Carry {
		k.Bank = make([]T, c.N)
	}
	return k
}

// roundPairs reports whether c's rounds are pairs, and their threshold.
func roundPairs(c IdeaConfig) (bool, uint32) {
	if c.D == 2 && c.N < pairMax {
		return true, pairThresh(c.N)
	}
	return false, 0
}

// Run throws count balls (weights w[0:count] when T is float64; w is unused
// for unit balls) and returns the new maximum load.
//
// Stream r: per round, d PCG32.Bounded(n), or for d = 2 and n < 2^16 one
// boundedPair (outputs until one is accepted). Sampler: per check, K
// PCG32.Bounded(n), in the order the round's samples are listed.
//
// Unit balls with d = 2 and IdeaNumbered, the benchmark's case, run a
// specialised loop (numbered2); every other case runs general.
func (k *Idea[T]) Run(bins []IdeaBin[T], r *PCG32, w []T, count uint64, maxLoad T) T {
	c := &k.cfg
	if ub, ok := any(bins).([]IdeaBin[int64]); ok && c.D == 2 && c.Variant == IdeaNumbered && !c.Carry {
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
				var i, j uint32
				if k.pairs {
					s, i, j = boundedPair(s, inc, n64, k.thresh)
				} else {
					var m1, m2 uint64
					s, m1 = lemire(s, inc, n64)
					s, m2 = lemire(s, inc, n64)
					i, j = uint32(m1>>32), uint32(m2>>32)
					if uint32(m1) < n || uint32(m2) < n {
						s, i = bounded(s0, inc, n)
						s, j = bounded(s, inc, n)
					}
				}
				idx[0], idx[1] = i, j
				bi, bj := &bins[i], &bins[j]
				ki, kj := mult*bi.L-bi.E, mult*bj.L-bj.E
				best, bz = i, ki
				if kj < ki {
					best, bz = j, kj
				}
			} else {
				s = fillBounded(idx, s, inc, n)
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
			var b T
			if c.Carry {
				b = k.Bank[x]
			}
			var h bool
			if !sampling {
				bins[x].E, b, h = growNumbered(bins[x].E, b, we, capE, c.Carry)
			} else {
				bins[x].E, b, h = k.growSampling(bins, bins[x].E, b, we, c.Carry)
			}
			if h {
				held++
			}
			if c.Carry {
				k.Bank[x] = b
			}
		}
	}
	k.w, k.capAt, k.capE = wsum, capAt, capE
	k.Stats.Fallbacks += fallbacks
	k.Stats.Held += held
	r.state = s
	return maxLoad
}

// Pair draws. A round of d = 2 samples among n < 2^16 bins takes both from
// one PCG32 output, which halves the generator's work on the rounds that
// dominate at heavy load (Brackett-Rozinsky and Lemire, "Batched Ranged
// Random Integer Generation", Software: Practice and Experience 2025).
//
// With x the 32-bit output and N = n² < 2^32: x·n = i·2^32 + r₁ and
// r₁·n = j·2^32 + r₂ (0 ≤ r₁, r₂ < 2^32, so i, j < n), hence
// x·N = (i·n + j)·2^32 + r₂: v = i·n + j is ⌊x·N/2^32⌋ and r₂ is x·N mod 2^32.
// Accepting when r₂ ≥ t = 2^32 mod N is Lemire's exact rejection for the
// bound N (TOMACS 2019, Lemma 4.1): the accepted x of value v are those with
// x·N in [v·2^32 + t, (v+1)·2^32), a half-open interval of length
// 2^32 − t = ⌊2^32/N⌋·N, which holds exactly ⌊2^32/N⌋ multiples of N
// whatever v. So v is uniform on [0, N), and (i, j) = (v div n, v mod n), a
// bijection onto [0, n)², are independent and uniform. A rejected output is
// discarded and the pair is drawn again from the next one (probability
// t/2^32 < N/2^32, 2.2% at n = 10^4).
//
// Why not two 16-bit halves with their own Lemire rejection, the other way
// to take two draws from one output: each half rejects with probability
// (2^16 mod n)/2^16, 8.4% at n = 10^4, so a round of two would miss one time
// in six, an unpredictable branch where this one misses one time in 45.

// pcgMul2 is pcgMul², the multiplier of two steps of the generator.
const pcgMul2 = pcgMul * pcgMul % (1 << 64)

// pairMax is the bound below which a round of d = 2 draws a pair.
const pairMax = 1 << 16

// pairThresh is t = 2^32 mod n² for 1 ≤ n < 2^16.
func pairThresh(n uint32) uint32 {
	return uint32((1 << 32) % (uint64(n) * uint64(n)))
}

// pairOf splits a 32-bit output x into the pair (i, j) for the bound n and
// returns r₂ = x·n² mod 2^32: the pair is accepted when r₂ ≥ pairThresh(n).
func pairOf(x uint32, n uint64) (i, j, r uint32) {
	p := uint64(x) * n
	q := uint64(uint32(p)) * n
	return uint32(p >> 32), uint32(q >> 32), uint32(q)
}

// boundedPair is a round of two draws in [0, n), 1 ≤ n < 2^16, from state s:
// the new state and the pair; thresh = pairThresh(n).
func boundedPair(s, inc uint64, n uint64, thresh uint32) (uint64, uint32, uint32) {
	for {
		i, j, r := pairOf(pcgOutput(s), n)
		s = s*pcgMul + inc
		if r >= thresh {
			return s, i, j
		}
	}
}

// growNumbered applies IdeaNumbered to an increment we of an estimate e with
// bank b (0 without carry) under the cap capE (⌈j/n⌉ in units of E), and
// returns the new estimate and bank and whether the increment was held.
func growNumbered[T int64 | float64](e, b, we, capE T, carry bool) (T, T, bool) {
	held := e+we > capE
	switch p := e + b + we; {
	case p <= capE:
		return p, 0, held
	case carry:
		return capE, p - capE, held
	}
	return e, b, held
}

// growSampling is growNumbered for IdeaSampling: the pending estimate
// e + b + we goes in whole, or the increment is held — dropped, or with
// carry the estimate rises to the sample's cap and the rest is banked.
func (k *Idea[T]) growSampling(bins []IdeaBin[T], e, b, we T, carry bool) (T, T, bool) {
	p := e + b + we
	ok, top := k.reached(bins, e, p)
	return holdSampled(e, b, p, top, ok, carry)
}

// holdSampled is the outcome of IdeaSampling's check for an estimate e with
// bank b and pending total p: in whole when reached, else held — the
// estimate unchanged without carry, raised to min(p, top) (never lowered)
// with carry, the rest banked.
func holdSampled[T int64 | float64](e, b, p, top T, ok, carry bool) (T, T, bool) {
	switch {
	case ok:
		return p, 0, false
	case carry:
		ne := max(e, min(p, top))
		return ne, p - ne, true
	}
	return e, b, true
}

// reached decides IdeaSampling's rise of an estimate from e to p: true when
// it passes no integer α ≥ 1, else after a check of K sampled bins; when
// not, top is the highest estimate the sample allows (sampledCap).
func (k *Idea[T]) reached(bins []IdeaBin[T], e, p T) (bool, T) {
	alpha, ok := passes(k.sc, e, p)
	if !ok {
		return true, p
	}
	k.Stats.Checks++
	n := uint32(len(bins))
	var sum T
	for range k.cfg.K {
		sum += bins[k.Sampler.Bounded(n)].E
	}
	return sampleReached(k.sc, sum, k.cfg.K, alpha, k.cfg.Rounded), sampledCap(k.sc, sum, k.cfg.K, k.cfg.Rounded)
}

// sampledCap is the highest estimate, in units of E, that passes no integer
// the sampled mean has not reached: A+1 for A = ⌊mean⌋ (⌊mean + 1/2⌋ when
// rounded), so that sampleReached(α) ⇔ α ≤ A.
func sampledCap[T int64 | float64](sc ideaScale[T], sum T, K int, rounded bool) T {
	if !sc.real {
		dk := int64(sc.d) * int64(K)
		a := int64(sum) / dk
		if rounded {
			a = (2*int64(sum) + dk) / (2 * dk)
		}
		return T((a + 1) * int64(sc.d))
	}
	mean := float64(sum) / float64(K)
	if rounded {
		mean += 0.5
	}
	return T(math.Floor(mean) + 1)
}

// passes reports whether raising an estimate from e to p passes an integer
// α ≥ 1 (e ≤ α < p, in units of Â), and the largest such α.
func passes[T int64 | float64](sc ideaScale[T], e, p T) (int64, bool) {
	if !sc.real {
		// Integers in units of 1/d: the largest α below p is ⌊(p − 1)/d⌋.
		d := int64(sc.d)
		a := (int64(p) - 1) / d
		return a, a >= 1 && a*d >= int64(e)
	}
	oldA, newA := float64(e), float64(p)
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
// benchmark target names: the same draws and decisions, faster.
//
// At heavy load almost every ball takes all γ rounds (99.6% at n = 10^4,
// m = 4000·n), and a round only asks whether either bin's key is ≤ 0. So
// the loop keeps that answer per bin in a byte (Idea.refuses, 10 KB at
// n = 10^4, which stays in L1 where the 16-byte bins do not), a round is a
// draw and two byte loads, and the keys themselves are read once per ball,
// for its last round. Selects and increments are branch-free, and nothing
// is called inside the loop (a call makes the compiler keep the loop's
// values on the stack): without pairs, fast2 stops before a ball whose
// draws need Lemire's rare rejection step, the general loop throws that one
// and the flags of its round's bins are refreshed.
func (k *Idea[T]) numbered2(bins []IdeaBin[int64], r *PCG32, w []T, count uint64, maxLoad int64) int64 {
	if k.refuses == nil {
		// With pairs the flags are an array of 2^16 that uint16 indices
		// need no bounds check on.
		k.refuses = make([]uint8, max(len(bins), pairMax))
		for i := range bins {
			k.refuses[i] = refuses(&bins[i])
		}
	}
	for count > 0 {
		var done uint64
		done, maxLoad = k.fast2(bins, r, count, maxLoad)
		count -= done
		if count > 0 {
			maxLoad = int64(k.general(any(bins).([]IdeaBin[T]), r, w, 1, T(maxLoad)))
			for _, x := range k.idx {
				k.refuses[x] = refuses(&bins[x])
			}
			count--
		}
	}
	return maxLoad
}

// refuses is 1 when a unit bin of d = 2 would not take a ball
// (2·L − E > 0), else 0: the sign bit of E − 2·L, which cannot overflow as
// |keys| < 2^62.
func refuses(b *IdeaBin[int64]) uint8 {
	return uint8(uint64(b.E-2*b.L) >> 63)
}

// fast2 throws balls until count are thrown or the next ball needs an exact
// bounded draw, and returns how many it threw. With pairs no draw leaves the
// loop, and fastPair2 throws them all.
func (k *Idea[T]) fast2(bins []IdeaBin[int64], r *PCG32, count uint64, maxLoad int64) (uint64, int64) {
	if k.pairs {
		return k.fastPair2(bins, r, count, maxLoad)
	}
	s, inc := r.state, r.inc()
	n := uint32(len(bins))
	n64 := uint64(n)
	rf := k.refuses
	gamma := k.cfg.Gamma
	hist := k.Stats.Rounds[:gamma+1]
	wsum, capAt, capE := int64(k.w), int64(k.capAt), int64(k.capE)
	nI := int64(n)
	var fallbacks, held uint64
	done := uint64(0)
	for ; done < count; done++ {
		ns, i, j, rounds := rounds2(rf, 1, s, inc, n64, gamma)
		if rounds == 0 {
			break // a draw needs Lemire's rejection step: the general loop throws this ball
		}
		s = ns
		wsum++
		if wsum > capAt {
			capAt += nI
			capE += 2
		}
		bi, bj := &bins[i], &bins[j]
		ki, kj := 2*bi.L-bi.E, 2*bj.L-bj.E
		// lt is all ones when kj < ki: |keys| < 2^62, so kj − ki cannot overflow.
		lt := (kj - ki) >> 63
		bz := ki + (kj-ki)&lt
		hist[rounds]++
		fallbacks += uint64(-bz) >> 63 // bz > 0
		// The ball goes to i unless lt: bi.L grows by 1 + lt and bj.L by
		// −lt, which is right when i = j too.
		bi.L += 1 + lt
		bj.L -= lt
		maxLoad = max(maxLoad, bi.L, bj.L)
		// An estimate below the cap grows by one unit, else the increment is held.
		e := bi.E
		below := (e - capE) >> 63 // −1 when e < capE
		bi.E = e - below
		held += uint64(1 + below)
		e = bj.E
		below = (e - capE) >> 63
		bj.E = e - below
		held += uint64(1 + below)
		rf[i], rf[j] = refuses(bi), refuses(bj)
	}
	k.w, k.capAt, k.capE = T(wsum), T(capAt), T(capE)
	k.Stats.Fallbacks += fallbacks
	k.Stats.Held += held
	r.state = s
	return done, maxLoad
}

// refuseMask is the type of a bin's flags in the fast loops: bit k is set
// when the bin's key in dimension k is > 0 (for scalar balls, bit 0 only).
type refuseMask interface{ uint8 | uint64 }

// rounds2 draws a ball's rounds of two bins from state s until a round has
// a bin that takes the ball — none of the dimensions key set in its flags
// rf — or γ rounds are drawn, and returns the new state, the last round's bins
// and the number of rounds; 0 rounds when a draw is inexact. A round's two
// outputs come from one two-step jump of the state, so that the rounds'
// dependency chain is one multiply-add each.
func rounds2[M refuseMask](rf []M, key M, s, inc, n64 uint64, gamma int) (uint64, uint32, uint32, int) {
	mul := uint64(pcgMul)
	mul2, inc2 := mul*mul, inc*(mul+1)
	for rounds := 1; ; rounds++ {
		m1 := uint64(pcgOutput(s)) * n64
		m2 := uint64(pcgOutput(s*mul+inc)) * n64
		s = s*mul2 + inc2
		if min(uint32(m1), uint32(m2)) < uint32(n64) {
			return 0, 0, 0, 0
		}
		i, j := uint32(m1>>32), uint32(m2>>32)
		if rf[i]&key == 0 || rf[j]&key == 0 || rounds == gamma {
			return s, i, j, rounds
		}
	}
}

// roundsPair is rounds2 for n < 2^16, where a round is boundedPair with its
// rejection step inline: one output a round, and uint16 indices need no
// bounds checks (rf holds 2^16 flags).
func roundsPair[M refuseMask](rf *[pairMax]M, key M, s, inc, n64 uint64, thresh uint32, gamma int) (uint64, uint32, uint32, int) {
	for rounds := 1; ; rounds++ {
		i, j, r := pairOf(pcgOutput(s), n64)
		s = s*pcgMul + inc
		if r < thresh {
			rounds-- // rejected: the round is drawn again from the next output
			continue
		}
		if rf[uint16(i)]&key == 0 || rf[uint16(j)]&key == 0 || rounds == gamma {
			return s, i, j, rounds
		}
	}
}

// fastPair2 is fast2 for n < 2^16, where every round is a pair and no ball
// leaves the loop.
func (k *Idea[T]) fastPair2(bins []IdeaBin[int64], r *PCG32, count uint64, maxLoad int64) (uint64, int64) {
	p := pairLoop{toCap: int64(k.capAt) - int64(k.w), top: maxLoad, capE: int64(k.capE),
		gamma: k.cfg.Gamma, left: count, hist: k.Stats.Rounds[:k.cfg.Gamma+1],
		n: uint64(len(bins)), thresh: k.thresh, bins: bins}
	r.state = p.run((*[pairMax]uint8)(k.refuses), r.state, r.inc())
	k.w += T(count)
	k.capAt, k.capE = k.w+T(p.toCap), T(p.capE)
	k.Stats.Fallbacks += p.fallbacks
	k.Stats.Held += p.held
	return count, p.top
}

// pairLoop holds what fastPair2's loop uses once a ball, in memory behind
// one pointer, so that the round loop has the registers to itself: with
// these values (the bins included) in registers, the compiler's register
// allocator spilled and reloaded the round loop's own values every round.
type pairLoop struct {
	toCap     int64 // balls left before the cap rises
	fallbacks uint64
	held      uint64
	top       int64 // the maximum load
	capE      int64
	gamma     int
	left      uint64 // balls left to throw
	hist      []uint64
	n         uint64
	thresh    uint32
	bins      []IdeaBin[int64]
}

// run throws p.left balls from state s and returns the new state. Its round
// loop is roundsPair written out (a call a ball made the compiler keep the
// ball's values on the stack) and specialised to flags of 0 or 1: a round
// takes the ball unless rf[i] & rf[j] is 1, and that value for the last
// round is whether the ball fell back (both keys > 0).
func (p *pairLoop) run(rf *[pairMax]uint8, s, inc uint64) uint64 {
	n64, thresh := p.n, p.thresh
	inc2 := inc * (pcgMul + 1)
	_ = rf[0] // one nil check, not one a round
	for ; p.left > 0; p.left-- {
		var i, j uint32
		var both uint8
		rounds := p.gamma
		for {
			// Two outputs at a time: s·mul² + inc·(mul+1) is s two steps on,
			// so the state's multiply-add chain is one per two outputs.
			s1 := s*pcgMul + inc
			x0, x1 := pcgOutput(s), pcgOutput(s1)
			s = s*pcgMul2 + inc2
			a := uint64(x0) * n64
			b := uint64(uint32(a)) * n64
			if uint32(b) >= thresh {
				i, j = uint32(a>>32), uint32(b>>32)
				rounds--
				both = rf[uint16(i)] & rf[uint16(j)]
				if both == 0 || rounds == 0 {
					s = s1
					break
				}
			}
			a = uint64(x1) * n64
			b = uint64(uint32(a)) * n64
			if uint32(b) >= thresh {
				i, j = uint32(a>>32), uint32(b>>32)
				rounds--
				both = rf[uint16(i)] & rf[uint16(j)]
				if both == 0 || rounds == 0 {
					break
				}
			}
		}
		if p.toCap--; p.toCap < 0 {
			p.toCap += int64(p.n)
			p.capE += 2
		}
		p.hist[p.gamma-rounds]++
		// Both bins refuse exactly when the least key is > 0: a fallback.
		p.fallbacks += uint64(both)
		bins := p.bins
		bi, bj := &bins[i], &bins[j]
		// lt is all ones when j's key is less, and selects j without a
		// branch: |keys| < 2^62, so the difference cannot overflow.
		lt := uint32((2*bj.L - bj.E - (2*bi.L - bi.E)) >> 63)
		to := &bins[i^(i^j)&lt]
		to.L++
		p.top = max(p.top, to.L)
		c := p.capE
		e := bi.E
		below := (e - c) >> 63
		bi.E = e - below
		h := 1 + below
		e = bj.E
		below = (e - c) >> 63
		bj.E = e - below
		p.held += uint64(h + 1 + below)
		rf[uint16(i)], rf[uint16(j)] = refuses(bi), refuses(bj)
	}
	return s
}
