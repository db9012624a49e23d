package graph

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/kernels"
)

func hsNear(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*max(1, math.Abs(a), math.Abs(b))
}

func hsExplicit(n uint64, edges [][]uint32) *Hypergraph {
	h := &Hypergraph{Spec: "file:test", Family: HExplicit, N: n, S: uint64(len(edges)), Offsets: []uint64{0}}
	for _, e := range edges {
		h.Members = append(h.Members, e...)
		h.Offsets = append(h.Offsets, uint64(len(h.Members)))
	}
	return h
}

func hsRandomK(n, s, k uint64, seed uint64) *Hypergraph {
	h := &Hypergraph{Spec: fmt.Sprintf("random:%d,%d", s, k), Family: RandomK, N: n, S: s, K: k, Members: make([]uint32, s*k)}
	rng := kernels.NewPCG32(seed, 7)
	kernels.RandomSubsets(h.Members, uint32(n), int(k), &rng)
	return h
}

// intervals:3 on 6 bins, by hand: every bin is in 3 windows of 3 bins, so
// P(i) = 3·(1/3)/6 = 1/6 and β = 1. Adjacent pairs share 2 windows, pairs at
// distance 2 share 1, opposite pairs none: 12 of 15 pairs covered. A ball
// probes pair {i,j} with probability c/(6·3) = c/18, so the probed mean
// codegree is (6·2·2 + 6·1·1)/18 = 5/3 and max P({i,j} ⊆ D) = 2/18 for d = 2.
func TestHyperStatsIntervalsTiny(t *testing.T) {
	h, err := ParseHyper("intervals:3", 6, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []*Hypergraph{h, h.Materialize()} {
		st := ComputeHyperStats(g, 2, HyperStatsOptions{Balls: 100})
		p := st.Pairs
		if st.MinSize != 3 || st.MaxSize != 3 || st.MeanSize != 3 || st.MinDegree != 3 || st.MaxDegree != 3 {
			t.Errorf("%v: sizes %d..%d mean %v, degrees %d..%d", g.Family, st.MinSize, st.MaxSize, st.MeanSize, st.MinDegree, st.MaxDegree)
		}
		if !hsNear(st.Beta, 1) || !hsNear(st.BetaMin, 1) || !hsNear(st.BetaD, 1) || st.BetaBinCount != 6 || !slices.Equal(st.BetaBins, []uint64{0, 1, 2, 3, 4, 5}) {
			t.Errorf("%v: β = %v (min %v, d %v) at %v of %d", g.Family, st.Beta, st.BetaMin, st.BetaD, st.BetaBins, st.BetaBinCount)
		}
		if !p.Exact || p.TotalPairs != 15 || p.Covered != 12 || !hsNear(p.CoveredFrac, 0.8) {
			t.Errorf("%v: covered %d of %v (exact %v)", g.Family, p.Covered, p.TotalPairs, p.Exact)
		}
		if p.MaxCodegree != 2 || p.MaxCodegreePair != [2]uint64{0, 1} {
			t.Errorf("%v: max codegree %d at %v, want 2 at {0,1}", g.Family, p.MaxCodegree, p.MaxCodegreePair)
		}
		if !hsNear(p.MeanCodegree, 18.0/15) || !hsNear(p.ProbedCodegree, 5.0/3) || !hsNear(p.MaxProbeD, 2.0/18) {
			t.Errorf("%v: mean codegree %v (want 1.2), probed %v (want 5/3), max P(D) %v (want 1/9)", g.Family, p.MeanCodegree, p.ProbedCodegree, p.MaxProbeD)
		}
		if st.Vis.PerRound != 1 || st.Vis.Dynamic || st.Vis.Max != 100 {
			t.Errorf("%v: visibility %+v, want per round 1, max 100", g.Family, st.Vis)
		}
	}
}

// Three hyperedges on 5 bins, A = {0,1,2}, B = {2,3}, C = {0,2,3,4}, by hand.
// P(i) = (1/3)·Σ 1/|B|: 7/36, 4/36, 13/36, 9/36, 3/36, so β = 5·13/36 at bin
// 2 and the least is 5·3/36. Codegrees: {0,2} and {2,3} 2; {0,1}, {1,2},
// {0,3}, {0,4}, {2,4}, {3,4} 1; {1,3}, {1,4} 0. A ball draws a pair from A
// with weight 1/3·1/3, from B 1/3·1, from C 1/3·1/6; the probed mean
// codegree is Σ c·P = 28/18. For d = 2, max P({i,j} ⊆ D) is 7/18 at {2,3};
// for d = 3 it is (1 + 1/2)/3 = 1/2, first at {0,2}, and the largest
// P(i ∈ D) is bin 2's (1 + 1 + 3/4)/3, so n·P/d = 5·11/36.
func TestHyperStatsExplicitTiny(t *testing.T) {
	h := hsExplicit(5, [][]uint32{{0, 1, 2}, {2, 3}, {0, 2, 3, 4}})
	for _, compact := range []bool{false, true} {
		for _, tc := range []struct {
			d            int
			betaD, probe float64
			probePair    [2]uint64
		}{
			{2, 65.0 / 36, 7.0 / 18, [2]uint64{2, 3}},
			{3, 55.0 / 36, 0.5, [2]uint64{0, 2}},
		} {
			st := ComputeHyperStats(h, tc.d, HyperStatsOptions{forceCompact: compact})
			p := st.Pairs
			name := fmt.Sprintf("compact=%v d=%d", compact, tc.d)
			if st.MinSize != 2 || st.MaxSize != 4 || st.MeanSize != 3 || st.SumSize != 9 || st.MinDegree != 1 || st.MaxDegree != 3 {
				t.Errorf("%s: sizes %d..%d mean %v Σ %d, degrees %d..%d", name, st.MinSize, st.MaxSize, st.MeanSize, st.SumSize, st.MinDegree, st.MaxDegree)
			}
			if !hsNear(st.Beta, 65.0/36) || !hsNear(st.BetaMin, 15.0/36) || st.BetaBinCount != 1 || !slices.Equal(st.BetaBins, []uint64{2}) {
				t.Errorf("%s: β = %v (want 65/36) min %v (want 15/36) at %v", name, st.Beta, st.BetaMin, st.BetaBins)
			}
			if !hsNear(st.BetaD, tc.betaD) {
				t.Errorf("%s: β_d = %v, want %v", name, st.BetaD, tc.betaD)
			}
			if !p.Exact || p.Covered != 8 || !hsNear(p.CoveredFrac, 0.8) || p.MaxCodegree != 2 || p.MaxCodegreePair != [2]uint64{0, 2} {
				t.Errorf("%s: covered %d, max codegree %d at %v", name, p.Covered, p.MaxCodegree, p.MaxCodegreePair)
			}
			if !hsNear(p.MeanCodegree, 1) || !hsNear(p.ProbedCodegree, 28.0/18) {
				t.Errorf("%s: mean codegree %v (want 1), probed %v (want 14/9)", name, p.MeanCodegree, p.ProbedCodegree)
			}
			if !hsNear(p.MaxProbeD, tc.probe) || p.MaxProbeDPair != tc.probePair {
				t.Errorf("%s: max P(D) %v at %v, want %v at %v", name, p.MaxProbeD, p.MaxProbeDPair, tc.probe, tc.probePair)
			}
		}
	}
}

// The intervals closed forms against the generic count on the materialized
// twin, across k < n/2, k ≥ n/2 (windows overlapping from both sides), k = n
// and k = 1.
func TestHyperStatsIntervalsClosedForm(t *testing.T) {
	for _, tc := range []struct{ n, k uint64 }{
		{6, 3}, {7, 3}, {8, 4}, {9, 5}, {9, 8}, {10, 1}, {5, 5}, {2, 2}, {12, 7}, {13, 12}, {40, 9}, {41, 30},
	} {
		for _, d := range []int{2, 3, 6} {
			h, err := ParseHyper(fmt.Sprintf("intervals:%d", tc.k), tc.n, Options{})
			if err != nil {
				t.Fatal(err)
			}
			opt := HyperStatsOptions{Balls: 1000, ListBins: 100}
			a := ComputeHyperStats(h, d, opt)
			b := ComputeHyperStats(h.Materialize(), d, opt)
			name := fmt.Sprintf("n=%d k=%d d=%d", tc.n, tc.k, d)
			if a.BetaMethod != "closed form" || b.BetaMethod != "exact" {
				t.Fatalf("%s: methods %q, %q", name, a.BetaMethod, b.BetaMethod)
			}
			a.BetaMethod, b.BetaMethod = "", ""
			a.Family, b.Family = 0, 0
			a.Pairs.Method, b.Pairs.Method = "", ""
			for _, f := range []struct {
				what string
				x, y float64
			}{
				{"β", a.Beta, b.Beta}, {"β min", a.BetaMin, b.BetaMin}, {"β_d", a.BetaD, b.BetaD},
				{"mean size", a.MeanSize, b.MeanSize}, {"mean degree", a.MeanDegree, b.MeanDegree},
				{"covered", a.Pairs.CoveredFrac, b.Pairs.CoveredFrac}, {"mean codegree", a.Pairs.MeanCodegree, b.Pairs.MeanCodegree},
				{"probed codegree", a.Pairs.ProbedCodegree, b.Pairs.ProbedCodegree}, {"max P(D)", a.Pairs.MaxProbeD, b.Pairs.MaxProbeD},
			} {
				if !hsNear(f.x, f.y) {
					t.Errorf("%s: %s closed form %v, generic %v", name, f.what, f.x, f.y)
				}
			}
			a.Beta, a.BetaMin, a.BetaD, a.MeanSize, a.MeanDegree = 0, 0, 0, 0, 0
			b.Beta, b.BetaMin, b.BetaD, b.MeanSize, b.MeanDegree = 0, 0, 0, 0, 0
			a.Pairs.CoveredFrac, a.Pairs.MeanCodegree, a.Pairs.ProbedCodegree, a.Pairs.MaxProbeD = 0, 0, 0, 0
			b.Pairs.CoveredFrac, b.Pairs.MeanCodegree, b.Pairs.ProbedCodegree, b.Pairs.MaxProbeD = 0, 0, 0, 0
			if tc.k < 2 {
				// No pairs: the generic count never names a pair.
				b.Pairs.MaxCodegreePair, b.Pairs.MaxProbeDPair = a.Pairs.MaxCodegreePair, a.Pairs.MaxProbeDPair
			}
			if as, bs := fmt.Sprintf("%+v", a), fmt.Sprintf("%+v", b); as != bs {
				t.Errorf("%s:\nclosed form %s\ngeneric     %s", name, as, bs)
			}
		}
	}
}

// hsBruteStats holds what hsBrute computes straight from the definitions, pair by
// pair and hyperedge by hyperedge.
type hsBruteStats struct {
	beta, betaMin, betaD, meanC, probed, maxPD, covered float64
	maxC                                                uint64
}

func hsBrute(h *Hypergraph, d int) hsBruteStats {
	var r hsBruteStats
	n, s := h.N, float64(h.S)
	edges := make([][]uint64, h.S)
	for e := range h.S {
		edges[e] = h.Edge(nil, e)
	}
	r.betaMin = math.Inf(1)
	for i := range n {
		var q, qd float64
		for _, e := range edges {
			if slices.Contains(e, i) {
				q += 1 / float64(len(e))
				qd += float64(min(d, len(e))) / float64(len(e))
			}
		}
		r.beta = max(r.beta, float64(n)*q/s)
		r.betaMin = min(r.betaMin, float64(n)*q/s)
		r.betaD = max(r.betaD, float64(n)*qd/s/float64(d))
	}
	var sumC, sumP, sumCP float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			var c uint64
			var pp, pd float64
			for _, e := range edges {
				if slices.Contains(e, i) && slices.Contains(e, j) {
					c++
					sz := uint64(len(e))
					pp += 1 / hsChoose2(sz) / s
					pd += hsChoose2(min(uint64(d), sz)) / hsChoose2(sz) / s
				}
			}
			if c > 0 {
				r.covered++
			}
			sumC += float64(c)
			sumP += pp
			sumCP += float64(c) * pp
			r.maxC = max(r.maxC, c)
			r.maxPD = max(r.maxPD, pd)
		}
	}
	pairs := float64(n) * float64(n-1) / 2
	r.covered /= pairs
	r.meanC = sumC / pairs
	r.probed = sumCP / sumP
	return r
}

// The exact count, on both the dense and the relabelled path, against the
// definitions on small hypergraphs with hyperedges of mixed sizes.
func TestHyperStatsExactMatchesBruteForce(t *testing.T) {
	rng := kernels.NewPCG32(11, 3)
	for trial := range 30 {
		n := 3 + uint64(rng.Bounded(14))
		s := 1 + int(rng.Bounded(9))
		var edges [][]uint32
		for range s {
			k := 1 + int(rng.Bounded(uint32(n)))
			e := make([]uint32, k)
			kernels.RandomSubsets(e, uint32(n), k, &rng)
			edges = append(edges, e)
		}
		h := hsExplicit(n, edges)
		for _, d := range []int{2, 4} {
			want := hsBrute(h, d)
			for _, compact := range []bool{false, true} {
				st := ComputeHyperStats(h, d, HyperStatsOptions{forceCompact: compact})
				p := st.Pairs
				name := fmt.Sprintf("trial %d (n=%d s=%d) d=%d compact=%v", trial, n, s, d, compact)
				got := hsBruteStats{st.Beta, st.BetaMin, st.BetaD, p.MeanCodegree, p.ProbedCodegree, p.MaxProbeD, p.CoveredFrac, p.MaxCodegree}
				if want.maxC == 0 {
					want.probed = 0 // no pair is ever probed: nothing to average
				}
				ok := got.maxC == want.maxC
				for _, f := range [][2]float64{{got.beta, want.beta}, {got.betaMin, want.betaMin}, {got.betaD, want.betaD}, {got.meanC, want.meanC},
					{got.probed, want.probed}, {got.maxPD, want.maxPD}, {got.covered, want.covered}} {
					ok = ok && hsNear(f[0], f[1])
				}
				if !ok {
					t.Errorf("%s:\ngot  %+v\nwant %+v", name, got, want)
				}
			}
		}
	}
}

// Bins spread over a huge range take the relabelled path on their own: the
// tiny explicit hypergraph with bin b moved to b·2^28+5 on 2^31 bins keeps
// its pair figures, and its β scales with n.
func TestHyperStatsSparseBins(t *testing.T) {
	const n = 1 << 31
	far := func(b uint32) uint32 { return b<<28 + 5 }
	h := hsExplicit(n, [][]uint32{{far(0), far(1), far(2)}, {far(2), far(3)}, {far(0), far(2), far(3), far(4)}})
	st := ComputeHyperStats(h, 2, HyperStatsOptions{})
	p := st.Pairs
	if !hsNear(st.Beta, n*13.0/36) || st.BetaMin != 0 || st.MinDegree != 0 || !slices.Equal(st.BetaBins, []uint64{uint64(far(2))}) {
		t.Errorf("β = %v (want n·13/36) min %v at %v", st.Beta, st.BetaMin, st.BetaBins)
	}
	if !p.Exact || p.Covered != 8 || p.MaxCodegree != 2 || p.MaxCodegreePair != [2]uint64{uint64(far(0)), uint64(far(2))} ||
		!hsNear(p.ProbedCodegree, 28.0/18) || !hsNear(p.MaxProbeD, 7.0/18) {
		t.Errorf("pairs %+v", p)
	}
}

// Sampled figures against the exact ones on a medium random hypergraph:
// within 4 standard errors, and the sampled max codegree a lower bound. The
// mean codegree over all pairs is exact either way: s·C(k,2)/C(n,2).
func TestHyperStatsSampledAgreesWithExact(t *testing.T) {
	h := hsRandomK(2000, 3000, 20, 1)
	ex := ComputeHyperStats(h, 2, HyperStatsOptions{})
	rng := kernels.NewPCG32(5, 9)
	sa := ComputeHyperStats(h, 2, HyperStatsOptions{ExactWork: 1, Samples: 40000, RNG: &rng})
	pe, ps := ex.Pairs, sa.Pairs
	if !pe.Exact || ps.Exact || !ps.MaxIsLowerBound || ps.PairSamples != 40000 || ps.ProbeSamples != 40000 {
		t.Fatalf("exact %+v\nsampled %+v", pe, ps)
	}
	if want := 3000 * 190 / (2000 * 1999 / 2.0); !hsNear(pe.MeanCodegree, want) || !hsNear(ps.MeanCodegree, want) {
		t.Errorf("mean codegree %v, %v, want %v", pe.MeanCodegree, ps.MeanCodegree, want)
	}
	if d := math.Abs(ps.CoveredFrac - pe.CoveredFrac); d > 4*ps.CoveredSE || ps.CoveredSE == 0 {
		t.Errorf("covered: sampled %v ± %v, exact %v", ps.CoveredFrac, ps.CoveredSE, pe.CoveredFrac)
	}
	if d := math.Abs(ps.ProbedCodegree - pe.ProbedCodegree); d > 4*ps.ProbedSE || ps.ProbedSE == 0 {
		t.Errorf("probed codegree: sampled %v ± %v, exact %v", ps.ProbedCodegree, ps.ProbedSE, pe.ProbedCodegree)
	}
	if ps.MaxCodegree > pe.MaxCodegree || ps.MaxCodegree < 2 {
		t.Errorf("max codegree: sampled %d, exact %d", ps.MaxCodegree, pe.MaxCodegree)
	}
	if ex.Beta != sa.Beta || ex.BetaBinCount != sa.BetaBinCount {
		t.Errorf("β differs between modes: %v, %v", ex.Beta, sa.Beta)
	}
	// Same seed, same report.
	rng2 := kernels.NewPCG32(5, 9)
	if again := ComputeHyperStats(h, 2, HyperStatsOptions{ExactWork: 1, Samples: 40000, RNG: &rng2}); fmt.Sprint(again) != fmt.Sprint(sa) {
		t.Error("sampling is not reproducible from the RNG")
	}
}

// P(a given pair shares a hyperedge of a fresh random:s,k) = 1 − (1 −
// k(k−1)/(n(n−1)))^s, checked over independent draws within 4 standard
// errors.
func TestHyperPCoverMatchesDraws(t *testing.T) {
	const n, s, k, draws = 30, 10, 4, 4000
	st := ComputeHyperStats(hsRandomK(n, s, k, 1), 2, HyperStatsOptions{Balls: 20, Refresh: 1})
	p := st.Vis.PCover
	rng := kernels.NewPCG32(3, 3)
	members := make([]uint32, s*k)
	hits := 0
	for range draws {
		kernels.RandomSubsets(members, n, k, &rng)
		for e := 0; e < s*k; e += k {
			if slices.Contains(members[e:e+k], 0) && slices.Contains(members[e:e+k], 1) {
				hits++
				break
			}
		}
	}
	se := math.Sqrt(p * (1 - p) / draws)
	if f := float64(hits) / draws; math.Abs(f-p) > 4*se {
		t.Errorf("pair {0,1} covered in %v of draws, formula %v ± %v", f, p, se)
	}
}

// The union-bound quantile against the binomial tail summed directly.
func TestHyperUnionQuantile(t *testing.T) {
	for _, tc := range []struct {
		e            uint64
		p, pairs, dl float64
	}{
		{20, 0.25, 1999000, 0.01}, {1, 0.5, 10, 0.01}, {60, 0.01, 1e6, 0.01}, {40, 0.9, 100, 0.01}, {10, 1e-9, 10, 0.01}, {30, 0.5, 1, 0.5},
	} {
		pmf := make([]float64, tc.e+1)
		for j := range tc.e + 1 {
			lc, _ := math.Lgamma(float64(tc.e) + 1)
			a, _ := math.Lgamma(float64(j) + 1)
			b, _ := math.Lgamma(float64(tc.e-j) + 1)
			pmf[j] = math.Exp(lc - a - b + float64(j)*math.Log(tc.p) + float64(tc.e-j)*math.Log1p(-tc.p))
		}
		want := tc.e
		tail := 0.0 // P(X > q)
		for q := tc.e; q > 0; q-- {
			tail += pmf[q]
			if tc.pairs*tail > tc.dl {
				break
			}
			want = q - 1
		}
		if got := hsUnionQuantile(tc.e, tc.p, tc.pairs, tc.dl); got != want {
			t.Errorf("%+v: got %d, want %d", tc, got, want)
		}
	}
}

// Visibility of a redrawn random hypergraph: the mean is m·PCover, and over
// a simulated run the largest vis(i,j) lies between the mean and the bound.
func TestHyperVisibilityDynamic(t *testing.T) {
	const n, s, k, m, r = 300, 200, 8, 400, 10
	h := hsRandomK(n, s, k, 2)
	st := ComputeHyperStats(h, 2, HyperStatsOptions{Balls: m, Refresh: r})
	v := st.Vis
	if !v.Dynamic || v.Epochs != m/r || !hsNear(v.Mean, m*v.PCover) {
		t.Fatalf("visibility %+v", v)
	}
	if v.Bound < v.Mean || v.Bound > m || math.Mod(v.Bound, r) != 0 {
		t.Errorf("bound %v, mean %v", v.Bound, v.Mean)
	}
	vis := make([]uint64, n*n)
	rng := kernels.NewPCG32(8, 1)
	for range v.Epochs {
		kernels.RandomSubsets(h.Members, n, k, &rng)
		seen := make([]bool, n*n)
		for e := range uint64(s) {
			mem := h.Members[e*k : (e+1)*k]
			for _, a := range mem {
				for _, b := range mem {
					if a < b && !seen[a*n+b] {
						seen[a*n+b] = true
						vis[a*n+b] += r
					}
				}
			}
		}
	}
	top := float64(slices.Max(vis))
	if top < v.Mean || top > v.Bound {
		t.Errorf("simulated max vis %v, want within [mean %v, bound %v]", top, v.Mean, v.Bound)
	}
	if v.Epsilon != 1-math.Log(v.Bound)/math.Log(n) {
		t.Errorf("ε = %v", v.Epsilon)
	}

	// Static: one hypergraph for all m balls, or m ⩽ R, or a family that is
	// never redrawn.
	for _, opt := range []HyperStatsOptions{{Balls: m}, {Balls: m, Refresh: m}} {
		if v := ComputeHyperStats(h, 2, opt).Vis; v.Dynamic || v.Max != m || v.PerRound != 1 {
			t.Errorf("%+v: %+v", opt, v)
		}
	}
	iv, _ := ParseHyper("intervals:4", 50, Options{})
	if v := ComputeHyperStats(iv, 2, HyperStatsOptions{Balls: m, Refresh: r}).Vis; v.Dynamic || v.Max != m {
		t.Errorf("intervals redrawn: %+v", v)
	}
	if v := ComputeHyperStats(hsExplicit(4, [][]uint32{{0}, {3}}), 2, HyperStatsOptions{Balls: m}).Vis; v.PerRound != 0 || v.Max != 0 {
		t.Errorf("singletons: %+v", v)
	}
}

func TestHyperStatsLines(t *testing.T) {
	h, _ := ParseHyper("intervals:3", 6, Options{})
	got := strings.Join(ComputeHyperStats(h, 2, HyperStatsOptions{Balls: 100}).Lines(), "\n")
	for _, want := range []string{
		"intervals:3: n = 6 bins, s = 6 hyperedges, d = 2 bins probed per ball",
		"balancedness β = 1 (n · max over bins of P(bin probed)",
		"closed form; attained by bin 0, 1, 2, 3, 4, 5",
		"pairs sharing a hyperedge: 12 of 15 (80%), closed form",
		"pair visibility within one hypergraph: max over pairs of hyperedges containing both = 2 (bins 0, 1), closed form",
		"pair visibility over m = 100 balls, one hypergraph throughout: vis(i,j) = m·[i,j share a hyperedge], max = 100, exact",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	rng := kernels.NewPCG32(1, 1)
	got = strings.Join(ComputeHyperStats(hsRandomK(500, 300, 10, 3), 2, HyperStatsOptions{Balls: 500, Refresh: 50, ExactWork: 1, Samples: 1000, RNG: &rng}).Lines(), "\n")
	for _, want := range []string{"sampled (Σ|e|² = 3e+04 > 1 exact steps), 1000 uniform pairs", "≥ ", "a fresh hypergraph every R = 50 balls (--refresh; 10 hypergraphs)", "union bound"} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}
