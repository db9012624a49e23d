package kernels

import (
	"fmt"
	"math/big"
	"slices"
	"testing"
)

type ideaCase struct {
	name string
	cfg  IdeaConfig
}

// ideaCases covers every variant, held increments dropped and carried,
// d = 1, 2 (the loops' special case) and 3, and γ = 1, 2, 8, for n bins.
func ideaCases(n uint32, ds []int) []ideaCase {
	var cs []ideaCase
	for _, d := range ds {
		for _, g := range []int{1, 2, 8} {
			for _, v := range []struct {
				name           string
				variant        IdeaVariant
				rounded, carry bool
			}{{"numbered", IdeaNumbered, false, false}, {"sampling", IdeaSampling, false, false},
				{"sampling-rounded", IdeaSampling, true, false}, {"oracle", IdeaOracle, false, false},
				{"numbered-carry", IdeaNumbered, false, true}, {"sampling-carry", IdeaSampling, false, true}} {
				cs = append(cs, ideaCase{fmt.Sprintf("%s/d=%d/γ=%d", v.name, d, g),
					IdeaConfig{N: n, D: d, Gamma: g, Variant: v.variant, K: 3, Rounded: v.rounded, Carry: v.carry}})
			}
		}
	}
	return cs
}

func checkIdeaStats(t *testing.T, got, want IdeaStats) {
	t.Helper()
	if !slices.Equal(got.Rounds, want.Rounds) || got.Fallbacks != want.Fallbacks || got.Held != want.Held || got.Checks != want.Checks {
		t.Fatalf("stats %+v, reference %+v", got, want)
	}
}

// The unit loop against exact rationals: same loads, same estimates (E = d·Â),
// same statistics, same generator states, for balls = 12·n so that every
// hold rule fires many times.
func TestIdeaUnitMatchesReference(t *testing.T) {
	for ni, n := range []uint32{1, 2, 7, 100, 1000} {
		balls := uint64(12 * n)
		if n == 1000 {
			if testing.Short() {
				continue // the rational reference takes seconds here
			}
			balls = 6000
		}
		for ci, c := range ideaCases(n, []int{1, 2, 3}) {
			t.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(t *testing.T) {
				seed := uint64(1000*ni + ci)
				r, rr := TrialStream(seed, 0, LaneChoices), TrialStream(seed, 0, LaneChoices)
				samp, rsamp := TrialStream(seed, 0, LaneIdeaSamples), TrialStream(seed, 0, LaneIdeaSamples)
				k := NewIdea[int64](c.cfg, samp)
				bins := make([]IdeaBin[int64], n)
				third := balls / 3
				m := k.Run(bins, &r, nil, third, 0)
				m = k.Run(bins, &r, nil, balls-third, m)

				var f ratField
				st := newRefIdea[*big.Rat](f, int(n), 1, c.cfg.Gamma)
				one := []*big.Rat{f.fromInt(1)}
				for range balls {
					refBall(f, st, c.cfg, false, &rr, &rsamp, []int{0}, one)
				}
				top := int64(0)
				for i := range n {
					if !st.L[i][0].IsInt() || st.L[i][0].Num().Int64() != bins[i].L {
						t.Fatalf("bin %d: load %d, reference %v", i, bins[i].L, st.L[i][0])
					}
					e := f.mulInt(st.A[i][0], int64(c.cfg.D))
					if !e.IsInt() || e.Num().Int64() != bins[i].E {
						t.Fatalf("bin %d: estimate %d/d, reference %v", i, bins[i].E, st.A[i][0])
					}
					if c.cfg.Carry {
						if b := f.mulInt(st.B[i][0], int64(c.cfg.D)); !b.IsInt() || b.Num().Int64() != k.Bank[i] {
							t.Fatalf("bin %d: bank %d/d, reference %v", i, k.Bank[i], st.B[i][0])
						}
					}
					top = max(top, bins[i].L)
				}
				if m != top {
					t.Fatalf("returned max %d, loads' max %d", m, top)
				}
				if r != rr || k.Sampler != rsamp {
					t.Fatalf("generator states differ from the reference")
				}
				checkIdeaStats(t, k.Stats, st.stats)
				if c.cfg.Variant == IdeaSampling && c.cfg.D > 1 && n > 1 && k.Stats.Checks == 0 {
					t.Fatalf("no sampling check ran")
				}
			})
		}
	}
}

// The weighted loop against the literal float64 reference, for exponential
// and uniform weights.
func TestIdeaWeightedMatchesReference(t *testing.T) {
	for ni, n := range []uint32{1, 7, 300} {
		balls := 12 * int(n)
		for ci, c := range ideaCases(n, []int{1, 2, 3}) {
			for _, law := range []string{"exp", "uniform"} {
				t.Run(fmt.Sprintf("n=%d/%s/%s", n, c.name, law), func(t *testing.T) {
					seed := uint64(5000 + 1000*ni + ci)
					ws := TrialStream(seed, 0, LaneWeights)
					w := make([]float64, balls)
					if law == "exp" {
						FillExp(w, &ws, 1.5)
					} else {
						FillUniform(w, &ws, 0.25, 3)
					}
					r, rr := TrialStream(seed, 0, LaneChoices), TrialStream(seed, 0, LaneChoices)
					samp, rsamp := TrialStream(seed, 0, LaneIdeaSamples), TrialStream(seed, 0, LaneIdeaSamples)
					k := NewIdea[float64](c.cfg, samp)
					bins := make([]IdeaBin[float64], n)
					half := balls / 2
					m := k.Run(bins, &r, w[:half], uint64(half), 0)
					m = k.Run(bins, &r, w[half:], uint64(balls-half), m)

					var f floatField
					st := newRefIdea[float64](f, int(n), 1, c.cfg.Gamma)
					for b := range balls {
						refBall(f, st, c.cfg, false, &rr, &rsamp, []int{0}, []float64{w[b]})
					}
					top := 0.0
					for i := range n {
						if bins[i].L != st.L[i][0] || bins[i].E != st.A[i][0] {
							t.Fatalf("bin %d: (L, Â) = (%v, %v), reference (%v, %v)", i, bins[i].L, bins[i].E, st.L[i][0], st.A[i][0])
						}
						top = max(top, bins[i].L)
					}
					if m != top {
						t.Fatalf("returned max %v, loads' max %v", m, top)
					}
					if r != rr || k.Sampler != rsamp {
						t.Fatalf("generator states differ from the reference")
					}
					checkIdeaStats(t, k.Stats, st.stats)
				})
			}
		}
	}
}

// At n = 10^6 Lemire's slow path is taken often enough to be exercised; d = 2
// keeps unit estimates dyadic, so the float64 reference is exact.
func TestIdeaLemireSlowPath(t *testing.T) {
	if testing.Short() {
		t.Skip("a million bins in the reference")
	}
	const n, balls = 1000000, 60000
	seed := uint64(104)
	if rejections(seed, n, 2*balls) == 0 {
		t.Fatal("the stream never takes Lemire's slow path; pick another seed")
	}
	for _, d := range []int{2, 4} {
		c := IdeaConfig{N: n, D: d, Gamma: 4, Variant: IdeaNumbered}
		r, rr := TrialStream(seed, 0, LaneChoices), TrialStream(seed, 0, LaneChoices)
		samp, rsamp := TrialStream(seed, 0, LaneIdeaSamples), TrialStream(seed, 0, LaneIdeaSamples)
		k := NewIdea[int64](c, samp)
		bins := make([]IdeaBin[int64], n)
		k.Run(bins, &r, nil, balls, 0)
		var f floatField
		st := newRefIdea[float64](f, n, 1, c.Gamma)
		for range balls {
			refBall(f, st, c, false, &rr, &rsamp, []int{0}, []float64{1})
		}
		for i := range n {
			if float64(bins[i].L) != st.L[i][0] || float64(bins[i].E) != st.A[i][0]*float64(d) {
				t.Fatalf("d=%d bin %d differs from the reference", d, i)
			}
		}
		if r != rr {
			t.Fatalf("d=%d: generator state differs", d)
		}
		checkIdeaStats(t, k.Stats, st.stats)
	}
}

// Multi-dimensional IDEA against the reference: unit balls in exact
// rationals, exponential values in float64; both key rules.
func TestIdeaVecMatchesReference(t *testing.T) {
	shapes := []VecShape{{1, 1, false}, {3, 2, false}, {3, 2, true}, {8, 2, false}, {8, 8, false}, {5, 3, true}}
	if testing.Short() {
		shapes = []VecShape{{1, 1, false}, {3, 2, true}, {8, 2, false}}
	}
	for si, sh := range shapes {
		for ci, c := range ideaCases(40, []int{1, 2, 3}) {
			if c.cfg.Gamma == 2 {
				continue
			}
			for _, weighted := range []bool{false, true} {
				t.Run(fmt.Sprintf("D=%d/f=%d/all=%v/%s/weighted=%v", sh.Dims, sh.F, sh.AllDims, c.name, weighted), func(t *testing.T) {
					seed := uint64(9000 + 100*si + ci)
					const n, balls = 40, 600
					var w []float64
					if weighted {
						ws := TrialStream(seed, 0, LaneWeights)
						w = make([]float64, balls*sh.F)
						FillExp(w, &ws, 1)
					}
					r, rr := TrialStream(seed, 0, LaneChoices), TrialStream(seed, 0, LaneChoices)
					samp, rsamp := TrialStream(seed, 0, LaneIdeaSamples), TrialStream(seed, 0, LaneIdeaSamples)
					dims, rdims := TrialStream(seed, 0, LaneDims), TrialStream(seed, 0, LaneDims)
					if !weighted {
						k := NewIdeaVec[int64](c.cfg, sh, samp, dims)
						bins := make([]IdeaBin[int64], n*sh.Dims)
						m := k.Run(bins, &r, nil, balls/2, 0)
						m = k.Run(bins, &r, nil, balls-balls/2, m)
						var f ratField
						st := newRefIdea[*big.Rat](f, n, sh.Dims, c.cfg.Gamma)
						for range balls {
							ds := refDims(&rdims, sh.Dims, sh.F)
							vals := make([]*big.Rat, len(ds))
							for q := range vals {
								vals[q] = f.fromInt(1)
							}
							refBall(f, st, c.cfg, sh.AllDims, &rr, &rsamp, ds, vals)
						}
						top := int64(0)
						for i := range n {
							for kd := range sh.Dims {
								b := bins[i*sh.Dims+kd]
								e := f.mulInt(st.A[i][kd], int64(c.cfg.D))
								if st.L[i][kd].Num().Int64() != b.L || !e.IsInt() || e.Num().Int64() != b.E {
									t.Fatalf("bin %d dim %d: (L, E) = (%d, %d), reference (%v, %v)", i, kd, b.L, b.E, st.L[i][kd], e)
								}
								top = max(top, b.L)
							}
						}
						if m != top {
							t.Fatalf("returned max %d, loads' max %d", m, top)
						}
						if r != rr || k.Sampler != rsamp || k.Shapes != rdims {
							t.Fatalf("generator states differ from the reference")
						}
						checkIdeaStats(t, k.Stats, st.stats)
						return
					}
					k := NewIdeaVec[float64](c.cfg, sh, samp, dims)
					bins := make([]IdeaBin[float64], n*sh.Dims)
					h := balls / 2
					m := k.Run(bins, &r, w[:h*sh.F], uint64(h), 0)
					m = k.Run(bins, &r, w[h*sh.F:], uint64(balls-h), m)
					var f floatField
					st := newRefIdea[float64](f, n, sh.Dims, c.cfg.Gamma)
					for b := range balls {
						ds := refDims(&rdims, sh.Dims, sh.F)
						refBall(f, st, c.cfg, sh.AllDims, &rr, &rsamp, ds, w[b*sh.F:(b+1)*sh.F])
					}
					top := 0.0
					for i := range n {
						for kd := range sh.Dims {
							b := bins[i*sh.Dims+kd]
							if st.L[i][kd] != b.L || st.A[i][kd] != b.E {
								t.Fatalf("bin %d dim %d: (L, Â) = (%v, %v), reference (%v, %v)", i, kd, b.L, b.E, st.L[i][kd], st.A[i][kd])
							}
							top = max(top, b.L)
						}
					}
					if m != top {
						t.Fatalf("returned max %v, loads' max %v", m, top)
					}
					if r != rr || k.Sampler != rsamp || k.Shapes != rdims {
						t.Fatalf("generator states differ from the reference")
					}
					checkIdeaStats(t, k.Stats, st.stats)
				})
			}
		}
	}
}

func TestDChoiceVecMatchesReference(t *testing.T) {
	for _, sh := range []VecShape{{1, 1, false}, {4, 2, false}, {8, 2, false}, {8, 8, false}} {
		for _, d := range []int{1, 2, 3} {
			for _, weighted := range []bool{false, true} {
				t.Run(fmt.Sprintf("D=%d/f=%d/d=%d/weighted=%v", sh.Dims, sh.F, d, weighted), func(t *testing.T) {
					const n, balls = 50, 5000
					seed := uint64(d*10 + sh.Dims)
					var w []float64
					if weighted {
						ws := TrialStream(seed, 0, LaneWeights)
						w = make([]float64, balls*sh.F)
						FillPareto(w, &ws, 3, 2.0/3)
					}
					r, rr := TrialStream(seed, 0, LaneChoices), TrialStream(seed, 0, LaneChoices)
					dims, rdims := TrialStream(seed, 0, LaneDims), TrialStream(seed, 0, LaneDims)
					ref := make([][]float64, n)
					for i := range ref {
						ref[i] = make([]float64, sh.Dims)
					}
					refDChoiceVec(ref, &rr, &rdims, w, balls, d, sh.Dims, sh.F)
					var got []float64
					if weighted {
						loads, rowMax := make([]float64, n*sh.Dims), make([]float64, n)
						DChoiceVec(loads, rowMax, &r, &dims, w, balls, d, sh, 0)
						got = loads
					} else {
						loads, rowMax := make([]int64, n*sh.Dims), make([]int64, n)
						DChoiceVec(loads, rowMax, &r, &dims, nil, balls, d, sh, 0)
						for _, x := range loads {
							got = append(got, float64(x))
						}
					}
					if !slices.Equal(got, slices.Concat(ref...)) {
						t.Fatalf("loads differ from the reference")
					}
					if r != rr || dims != rdims {
						t.Fatalf("generator states differ from the reference")
					}
				})
			}
		}
	}
}

// Reductions, ball for ball on the same stream: with estimates frozen at the
// true average (IdeaOracle) and γ = 1, IDEA is d-choice; with d = 1 and
// γ = 1 any variant is one-choice. For d = 2 and n < 2^16 IDEA draws pairs,
// which d-choice does not, so that reduction is checked at n > 2^16.
func TestIdeaReducesToDChoice(t *testing.T) {
	for _, n := range []uint32{1, 5, 1000, pairMax + 3} {
		for _, d := range []int{1, 2, 3} {
			if d == 2 && n < pairMax {
				continue
			}
			seed := uint64(77 + d)
			const balls = 30000
			r, rr := TrialStream(seed, 0, LaneChoices), TrialStream(seed, 0, LaneChoices)
			k := NewIdea[int64](IdeaConfig{N: n, D: d, Gamma: 1, Variant: IdeaOracle}, PCG32{})
			bins := make([]IdeaBin[int64], n)
			k.Run(bins, &r, nil, balls, 0)
			want := make([]uint64, n)
			DChoice(want, &rr, balls, d, 0)
			for i := range n {
				if uint64(bins[i].L) != want[i] {
					t.Fatalf("n=%d d=%d: oracle γ=1 differs from d-choice at bin %d", n, d, i)
				}
			}
			if r != rr {
				t.Fatalf("n=%d d=%d: streams differ", n, d)
			}
		}
		for _, v := range []IdeaVariant{IdeaNumbered, IdeaSampling, IdeaOracle} {
			seed := uint64(11)
			r, rr := TrialStream(seed, 0, LaneChoices), TrialStream(seed, 0, LaneChoices)
			k := NewIdea[int64](IdeaConfig{N: n, D: 1, Gamma: 1, Variant: v, K: 2}, TrialStream(seed, 0, LaneIdeaSamples))
			bins := make([]IdeaBin[int64], n)
			k.Run(bins, &r, nil, 20000, 0)
			want := make([]uint32, n)
			OneChoice(want, &rr, 20000, 0)
			for i := range n {
				if uint32(bins[i].L) != want[i] {
					t.Fatalf("n=%d variant %d: d=1 γ=1 differs from one-choice", n, v)
				}
			}
		}
	}
}

// Pareto weights have the law's mean and tail; uniform weights stay in
// [a, b) with the right mean (tolerances: 5 standard errors).
func TestFillWeightLaws(t *testing.T) {
	r := TrialStream(3, 0, LaneWeights)
	const N = 200000
	w := make([]float64, N)
	FillUniform(w, &r, 1, 3)
	sum := 0.0
	for _, x := range w {
		if x < 1 || x >= 3 {
			t.Fatalf("uniform weight %v outside [1, 3)", x)
		}
		sum += x
	}
	if se := (2 / 3.4641) / 447.2; abs(sum/N-2) > 5*se {
		t.Fatalf("uniform mean %v, want 2", sum/N)
	}
	// Pareto α = 4, xm = 3/4: mean 1, variance xm²α/((α−1)²(α−2)) = 1/8.
	FillPareto(w, &r, 4, 0.75)
	sum, tail := 0.0, 0
	for _, x := range w {
		if x < 0.75 {
			t.Fatalf("pareto weight %v below xm", x)
		}
		sum += x
		if x > 1.5 {
			tail++
		}
	}
	if se := 0.35355 / 447.2; abs(sum/N-1) > 5*se {
		t.Fatalf("pareto mean %v, want 1", sum/N)
	}
	// P(X > 1.5) = (0.75/1.5)^4 = 1/16.
	p := 1.0 / 16
	if se := 0.242 / 447.2; abs(float64(tail)/N-p) > 5*se {
		t.Fatalf("pareto tail %v, want %v", float64(tail)/N, p)
	}
}

func abs(x float64) float64 { return max(x, -x) }

// The totals of the estimates behave as §3 says: each ball adds 1/d to the
// estimates of its final round's d bins, so Σ Â grows by exactly 1 per ball
// except for held increments (Σ E = d·t − held, in units of 1/d), and under
// the numbered rule no estimate exceeds ⌈t/n⌉ ("the estimated average of a
// bin is increased by at most 1 for every n balls"). With carry nothing is
// lost: Σ E + Σ bank = d·t. The oracle keeps none.
func TestIdeaEstimateTotals(t *testing.T) {
	const n = 50
	for _, v := range []IdeaVariant{IdeaNumbered, IdeaSampling, IdeaOracle} {
		for _, d := range []int{1, 2, 3} {
			for _, carry := range []bool{false, true} {
				if carry && v == IdeaOracle {
					continue
				}
				checkEstimateTotals(t, IdeaConfig{N: n, D: d, Gamma: 4, Variant: v, K: 4, Carry: carry})
			}
		}
	}
}

func checkEstimateTotals(t *testing.T, c IdeaConfig) {
	t.Helper()
	n, d, v := int64(c.N), c.D, c.Variant
	r := TrialStream(21, 0, LaneChoices)
	k := NewIdea[int64](c, TrialStream(21, 0, LaneIdeaSamples))
	bins := make([]IdeaBin[int64], n)
	for ball := int64(1); ball <= 40*n; ball++ {
		k.Run(bins, &r, nil, 1, 0)
		sum, top := int64(0), int64(0)
		for _, b := range bins {
			sum += b.E
			top = max(top, b.E)
		}
		if v == IdeaOracle {
			if sum != 0 {
				t.Fatalf("oracle d=%d: estimates were kept", d)
			}
			continue
		}
		want := int64(d)*ball - int64(k.Stats.Held)
		if c.Carry {
			for _, b := range k.Bank {
				sum += b
			}
			want = int64(d) * ball
		}
		if sum != want {
			t.Fatalf("variant %d d=%d carry=%v ball %d: Σ E (+ Σ bank) = %d, want %d", v, d, c.Carry, ball, sum, want)
		}
		if limit := int64(d) * ((ball + n - 1) / n); v == IdeaNumbered && top > limit {
			t.Fatalf("numbered d=%d ball %d: an estimate %d/d exceeds ⌈t/n⌉ = %d", d, ball, top, limit/int64(d))
		}
	}
	if v != IdeaOracle && k.Stats.Held == 0 {
		t.Fatalf("variant %d d=%d: no hold in 40·n balls; the test checks nothing", v, d)
	}
}

// boundedPair's proof (idea.go) in two parts. First the identity: pairOf's
// (i, j, r) are the base-n digits of ⌊x·n²/2^32⌋ and x·n² mod 2^32. Then
// Lemire's count for the bound N = n²: the accepted x of value v, those with
// x·N in [v·2^32 + t, (v+1)·2^32), number ⌊2^32/N⌋ for every v, counted here
// exactly by interval arithmetic over all 2^32 inputs.
func TestPairDrawExact(t *testing.T) {
	r := NewPCG32(7, 7)
	for _, n := range []uint64{1, 2, 3, 7, 100, 255, 1000, 10000, 65535} {
		N := n * n
		th := uint64(pairThresh(uint32(n)))
		if th != (1<<32)%N {
			t.Fatalf("n=%d: threshold %d", n, th)
		}
		xs := []uint32{0, 1, ^uint32(0)}
		for range 20000 {
			xs = append(xs, r.Uint32())
		}
		for _, x := range xs {
			i, j, rem := pairOf(x, n)
			xN := uint64(x) * N
			if v := xN >> 32; uint64(i) != v/n || uint64(j) != v%n || uint64(rem) != xN%(1<<32) {
				t.Fatalf("n=%d x=%d: pairOf (%d, %d, %d), want digits of %d and %d", n, x, i, j, rem, v, xN%(1<<32))
			}
		}
		if N > 1e6 {
			continue
		}
		ceil := func(a uint64) uint64 { return (a + N - 1) / N }
		for v := range N {
			if got := ceil((v+1)<<32) - ceil(v<<32+th); got != (1<<32)/N {
				t.Fatalf("n=%d: value %d has %d accepted inputs, want %d", n, v, got, (1<<32)/N)
			}
		}
	}
}

// The same count by enumeration: every 32-bit output through pairOf.
func TestPairDrawEnumerated(t *testing.T) {
	if testing.Short() {
		t.Skip("2^32 outputs")
	}
	const n = 255
	th := pairThresh(n)
	count := make([]uint32, n*n)
	for x := range uint64(1 << 32) {
		if i, j, r := pairOf(uint32(x), n); r >= th {
			count[i*n+j]++
		}
	}
	for v, c := range count {
		if c != (1<<32)/(n*n) {
			t.Fatalf("pair %d: %d accepted outputs, want %d", v, c, (1<<32)/(n*n))
		}
	}
}

// Above 2^16 bins the fast vector loop hands balls that need Lemire's
// rejection step to the general loop (checked against the reference above)
// and refreshes its flags: both loops must agree ball for ball.
func TestIdeaVecFastMatchesGeneral(t *testing.T) {
	const n, balls = pairMax + 3, 40000
	for _, sh := range []VecShape{{8, 2, false}, {12, 3, true}} {
		c := IdeaConfig{N: n, D: 2, Gamma: 8, Variant: IdeaNumbered}
		run := func(fast bool) ([]IdeaBin[int64], *IdeaVec[int64], PCG32) {
			r := TrialStream(3, 0, LaneChoices)
			k := NewIdeaVec[int64](c, sh, PCG32{}, TrialStream(3, 0, LaneDims))
			bins := make([]IdeaBin[int64], n*sh.Dims)
			for range balls / 1000 {
				if fast {
					k.Run(bins, &r, nil, 1000, 0)
				} else {
					k.general(bins, &r, nil, 1000, 0)
				}
			}
			return bins, k, r
		}
		if rejections(3, n, 2*balls) == 0 {
			t.Fatal("the stream never takes Lemire's slow path; pick another seed")
		}
		fb, fk, fr := run(true)
		gb, gk, gr := run(false)
		if !slices.Equal(fb, gb) || fr != gr || fk.Shapes != gk.Shapes {
			t.Fatalf("%+v: the fast loop differs from the general one", sh)
		}
		checkIdeaStats(t, fk.Stats, gk.Stats)
	}
}
