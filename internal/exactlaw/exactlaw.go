// Package exactlaw holds the exact one-step laws of the simple processes
// (which bin receives the next ball, given the loads), shared by the
// per-process test table (internal/proctable) and the engines' exact-law
// tests (core/engine), which cannot import the table (it imports the
// engines).
package exactlaw

import "math"

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
