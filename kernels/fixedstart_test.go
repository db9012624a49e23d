package kernels

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/balloc/balloc/internal/stattest"
)

// The fixed-point start's two draws (fixedstart.go): level counts by
// sequential binomials against the per-bin draw and against the exact
// multinomial law of n i.i.d. loads, with power; the binomial path at
// large n against the counts' means and variances; the loops from a started
// tally against the literal loops, event for event.

// countsKey is the level counts S_1, S_2, … (trailing zeros dropped) as a
// map key.
func countsKey(S []uint64) string {
	k := len(S)
	for k > 1 && S[k-1] == 0 {
		k--
	}
	return fmt.Sprint(S[1:k])
}

// multinomialLaw is the exact law of the level counts of n i.i.d. loads
// with P(load ≥ i) = pi[i−1]: every count vector c_0 … c_L (c_k bins of
// load k) with its multinomial probability, keyed by its S.
func multinomialLaw(n int, pi []float64) map[string]float64 {
	L := len(pi)
	p := make([]float64, L+1)
	prev := 1.0
	for k := range p {
		next := 0.0
		if k < L {
			next = pi[k]
		}
		p[k], prev = prev-next, next
	}
	law := map[string]float64{}
	c := make([]int, L+1)
	var rec func(k, left int, prob float64)
	rec = func(k, left int, prob float64) {
		if k == L {
			c[L] = left
			pr := prob * math.Pow(p[L], float64(left)) / math.Gamma(float64(left)+1)
			S := make([]uint64, L+2)
			for j := L; j >= 0; j-- {
				S[j] = S[j+1] + uint64(c[j])
			}
			law[countsKey(S)] += pr * math.Gamma(float64(n)+1)
			return
		}
		for x := 0; x <= left; x++ {
			c[k] = x
			rec(k+1, left-x, prob*math.Pow(p[k], float64(x))/math.Gamma(float64(x)+1))
		}
	}
	rec(0, n, 1)
	return law
}

func TestAtLeastLevelsMatchPerBinDraw(t *testing.T) {
	const n, trials = 4, 40000
	pi := []float64{0.7, 0.4, 0.15, 0.03}
	law, err := NewAtLeastLaw(pi)
	if err != nil {
		t.Fatal(err)
	}
	exact := multinomialLaw(n, pi)
	if total := func() (s float64) {
		for _, p := range exact {
			s += p
		}
		return s
	}(); math.Abs(total-1) > 1e-12 {
		t.Fatalf("the multinomial law sums to %v", total)
	}
	levels, perBin := map[string]int{}, map[string]int{}
	r1, r2 := NewPCG32(21, 1), NewPCG32(22, 1)
	loads := make([]uint32, n)
	for range trials {
		levels[countsKey(law.Levels(&r1, n))]++
		FillAtLeast(law, &r2, loads)
		perBin[countsKey(AtLeastCounts(loads))]++
	}
	for name, obs := range map[string]map[string]int{"levels": levels, "per bin": perBin} {
		if stat, limit, df := stattest.Law(exact, obs, trials); stat > limit {
			t.Errorf("%s: χ² = %.1f on %d df exceeds %.1f", name, stat, df, limit)
		}
	}
	if stat, limit, df := stattest.TwoSample(levels, perBin); stat > limit {
		t.Errorf("levels against per bin: χ² = %.1f on %d df exceeds %.1f", stat, df, limit)
	}
	// Power: the binomials drawn with π_{i+1} in place of π_{i+1}/π_i (the
	// law of cumulative products), and a per-bin draw with π_2 = 0.43, fail.
	cum := slices.Clone(pi)
	for k := 1; k < len(cum); k++ {
		cum[k] *= cum[k-1]
	}
	bumped := slices.Clone(pi)
	bumped[1] = 0.43
	for name, p := range map[string][]float64{"cumulative": cum, "π_2 = 0.43": bumped} {
		wrong, err := NewAtLeastLaw(p)
		if err != nil {
			t.Fatal(err)
		}
		obs := map[string]int{}
		r := NewPCG32(23, 1)
		for range trials {
			obs[countsKey(wrong.Levels(&r, n))]++
		}
		if stat, limit, _ := stattest.Law(exact, obs, trials); stat <= limit {
			t.Errorf("%s passed: χ² = %.1f ≤ %.1f", name, stat, limit)
		}
	}
}

// At n = 10^6 (BTPE for the binomials) each S_i of the level draw has mean
// nπ_i and variance nπ_i(1 − π_i): over 400 draws the mean within 4.5
// standard errors, and Σ(S_i − nπ_i)²/(nπ_i(1 − π_i)) within the χ²(400)
// two-sided 10^-4 limits. Power: π_3 off by 0.2% fails the mean.
func TestAtLeastLevelsLargeN(t *testing.T) {
	const n, draws = 1000000, 400
	pi := make([]float64, 0, 12) // JSQ(2) at λ = 0.9
	for i := 1; i <= 12; i++ {
		pi = append(pi, math.Pow(0.9, math.Pow(2, float64(i))-1))
	}
	law, err := NewAtLeastLaw(pi)
	if err != nil {
		t.Fatal(err)
	}
	r := NewPCG32(31, 1)
	sum, sq := make([]float64, len(pi)), make([]float64, len(pi))
	for range draws {
		S := law.Levels(&r, n)
		for k := range pi {
			x := 0.0
			if k+1 < len(S) {
				x = float64(S[k+1])
			}
			d := x - n*pi[k]
			sum[k] += d
			sq[k] += d * d
		}
	}
	lo, hi := chi2Bounds(draws)
	for k, p := range pi {
		v := n * p * (1 - p)
		if v < 1 {
			break
		}
		if z := math.Abs(sum[k]/draws) / math.Sqrt(v/draws); z > 4.5 {
			t.Errorf("level %d: mean off by %.2f standard errors", k+1, z)
		}
		if x := sq[k] / v; x < lo || x > hi {
			t.Errorf("level %d: Σ(S − nπ)²/var = %.1f outside [%.1f, %.1f]", k+1, x, lo, hi)
		}
		if k == 2 {
			if z := math.Abs(sum[k]/draws+n*p*0.002) / math.Sqrt(v/draws); z <= 4.5 {
				t.Errorf("level 3: π_3·1.002 passed (z = %.2f)", z)
			}
		}
	}
}

// chi2Bounds are the two-sided 10^-4 limits of χ²(k), k large (normal
// approximation of the Wilson–Hilferty cube root).
func chi2Bounds(k float64) (lo, hi float64) {
	const z = 3.89
	c := 2 / (9 * k)
	return k * math.Pow(1-c-z*math.Sqrt(c), 3), k * math.Pow(1-c+z*math.Sqrt(c), 3)
}

// The loops from a started state (the tally's counts and the loads drawn
// from the fixed point) against the literal loops, event for event: the
// loads, the tally and its time sums, and the books (balls present =
// start + arrivals − departures).
func TestSupermarketFromStartIsLiteral(t *testing.T) {
	law, err := NewAtLeastLaw([]float64{0.8, 0.5, 0.2, 0.05, 0.01})
	if err != nil {
		t.Fatal(err)
	}
	for _, lp := range literalCases() {
		for _, n := range []int{3, 50} {
			t.Run(fmt.Sprintf("%+v/n=%d", lp, n), func(t *testing.T) {
				sm, _ := NewSupermarket(lp.lambda, lp.pl)
				draw := NewPCG32(uint64(n), 9)
				loads := make([]uint32, n)
				FillAtLeast(law, &draw, loads)
				want := make([]int, n)
				for i, l := range loads {
					want[i] = int(l)
				}
				sorted := slices.Clone(want)
				slices.SortFunc(sorted, func(a, b int) int { return b - a })
				direct, levels := NewTally(uint64(n)), NewTally(uint64(n))
				direct.StartLevels(AtLeastCounts(loads))
				levels.StartLevels(atLeast(want))
				start := direct.Total
				fast, slow, fastL, slowL := NewPCG32(4, 5), NewPCG32(4, 5), NewPCG32(6, 7), NewPCG32(6, 7)
				sums, sumsL := []float64{}, []float64{}
				for e := range 2000 {
					SupermarketDirect(loads, &fast, 1, sm, direct)
					literalEvent(&slow, lp, want, func() uint64 { return uint64(slow.Bounded(uint32(n))) },
						func(a, b uint64) uint64 {
							if want[b] < want[a] {
								return b
							}
							return a
						})
					SupermarketLevels(&fastL, 1, sm, levels)
					literalEvent(&slowL, lp, sorted, func() uint64 { return uint64(slowL.Bounded(uint32(n))) }, func(a, b uint64) uint64 { return max(a, b) })
					slices.SortFunc(sorted, func(a, b int) int { return b - a })
					for i := range n {
						if int(loads[i]) != want[i] {
							t.Fatalf("event %d: bin %d holds %d, the literal loop %d", e, i, loads[i], want[i])
						}
					}
					if S := atLeast(want); !slices.Equal(S, direct.S) {
						t.Fatalf("event %d: direct tally %v, recount %v", e, direct.S, S)
					}
					if S := atLeast(sorted); !slices.Equal(S, levels.S) {
						t.Fatalf("event %d: level tally %v, literal %v", e, levels.S, S)
					}
					sums, sumsL = addAtLeast(sums, atLeast(want)), addAtLeast(sumsL, atLeast(sorted))
				}
				for _, c := range []struct {
					tally *Tally
					sums  []float64
				}{{direct, sums}, {levels, sumsL}} {
					got := c.tally.TakeAcc()
					for len(got) > len(c.sums) && got[len(got)-1] == 0 {
						got = got[:len(got)-1]
					}
					if !slices.Equal(got, c.sums) {
						t.Errorf("time sums %v, recounted %v", got, c.sums)
					}
					if c.tally.Total != start+c.tally.Arrivals-c.tally.Departures {
						t.Errorf("total %d ≠ start %d + %d arrivals − %d departures", c.tally.Total, start, c.tally.Arrivals, c.tally.Departures)
					}
				}
			})
		}
	}
}
