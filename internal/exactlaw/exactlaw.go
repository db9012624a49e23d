// Package exactlaw holds the exact one-step laws of the simple processes
// (which bin receives the next ball, given the loads), shared by the
// per-process test table (internal/proctable) and the engines' exact-law
// tests (core/engine), which cannot import the table (it imports the
// engines).
package exactlaw

import (
	"math"
	"math/big"
	"slices"
)

// Transition is the law of the bin that receives ball t+1 (t balls placed)
// given the loads.
type Transition func(loads []int, t int) []float64

// Uniform is One-Choice's transition: every bin 1/n.
func Uniform(n int) Transition {
	return func([]int, int) []float64 {
		p := make([]float64, n)
		for i := range p {
			p[i] = 1 / float64(n)
		}
		return p
	}
}

// BestOf enumerates every tuple of samples (sample k uniform in groups[k])
// and splits each tuple's mass among its tied least loaded samples:
// uniformly, or all to the first when leftmost is set.
func BestOf(groups [][]int, leftmost bool) Transition {
	return func(loads []int, _ int) []float64 {
		p := make([]float64, len(loads))
		var rec func(k int, tuple []int, mass float64)
		rec = func(k int, tuple []int, mass float64) {
			if k == len(groups) {
				lo := math.MaxInt
				for _, b := range tuple {
					lo = min(lo, loads[b])
				}
				var tied []int
				for _, b := range tuple {
					if loads[b] == lo {
						tied = append(tied, b)
					}
				}
				if leftmost {
					tied = tied[:1]
				}
				for _, b := range tied {
					p[b] += mass / float64(len(tied))
				}
				return
			}
			for _, b := range groups[k] {
				rec(k+1, append(tuple, b), mass/float64(len(groups[k])))
			}
		}
		rec(0, nil, 1)
		return p
	}
}

// AllBins is 0 … n−1.
func AllBins(n int) []int {
	b := make([]int, n)
	for i := range b {
		b[i] = i
	}
	return b
}

// DChoice is the least loaded of d uniform samples, ties at random.
func DChoice(n, d int) Transition {
	g := make([][]int, d)
	for k := range g {
		g[k] = AllBins(n)
	}
	return BestOf(g, false)
}

// Mix is a with probability 1 − β, b with probability β.
func Mix(beta float64, a, b Transition) Transition {
	return func(loads []int, t int) []float64 {
		pa, pb := a(loads, t), b(loads, t)
		for i := range pa {
			pa[i] = (1-beta)*pa[i] + beta*pb[i]
		}
		return pa
	}
}

// KThreshold is k-Threshold's transition (core/process/kqueries.go): every
// ordered pair of bins 1/n², each at the level #{j : load ≥ t/n + g_j}
// (in rationals), the ball to the lower level, a tie split evenly between
// the two (the definition's reading; the loops' first-sample rule has this
// law, the pair being exchangeable).
func KThreshold(n int, offsets ...float64) Transition {
	return func(loads []int, t int) []float64 {
		level := func(load int) int {
			l := 0
			for _, g := range offsets {
				f := new(big.Rat).Add(big.NewRat(int64(t), int64(n)), new(big.Rat).SetFloat64(g))
				if new(big.Rat).SetInt64(int64(load)).Cmp(f) >= 0 {
					l++
				}
			}
			return l
		}
		p := make([]float64, n)
		for a := range n {
			for b := range n {
				pairTo(level(loads[a]), level(loads[b]), 1/float64(n*n), func(w float64) { p[a] += w }, func(w float64) { p[b] += w })
			}
		}
		return p
	}
}

// KQuantile is k-Quantile's transition: a sample is a uniform position of
// the loads sorted heaviest first, ties in a uniform order, so a bin of
// load v holds each position of its load with probability 1/(bins at v);
// position p answers yes to query j when p < ⌈δ_j n⌉ (exact for dyadic
// δn). Every ordered pair of positions 1/n², the ball to the lower level,
// a tie split evenly.
func KQuantile(n int, deltas ...float64) Transition {
	k := make([]int, len(deltas))
	for j, d := range deltas {
		k[j] = int(math.Ceil(d * float64(n)))
	}
	return func(loads []int, _ int) []float64 {
		order := make([]int, n) // bins sorted heaviest first
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return loads[b] - loads[a] })
		level := func(pos int) int {
			l := 0
			for _, kj := range k {
				if pos < kj {
					l++
				}
			}
			return l
		}
		p := make([]float64, n)
		// Position pos lands on the load of order[pos], split among its bins.
		land := func(pos int) func(float64) {
			return func(w float64) {
				v, e := loads[order[pos]], 0
				for _, x := range loads {
					if x == v {
						e++
					}
				}
				for i, x := range loads {
					if x == v {
						p[i] += w / float64(e)
					}
				}
			}
		}
		for a := range n {
			for b := range n {
				pairTo(level(a), level(b), 1/float64(n*n), land(a), land(b))
			}
		}
		return p
	}
}

// pairTo gives a pair's mass w to the sample of lower level, half to each
// on a tie.
func pairTo(la, lb int, w float64, toA, toB func(float64)) {
	switch {
	case la < lb:
		toA(w)
	case lb < la:
		toB(w)
	default:
		toA(w / 2)
		toB(w / 2)
	}
}
