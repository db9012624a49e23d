package kernels

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
	var mask uint64
	for j := D - f; j < D; j++ {
		var t uint32
		s, t = bounded(s, inc, uint32(j+1))
		if mask>>t&1 != 0 {
			t = uint32(j)
		}
		mask |= 1 << t
	}
	for q := 0; mask != 0; q++ {
		k := 0
		for mask>>k&1 == 0 {
			k++
		}
		ds[q] = uint8(k)
		mask &^= 1 << k
	}
	return s
}

// IdeaVec is one trial's multi-dimensional IDEA loop with its running state.
type IdeaVec[T int64 | float64] struct {
	cfg     IdeaConfig
	shape   VecShape
	sc      ideaScale[T]
	idx     []uint32
	w       []T // per dimension: total weight thrown, the current ball included
	capAt   []T // IdeaNumbered, per dimension: α·n
	capE    []T // IdeaNumbered, per dimension: α in units of E
	off     []T // IdeaOracle, per dimension: the average before the ball (×n for integers)
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
	return &IdeaVec[T]{cfg: c, shape: shape, sc: newIdeaScale[T](c), idx: make([]uint32, c.D),
		w: make([]T, D), capAt: make([]T, D), capE: make([]T, D), off: make([]T, D),
		Sampler: sampler, Shapes: shapes, Stats: IdeaStats{Rounds: make([]uint64, c.Gamma+1)}}
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
// Streams: Shapes, F PCG32.Bounded per ball (drawDims); r, per round, d
// PCG32.Bounded(n); Sampler, K PCG32.Bounded(n) per check, slots in order,
// dimensions ascending within a slot.
func (k *IdeaVec[T]) Run(bins []IdeaBin[T], r *PCG32, w []T, count uint64, maxLoad T) T {
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
			s0 := s
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
				e := xr[kd].E
				switch {
				case !sampling:
					if e+we <= k.capE[kd] {
						xr[kd].E = e + we
					} else {
						held++
					}
				case k.reached(bins, int(kd), e, we):
					xr[kd].E = e + we
				default:
					held++
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

// reached is Idea.reached in dimension kd.
func (k *IdeaVec[T]) reached(bins []IdeaBin[T], kd int, e, we T) bool {
	alpha, ok := passes(k.sc, e, we)
	if !ok {
		return true
	}
	k.Stats.Checks++
	D := k.shape.Dims
	n := uint32(len(bins) / D)
	var sum T
	for range k.cfg.K {
		sum += bins[int(k.Sampler.Bounded(n))*D+kd].E
	}
	return sampleReached(k.sc, sum, k.cfg.K, alpha, k.cfg.Rounded)
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
