package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
)

// IDEA and multi-dimensional balls beside their naive versions, as
// BenchmarkDirect and BenchmarkNaive do for the other processes: one trial of
// b.N balls from empty bins through engine.RunTrial, against the loop one
// writes first (math/rand/v2, []int loads, float64 estimates Â += 1/d, the
// numbered rule as a cap Â ≤ ⌈j/n⌉). With b.N ≫ n the runs are in the heavy-
// load regime, where most balls use all γ rounds.

var ideaBenchCases = []benchCase{
	{"idea-d2-g8", "idea", map[string]string{"d": "2", "retries": "8"},
		func(l []int, m int) { naiveIdea(l, m, 2, 8, false) }, nil, nil},
	{"idea-sampling-d2-g8", "idea", map[string]string{"d": "2", "retries": "8", "variant": "sampling"},
		func(l []int, m int) { naiveIdea(l, m, 2, 8, true) }, nil, nil},
	{"idea-d2-g8-exp1", "idea", map[string]string{"d": "2", "retries": "8", "weights": "exp:1"},
		nil, func(l []float64, m int) { naiveIdeaWeighted(l, m, 2, 8) }, nil},
	{"idea-vec-D8-f2", "idea", map[string]string{"d": "2", "retries": "8", "dims": "8", "populated": "2"},
		func(l []int, m int) { naiveIdeaVec(l, m, 2, 8, 8, 2) }, nil, nil},
	{"d-choice-vec-D8-f2", "d-choice", map[string]string{"d": "2", "dims": "8", "populated": "2"},
		func(l []int, m int) { naiveDChoiceVec(l, m, 2, 8, 2) }, nil, nil},
}

var ideaSizes = []struct {
	name string
	n    uint64
}{{"n=1e4", 10_000}, {"n=1e6", 1_000_000}}

// BenchmarkIdea: one trial of b.N balls through engine.RunTrial.
func BenchmarkIdea(b *testing.B) {
	for _, c := range ideaBenchCases {
		for _, sz := range ideaSizes {
			b.Run(fmt.Sprintf("%s/%s", c.name, sz.name), func(b *testing.B) {
				s, err := core.NewSpec(c.process, c.params, core.Common{Bins: sz.n, Balls: uint64(b.N), Trials: 1, Seed: 1, Alpha: 1})
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				engine.RunTrial(s, 0, nil)
				report(b)
			})
		}
	}
}

// BenchmarkIdeaNaive: the naive loop for b.N balls, arrays included.
func BenchmarkIdeaNaive(b *testing.B) {
	for _, c := range ideaBenchCases {
		for _, sz := range ideaSizes {
			b.Run(fmt.Sprintf("%s/%s", c.name, sz.name), func(b *testing.B) {
				if c.naive != nil {
					c.naive(make([]int, sz.n), b.N)
				} else {
					c.naiveW(make([]float64, sz.n), b.N)
				}
				report(b)
			})
		}
	}
}

// naiveIdea: numbered (Â held at ⌈j/n⌉) or sampling (⌈ln n⌉ bins sampled
// when Â would pass an integer).
func naiveIdea(loads []int, m, d, gamma int, sampling bool) {
	n := len(loads)
	est := make([]float64, n)
	k := max(1, int(math.Ceil(math.Log(float64(n)))))
	samples := make([]int, d)
	for j := 1; j <= m; j++ {
		limit := float64((j + n - 1) / n)
		best := -1
		for r := 0; r < gamma; r++ {
			best = -1
			for q := range samples {
				samples[q] = rand.IntN(n)
				if best < 0 || float64(loads[samples[q]])-est[samples[q]] < float64(loads[best])-est[best] {
					best = samples[q]
				}
			}
			if float64(loads[best])-est[best] <= 0 {
				break
			}
		}
		loads[best]++
		for _, x := range samples {
			next := est[x] + 1/float64(d)
			switch {
			case !sampling:
				if next <= limit {
					est[x] = next
				}
			case math.Ceil(next)-1 >= est[x] && math.Ceil(next)-1 >= 1:
				sum := 0.0
				for range k {
					sum += est[rand.IntN(n)]
				}
				if sum/float64(k) >= math.Ceil(next)-1 {
					est[x] = next
				}
			default:
				est[x] = next
			}
		}
	}
}

func naiveIdeaWeighted(loads []float64, m, d, gamma int) {
	n := len(loads)
	est := make([]float64, n)
	samples := make([]int, d)
	total := 0.0
	for range m {
		w := rand.ExpFloat64()
		total += w
		limit := math.Ceil(total / float64(n))
		best := -1
		for r := 0; r < gamma; r++ {
			best = -1
			for q := range samples {
				samples[q] = rand.IntN(n)
				if best < 0 || loads[samples[q]]-est[samples[q]] < loads[best]-est[best] {
					best = samples[q]
				}
			}
			if loads[best]-est[best] <= 0 {
				break
			}
		}
		loads[best] += w
		for _, x := range samples {
			if next := est[x] + w/float64(d); next <= limit {
				est[x] = next
			}
		}
	}
}

// naiveIdeaVec: loads[i] counts the balls of bin i; the vectors live in
// their own arrays, dimension subsets by rand.Perm.
func naiveIdeaVec(loads []int, m, d, gamma, D, f int) {
	n := len(loads)
	vl := make([][]float64, n)
	ve := make([][]float64, n)
	for i := range vl {
		vl[i], ve[i] = make([]float64, D), make([]float64, D)
	}
	count := make([]int, D)
	samples := make([]int, d)
	gap := func(i int, dims []int) float64 {
		g := math.Inf(-1)
		for _, k := range dims {
			g = max(g, vl[i][k]-ve[i][k])
		}
		return g
	}
	for range m {
		dims := rand.Perm(D)[:f]
		for _, k := range dims {
			count[k]++
		}
		best := -1
		for r := 0; r < gamma; r++ {
			best = -1
			for q := range samples {
				samples[q] = rand.IntN(n)
				if best < 0 || gap(samples[q], dims) < gap(best, dims) {
					best = samples[q]
				}
			}
			if gap(best, dims) <= 0 {
				break
			}
		}
		loads[best]++
		for _, k := range dims {
			vl[best][k]++
			limit := float64((count[k] + n - 1) / n)
			for _, x := range samples {
				if next := ve[x][k] + 1/float64(d); next <= limit {
					ve[x][k] = next
				}
			}
		}
	}
}

func naiveDChoiceVec(loads []int, m, d, D, f int) {
	n := len(loads)
	vl := make([][]int, n)
	for i := range vl {
		vl[i] = make([]int, D)
	}
	maxOf := func(i int) int {
		x := vl[i][0]
		for _, v := range vl[i] {
			x = max(x, v)
		}
		return x
	}
	for range m {
		dims := rand.Perm(D)[:f]
		best := rand.IntN(n)
		for k := 1; k < d; k++ {
			if j := rand.IntN(n); maxOf(j) < maxOf(best) {
				best = j
			}
		}
		loads[best]++
		for _, k := range dims {
			vl[best][k]++
		}
	}
}
