package kernels

import "math/big"

// Slow, obvious IDEA: the paper's rules read literally (§3), one draw at a
// time, on numbers of a field F: exact rationals for unit balls, so that
// Â = (times chosen)/d is never rounded, and float64 for weighted balls,
// with each operation as the definition writes it (Â + w/d, L − Â).

type field[F any] interface {
	fromInt(int64) F
	fromFloat(float64) F
	add(a, b F) F
	sub(a, b F) F
	mulInt(a F, k int64) F
	divInt(a F, k int64) F
	less(a, b F) bool
	ceil(a F) int64
}

type ratField struct{}

func (ratField) fromInt(k int64) *big.Rat     { return new(big.Rat).SetInt64(k) }
func (ratField) fromFloat(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
func (ratField) add(a, b *big.Rat) *big.Rat   { return new(big.Rat).Add(a, b) }
func (ratField) sub(a, b *big.Rat) *big.Rat   { return new(big.Rat).Sub(a, b) }
func (ratField) mulInt(a *big.Rat, k int64) *big.Rat {
	return new(big.Rat).Mul(a, new(big.Rat).SetInt64(k))
}
func (ratField) divInt(a *big.Rat, k int64) *big.Rat {
	return new(big.Rat).Quo(a, new(big.Rat).SetInt64(k))
}
func (ratField) less(a, b *big.Rat) bool { return a.Cmp(b) < 0 }
func (ratField) ceil(a *big.Rat) int64 {
	q := new(big.Int).Div(a.Num(), a.Denom()) // floor: the denominator is positive
	if !a.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

type floatField struct{}

func (floatField) fromInt(k int64) float64           { return float64(k) }
func (floatField) fromFloat(x float64) float64       { return x }
func (floatField) add(a, b float64) float64          { return a + b }
func (floatField) sub(a, b float64) float64          { return a - b }
func (floatField) mulInt(a float64, k int64) float64 { return a * float64(k) }
func (floatField) divInt(a float64, k int64) float64 { return a / float64(k) }
func (floatField) less(a, b float64) bool            { return a < b }
func (floatField) ceil(a float64) int64 {
	c := int64(a)
	if float64(c) < a {
		c++
	}
	return c
}

// refIdeaState is the reference's whole state. A bin's estimate, load and
// the totals are per dimension (one dimension for scalar balls).
type refIdeaState[F any] struct {
	n, dims int
	L, A    [][]F // [bin][dimension]
	B       [][]F // banked increments (IdeaConfig.Carry), [bin][dimension]
	W       []F   // total weight thrown per dimension, the current ball included
	stats   IdeaStats
}

func newRefIdea[F any, R field[F]](f R, n, dims, gamma int) *refIdeaState[F] {
	st := &refIdeaState[F]{n: n, dims: dims, W: make([]F, dims), stats: IdeaStats{Rounds: make([]uint64, gamma+1)}}
	for range n {
		l, a, b := make([]F, dims), make([]F, dims), make([]F, dims)
		for k := range dims {
			l[k], a[k], b[k] = f.fromInt(0), f.fromInt(0), f.fromInt(0)
		}
		st.L, st.A, st.B = append(st.L, l), append(st.A, a), append(st.B, b)
	}
	for k := range dims {
		st.W[k] = f.fromInt(0)
	}
	return st
}

// refBall throws one ball with populated dimensions dims and values vals.
func refBall[F any, R field[F]](f R, st *refIdeaState[F], c IdeaConfig, allDims bool, r, sampler *PCG32, dims []int, vals []F) {
	n := st.n
	prev := make([]F, st.dims)
	copy(prev, st.W)
	for q, k := range dims {
		st.W[k] = f.add(st.W[k], vals[q])
	}
	keyDims := dims
	if allDims {
		keyDims = nil
		for k := range st.dims {
			keyDims = append(keyDims, k)
		}
	}
	// The estimated gap of bin i: L − Â, or L − (true average) for the
	// oracle; the largest over the key dimensions.
	gap := func(i int) F {
		var g F
		for q, k := range keyDims {
			est := st.A[i][k]
			if c.Variant == IdeaOracle {
				est = f.divInt(prev[k], int64(n))
			}
			x := f.sub(st.L[i][k], est)
			if q == 0 || f.less(g, x) {
				g = x
			}
		}
		return g
	}
	var samples []int
	best, rounds := -1, 0
	var bg F
	for rounds = 1; ; rounds++ {
		samples = refRound(r, n, c.D)
		best = -1
		for _, x := range samples {
			if g := gap(x); best < 0 || f.less(g, bg) {
				best, bg = x, g
			}
		}
		if !f.less(f.fromInt(0), bg) || rounds == c.Gamma {
			break
		}
	}
	st.stats.Rounds[rounds]++
	if f.less(f.fromInt(0), bg) {
		st.stats.Fallbacks++
	}
	for q, k := range dims {
		st.L[best][k] = f.add(st.L[best][k], vals[q])
	}
	if c.Variant == IdeaOracle {
		return
	}
	for _, x := range samples {
		for q, k := range dims {
			// With Carry the bin proposes its estimate plus its bank plus
			// the share; without, the bank stays 0.
			old, share := st.A[x][k], f.divInt(vals[q], int64(c.D))
			nw := f.add(f.add(old, st.B[x][k]), share)
			hold := false
			switch c.Variant {
			case IdeaNumbered:
				// Passing an integer α (old ≤ α < new) is held while the
				// ball's number (its dimension's total) is ≤ α·n. Held:
				// the share alone passes such an α. With Carry the
				// estimate rises to the first such α and the rest is
				// banked.
				top := nw
				for a := f.ceil(old); f.less(f.fromInt(a), nw); a++ {
					if !f.less(f.mulInt(f.fromInt(a), int64(n)), st.W[k]) {
						top = f.fromInt(a)
						break
					}
				}
				hold = f.less(top, f.add(old, share))
				switch {
				case !f.less(top, nw):
					st.A[x][k], st.B[x][k] = nw, f.fromInt(0)
				case c.Carry:
					st.A[x][k], st.B[x][k] = top, f.sub(nw, top)
				}
				if hold {
					st.stats.Held++
				}
				continue
			case IdeaSampling:
				a := f.ceil(nw) - 1 // the largest integer below new
				if a >= 1 && !f.less(f.fromInt(a), old) {
					st.stats.Checks++
					sum := f.fromInt(0)
					for range c.K {
						sum = f.add(sum, st.A[sampler.Bounded(uint32(n))][k])
					}
					mean := f.divInt(sum, int64(c.K))
					bar := f.fromInt(a)
					if c.Rounded {
						bar = f.sub(bar, f.fromFloat(0.5))
					}
					hold = f.less(mean, bar)
					if hold && c.Carry {
						// The estimate may pass every integer α the mean has
						// reached (mean ≥ α, or ≥ α − 1/2 when rounded), so it
						// rises to the first unreached one, A+1, if the pending
						// total gets there; the rest is banked.
						if c.Rounded {
							mean = f.add(mean, f.fromFloat(0.5))
						}
						top := f.fromInt(-f.ceil(f.sub(f.fromInt(0), mean)) + 1) // ⌊mean⌋ + 1
						ne := old
						if f.less(old, top) {
							ne = top
						}
						if f.less(nw, ne) && f.less(old, nw) {
							ne = nw
						}
						st.stats.Held++
						st.A[x][k], st.B[x][k] = ne, f.sub(nw, ne)
						continue
					}
				}
			}
			if hold {
				st.stats.Held++
			} else {
				st.A[x][k], st.B[x][k] = nw, f.fromInt(0)
			}
		}
	}
}

// refRound draws a round's d samples as Idea.Run documents: for d = 2 and
// n < 2^16 one pair from each output, v = ⌊x·n²/2^32⌋ uniform on [0, n²) by
// Lemire's rule for the bound n² (reject when x·n² mod 2^32 < 2^32 mod n²),
// written as (v div n, v mod n); else d PCG32.Bounded(n).
func refRound(r *PCG32, n, d int) []int {
	if d == 2 && n < 1<<16 {
		N := uint64(n) * uint64(n)
		for {
			xN := uint64(r.Uint32()) * N
			if xN%(1<<32) >= (1<<32)%N {
				v := int(xN >> 32)
				return []int{v / n, v % n}
			}
		}
	}
	var samples []int
	for range d {
		samples = append(samples, int(r.Bounded(uint32(n))))
	}
	return samples
}

// refDims draws a ball's populated dimensions as drawDims documents, with
// PCG32 methods and a plain set.
func refDims(r *PCG32, D, f int) []int {
	in := map[int]bool{}
	for j := D - f; j < D; j++ {
		t := int(r.Bounded(uint32(j + 1)))
		if in[t] {
			t = j
		}
		in[t] = true
	}
	var ds []int
	for k := range D {
		if in[k] {
			ds = append(ds, k)
		}
	}
	return ds
}

// refDChoiceVec is d-choice on vectors by least maximum coordinate.
func refDChoiceVec(loads [][]float64, r, shapes *PCG32, w []float64, count, d, D, f int) {
	n := uint32(len(loads))
	for b := range count {
		dims := refDims(shapes, D, f)
		maxOf := func(i uint32) float64 {
			m := loads[i][0]
			for _, x := range loads[i] {
				m = max(m, x)
			}
			return m
		}
		best := r.Bounded(n)
		for k := 1; k < d; k++ {
			if j := r.Bounded(n); maxOf(j) < maxOf(best) {
				best = j
			}
		}
		for q, k := range dims {
			v := 1.0
			if w != nil {
				v = w[b*f+q]
			}
			loads[best][k] += v
		}
	}
}
