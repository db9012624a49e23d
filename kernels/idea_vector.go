package kernels

import "math/bits"

// Multi-dimensional balls ("Perfectly Balanced Allocation With Estimated
// Average …", §6.2, after Mitzenmacher et al.'s model [5]): a ball is a
// vector over D dimensions with f of them populated, chosen uniformly among
// the D-choose-f subsets; a populated dimension carries 1 (unit balls) or a
// weight. Bins carry load vectors, stored bin-major: bin i's dimension k is
// entry i·D + k.
//
// IDEA on vectors keeps one estimate per bin and dimension, and runs the
// scalar rule dimension by dimension: a bin's estimated gap for a ball is the
// largest L_ik − Â_ik over the ball's populated dimensions k (or over all D
// with AllDims), a round succeeds when its least estimated gap is ≤ 0, and
// each populated dimension of the final round's bins grows its estimate by
// v_k/d under the variant's hold rule, applied per dimension with that
// dimension's own total (the ball's number in dimension k).
//
// d-choice on vectors, the baseline, sends a ball to the sample whose load
// vector has the least maximum coordinate (ties to the first).

// MaxDims is the most dimensions a ball may have.
const MaxDims = 64

// VecShape is the shape of multi-dimensional balls.
type VecShape struct {
	Dims    int  // D, 1 ≤ D ≤ MaxDims
	F       int  // populated dimensions per ball, 1 ≤ F ≤ D
	AllDims bool // IDEA's key over all D dimensions instead of the populated ones
}

// drawDims writes the ball's f populated dimensions of D, ascending, by
// Floyd's algorithm (as RandomSubsets): for j = D−f … D−1 draw t uniform in
// [0, j] and take t, or j when t is taken. Stream: f PCG32.Bounded per ball.
func drawDims(s, inc uint64, D, f int, ds *[MaxDims]uint8) uint64 {
	s, mask := drawMask(s, inc, D, f)
	for q := 0; mask != 0; q++ {
		ds[q] = uint8(bits.TrailingZeros64(mask))
		mask &= mask - 1
	}
	return s
}

// drawMask is drawDims returning the dimensions as a bit mask.
func drawMask(s, inc uint64, D, f int) (uint64, uint64) {
	var mask uint64
	for j := D - f; j < D; j++ {
		var t uint32
		s, t = bounded(s, inc, uint32(j+1))
		if mask>>t&1 != 0 {
			t = uint32(j)
		}
		mask |= 1 << t
	}
	return s, mask
}

// IdeaVec is one trial's multi-dimensional IDEA loop with its running state.
type IdeaVec[T int64 | float64] struct {
	cfg     IdeaConfig
	shape   VecShape
	sc      ideaScale[T]
	idx     []uint32
	pairs   bool   // as Idea's
	thresh  uint32 // as Idea's
	refuses any    // fastVec: []uint8 (D ≤ 8) or []uint64, the bins' refuseMask
	Bank    []T    // Carry: banked increments per bin and dimension, as Idea.Bank
	w       []T    // per dimension: total weight thrown, the current ball included
	capAt   []T    // IdeaNumbered, per dimension: α·n
	capE    []T    // IdeaNumbered, per dimension: α in units of E
	off     []T    // IdeaOracle, per dimension: the average before the ball (×n for integers)
	Sampler PCG32
	Shapes  PCG32 // the populated dimensions (LaneDims)
	Stats   IdeaStats
}

// NewIdeaVec sets up the loop; c and shape must be valid (core checks them).
func NewIdeaVec[T int64 | float64](c IdeaConfig, shape VecShape, sampler, shapes PCG32) *IdeaVec[T] {
	if c.N < 1 || c.D < 1 || c.Gamma < 1 || (c.Variant == IdeaSampling && c.K < 1) ||
		shape.Dims < 1 || shape.Dims > MaxDims || shape.F < 1 || shape.F > shape.Dims {
		panic("kernels: invalid multi-dimensional IDEA configuration")
	}
	D := shape.Dims
	k := &IdeaVec[T]{cfg: c, shape: shape, sc: newIdeaScale[T](c), idx: make([]uint32, c.D),
		w: make([]T, D), capAt: make([]T, D), capE: make([]T, D), off: make([]T, D),
		Sampler: sampler, Shapes: shapes, Stats: IdeaStats{Rounds: make([]uint64, c.Gamma+1)}}
	k.pairs, k.thresh = roundPairs(c)
	if c.Carry {
		k.Bank = make([]T, int(c.N)*D)
	}
	return k
}

// vecKey is a bin's estimated gap for a ball (scaled as the scalar key),
// over the listed dimensions.
func vecKey[T int64 | float64](row []IdeaBin[T], ds []uint8, off []T, mult T) T {
	k0 := ds[0]
	key := mult*row[k0].L - row[k0].E - off[k0]
	for _, k := range ds[1:] {
		key = max(key, mult*row[k].L-row[k].E-off[k])
	}
	return key
}

// Run throws count balls and returns the new maximum coordinate. For
// T = float64, w holds F values per ball (ball b's populated dimensions in
// ascending order take w[b·F:(b+1)·F]); for unit balls w is unused.
//
// Streams: Shapes, F PCG32.Bounded per ball (drawDims); r, per round, as
// Idea.Run; Sampler, K PCG32.Bounded(n) per check, slots in order,
// dimensions ascending within a slot.
//
// Unit balls with d = 2 and IdeaNumbered, the benchmark's case, run a
// specialised loop (fastVec); every other case runs general.
func (k *IdeaVec[T]) Run(bins []IdeaBin[T], r *PCG32, w []T, count uint64, maxLoad T) T {
	ub, ok := any(bins).([]IdeaBin[int64])
	if !ok || k.cfg.D != 2 || k.cfg.Variant != IdeaNumbered || k.cfg.Carry {
		return k.general(bins, r, w, count, maxLoad)
	}
	if k.refuses == nil {
		if k.shape.Dims <= 8 {
			k.refuses = newRefuses[uint8](ub, k.shape.Dims)
		} else {
			k.refuses = newRefuses[uint64](ub, k.shape.Dims)
		}
	}
	if rf, ok := k.refuses.([]uint8); ok {
		return T(fastVec(k, rf, ub, r, count, int64(maxLoad)))
	}
	return T(fastVec(k, k.refuses.([]uint64), ub, r, count, int64(maxLoad)))
}

// general is Run for every case.
func (k *IdeaVec[T]) general(bins []IdeaBin[T], r *PCG32, w []T, count uint64, maxLoad T) T {
	c, sc, D, F := &k.cfg, k.sc, k.shape.Dims, k.shape.F
	s, inc := r.state, r.inc()
	ss, sinc := k.Shapes.state, k.Shapes.inc()
	n := uint32(len(bins) / D)
	n64 := uint64(n)
	nT := T(n)
	d, gamma := c.D, c.Gamma
	idx := k.idx[:d]
	hist := k.Stats.Rounds[:gamma+1]
	mult := sc.mult
	oracle := c.Variant == IdeaOracle
	sampling := c.Variant == IdeaSampling
	var all [MaxDims]uint8
	for q := range D {
		all[q] = uint8(q)
	}
	var ds [MaxDims]uint8
	var v [MaxDims]T
	var fallbacks, held uint64
	for b := range count {
		ss = drawDims(ss, sinc, D, F, &ds)
		pop := ds[:F]
		keyDims := pop
		if k.shape.AllDims {
			keyDims = all[:D]
		}
		for q, kd := range pop {
			v[q] = 1
			if sc.real {
				v[q] = w[int(b)*F+q]
			}
			k.w[kd] += v[q]
			for k.w[kd] > k.capAt[kd] {
				k.capAt[kd] += nT
				k.capE[kd] += sc.unit
			}
		}
		var best uint32
		var bz T
		rounds := 0
		for {
			rounds++
			if k.pairs {
				s, idx[0], idx[1] = boundedPair(s, inc, n64, k.thresh)
			} else {
				s = fillBounded(idx, s, inc, n)
			}
			best = idx[0]
			bz = vecKey(bins[int(best)*D:int(best)*D+D], keyDims, k.off, mult)
			for _, j := range idx[1:] {
				if kj := vecKey(bins[int(j)*D:int(j)*D+D], keyDims, k.off, mult); kj < bz {
					best, bz = j, kj
				}
			}
			if bz <= 0 || rounds == gamma {
				break
			}
		}
		hist[rounds]++
		if bz > 0 {
			fallbacks++
		}
		row := bins[int(best)*D : int(best)*D+D]
		for q, kd := range pop {
			l := row[kd].L + v[q]
			row[kd].L = l
			maxLoad = max(maxLoad, l)
		}
		if oracle {
			for _, kd := range pop {
				k.off[kd] = k.w[kd] / sc.offDiv
			}
			continue
		}
		for _, x := range idx {
			xr := bins[int(x)*D : int(x)*D+D]
			for q, kd := range pop {
				we := T(1)
				if sc.real {
					we = v[q] / sc.d
				}
				var b T
				if c.Carry {
					b = k.Bank[int(x)*D+int(kd)]
				}
				var h bool
				if !sampling {
					xr[kd].E, b, h = growNumbered(xr[kd].E, b, we, k.capE[kd], c.Carry)
				} else {
					p := xr[kd].E + b + we
					ok, top := k.reached(bins, int(kd), xr[kd].E, p)
					xr[kd].E, b, h = holdSampled(xr[kd].E, b, p, top, ok, c.Carry)
				}
				if h {
					held++
				}
				if c.Carry {
					k.Bank[int(x)*D+int(kd)] = b
				}
			}
		}
	}
	k.Shapes.state = ss
	k.Stats.Fallbacks += fallbacks
	k.Stats.Held += held
	r.state = s
	return maxLoad
}

// fastVec is IdeaVec.Run for unit balls, d = 2 and IdeaNumbered, numbered2's
// loop on vectors: a round asks only whether either bin's key is ≤ 0 in
// every key dimension, which one AND of the bin's refuse mask (bit k: its
// key in dimension k is > 0; one byte a bin for D ≤ 8) with the ball's key
// mask answers; the keys themselves are read once per ball, for its last
// round. Without pairs, a ball whose draws need Lemire's rejection step is
// thrown by the general loop, and the masks of its round's bins refreshed.
func fastVec[M refuseMask, T int64 | float64](k *IdeaVec[T], rf []M, bins []IdeaBin[int64], r *PCG32, count uint64, maxLoad int64) int64 {
	D := k.shape.Dims
	for count > 0 {
		var done uint64
		done, maxLoad = fastVecRun(k, rf, bins, r, count, maxLoad)
		count -= done
		if count > 0 {
			maxLoad = int64(k.general(any(bins).([]IdeaBin[T]), r, nil, 1, T(maxLoad)))
			for _, x := range k.idx {
				rf[x] = refuseRow[M](bins[int(x)*D : int(x)*D+D])
			}
			count--
		}
	}
	return maxLoad
}

// newRefuses returns the refuse masks of bins of D dimensions, 2^16 of them
// at least so that roundsPair's indices need no bounds check.
func newRefuses[M refuseMask](bins []IdeaBin[int64], D int) []M {
	n := len(bins) / D
	rf := make([]M, max(n, pairMax))
	for i := range n {
		rf[i] = refuseRow[M](bins[i*D : i*D+D])
	}
	return rf
}

// refuseRow is the refuse mask of one bin.
func refuseRow[M refuseMask](row []IdeaBin[int64]) M {
	var m M
	for kd := range row {
		m |= M(refuses(&row[kd])) << kd
	}
	return m
}

// fastVecRun throws balls until count are thrown or the next ball needs an
// exact bounded draw, and returns how many it threw.
func fastVecRun[M refuseMask, T int64 | float64](k *IdeaVec[T], rf []M, bins []IdeaBin[int64], r *PCG32, count uint64, maxLoad int64) (uint64, int64) {
	D := k.shape.Dims
	s, inc := r.state, r.inc()
	ss, sinc := k.Shapes.state, k.Shapes.inc()
	n := uint32(len(bins) / D)
	n64 := uint64(n)
	nI := int64(n)
	gamma := k.cfg.Gamma
	hist := k.Stats.Rounds[:gamma+1]
	pairs, thresh := k.pairs, k.thresh
	wsum, capAt, capE := any(k.w).([]int64)[:D], any(k.capAt).([]int64)[:D], any(k.capE).([]int64)[:D]
	all := ^uint64(0) >> (64 - D)
	var fallbacks, held uint64
	done := uint64(0)
	for ; done < count; done++ {
		ns, pop := drawMask(ss, sinc, D, k.shape.F)
		key := pop
		if k.shape.AllDims {
			key = all
		}
		var s2 uint64
		var i, j uint32
		var rounds int
		if pairs {
			s2, i, j, rounds = roundsPair((*[pairMax]M)(rf), M(key), s, inc, n64, thresh, gamma)
		} else {
			s2, i, j, rounds = rounds2(rf, M(key), s, inc, n64, gamma)
		}
		if rounds == 0 {
			break // a draw needs Lemire's rejection step: the general loop throws this ball
		}
		s, ss = s2, ns
		ri, rj := bins[int(i)*D:int(i)*D+D], bins[int(j)*D:int(j)*D+D]
		ki, kj := maxKey(ri, key), maxKey(rj, key)
		lt := (kj - ki) >> 63 // all ones when j takes the ball, as in fast2
		bz := ki + (kj-ki)&lt
		hist[rounds]++
		fallbacks += uint64(-bz) >> 63
		mi, mj := rf[i], rf[j]
		for m := pop; m != 0; m &= m - 1 {
			kd := bits.TrailingZeros64(m)
			wsum[kd]++
			if wsum[kd] > capAt[kd] {
				capAt[kd] += nI
				capE[kd] += 2
			}
			bi, bj := &ri[kd], &rj[kd]
			bi.L += 1 + lt
			bj.L -= lt
			maxLoad = max(maxLoad, bi.L, bj.L)
			e := bi.E
			below := (e - capE[kd]) >> 63 // −1 when the estimate may grow
			bi.E = e - below
			held += uint64(1 + below)
			e = bj.E
			below = (e - capE[kd]) >> 63
			bj.E = e - below
			held += uint64(1 + below)
			bit := M(1) << kd
			mi = mi&^bit | M(refuses(bi))<<kd
			mj = mj&^bit | M(refuses(bj))<<kd
		}
		rf[i], rf[j] = mi, mj
	}
	k.Shapes.state = ss
	k.Stats.Fallbacks += fallbacks
	k.Stats.Held += held
	r.state = s
	return done, maxLoad
}

// maxKey is a unit bin's key for d = 2, the largest 2·L − E over the
// dimensions of mask.
func maxKey(row []IdeaBin[int64], mask uint64) int64 {
	kd := bits.TrailingZeros64(mask)
	key := 2*row[kd].L - row[kd].E
	for mask &= mask - 1; mask != 0; mask &= mask - 1 {
		kd = bits.TrailingZeros64(mask)
		key = max(key, 2*row[kd].L-row[kd].E)
	}
	return key
}

// reached is Idea.reached in dimension kd.
func (k *IdeaVec[T]) reached(bins []IdeaBin[T], kd int, e, p T) (bool, T) {
	alpha, ok := passes(k.sc, e, p)
	if !ok {
		return true, p
	}
	k.Stats.Checks++
	D := k.shape.Dims
	n := uint32(len(bins) / D)
	var sum T
	for range k.cfg.K {
		sum += bins[int(k.Sampler.Bounded(n))*D+kd].E
	}
	return sampleReached(k.sc, sum, k.cfg.K, alpha, k.cfg.Rounded), sampledCap(k.sc, sum, k.cfg.K, k.cfg.Rounded)
}

// DChoiceVec is d-choice on vectors: count balls, each of F populated
// dimensions (values w as in IdeaVec.Run, 1 for unit balls), into the least
// of d uniform bins by maximum coordinate; rowMax[i] is bin i's maximum
// coordinate, kept up to date. Returns the new maximum coordinate.
//
// Streams: shapes, F PCG32.Bounded per ball; r, d PCG32.Bounded(n) per ball.
func DChoiceVec[T int64 | float64](loads, rowMax []T, r, shapes *PCG32, w []T, count uint64, d int, shape VecShape, maxLoad T) T {
	D, F := shape.Dims, shape.F
	var zero T
	_, real := any(zero).(float64)
	s, inc := r.state, r.inc()
	ss, sinc := shapes.state, shapes.inc()
	n := uint32(len(rowMax))
	n64 := uint64(n)
	var ds [MaxDims]uint8
	for b := range count {
		ss = drawDims(ss, sinc, D, F, &ds)
		s0 := s
		var m uint64
		s, m = lemire(s, inc, n64)
		low := uint32(m)
		best := m >> 32
		bl := rowMax[best]
		for q := 1; q < d; q++ {
			s, m = lemire(s, inc, n64)
			low = min(low, uint32(m))
			if j := m >> 32; rowMax[j] < bl {
				best, bl = j, rowMax[j]
			}
		}
		if low < n {
			s, best, bl = dChoiceVecSlow(rowMax, s0, inc, n, d)
		}
		row := loads[int(best)*D : int(best)*D+D]
		for q, kd := range ds[:F] {
			val := T(1)
			if real {
				val = w[int(b)*F+q]
			}
			l := row[kd] + val
			row[kd] = l
			bl = max(bl, l)
		}
		rowMax[best] = bl
		maxLoad = max(maxLoad, bl)
	}
	shapes.state = ss
	r.state = s
	return maxLoad
}

// dChoiceVecSlow redoes one DChoiceVec ball's draws from state s with exact
// bounded draws.
func dChoiceVecSlow[T int64 | float64](rowMax []T, s, inc uint64, n uint32, d int) (uint64, uint64, T) {
	var x uint32
	s, x = bounded(s, inc, n)
	best := uint64(x)
	bl := rowMax[best]
	for q := 1; q < d; q++ {
		s, x = bounded(s, inc, n)
		if rowMax[x] < bl {
			best, bl = uint64(x), rowMax[x]
		}
	}
	return s, best, bl
}
