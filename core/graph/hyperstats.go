package graph

// Hypergraph statistics for the model of Greenhill, Mans and Pourmiri,
// "Balanced allocation on hypergraphs" (arXiv 2006.07588; J. Comput. Syst.
// Sci. 2023; APPROX/RANDOM 2020 as "Balanced allocation on dynamic
// hypergraphs"). Ball t picks a hyperedge B of H^(t) uniformly, then a set D
// of d random bins of B, and goes to a least loaded bin of D.
//
// What the sources we could reach say, word for word:
//
//   - JCSS abstract: "each edge B ∈ H^(t) contains at least a logarithmic
//     number of bins"; "The balancedness condition enforces that bins appear
//     almost uniformly within the hyperedges of H^(t), 1 ⩽ t ⩽ m, while the
//     pair visibility condition measures how frequently a pair of bins is
//     chosen during the allocation of balls."
//   - APPROX abstract: "We quantify the dynamicity of the model by introducing
//     the notion of pair visibility, which measures the number of rounds in
//     which a pair of bins appears within a (hyper)edge. We prove that if,
//     for some ε > 0, a dynamic hypergraph has pair visibility at most
//     n^{1-ε}, and some mild additional conditions hold, then ... maximum
//     load O(log_d log n)."
//   - scispace.com's summary of the paper: "Pair visibility, denoted as
//     vis(i, j), refers to the number of rounds t in which a pair of distinct
//     vertices {i, j} is contained in an edge of the t-th hypergraph, H(t)."
//
// The paper's own numbered definitions (the body of the ar5iv page) were out
// of reach, so two things here are reconstructions, and are named so in the
// report:
//
//   - Balancedness: Godfrey's condition (SODA 2008), which the paper says it
//     follows: H with s hyperedges is β-balanced when, for every bin i,
//     P(i) = (1/s)·Σ_{B∋i} 1/|B| ⩽ β/n, the chance that bin i is the one
//     drawn by "a uniform hyperedge, then a uniform bin of it". We report the
//     least such β, n·max_i P(i).
//   - The visibility of a sequence H^(1..m) is max over pairs i ≠ j of
//     vis(i, j) (the abstract's "has pair visibility at most n^{1-ε}" bounds
//     a single number per sequence).

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/balloc/balloc/kernels"
)

// Defaults for HyperStatsOptions' zero values.
const (
	// DefaultHyperExactWork is the most Σ_e |e|² steps the exact pair count
	// may take: it visits every (bin, hyperedge containing it, other bin).
	DefaultHyperExactWork = 1e8
	// DefaultHyperSamples is how many pairs each sampled estimate draws.
	DefaultHyperSamples = 1 << 16
	// DefaultHyperIndexBytes caps the bin→hyperedge index the pair
	// statistics need (8 bytes a bin, 4 a membership).
	DefaultHyperIndexBytes = 4 << 30
	// DefaultHyperListBins is how many bins attaining β the report names.
	DefaultHyperListBins = 8
	// HyperVisConfidence is the confidence of the union bound on the
	// largest visibility of a redrawn hypergraph.
	HyperVisConfidence = 0.99
)

// HyperStatsOptions says how far ComputeHyperStats goes. The zero value
// reports one static hypergraph per round, exact where the work allows.
type HyperStatsOptions struct {
	// Balls is m, the number of balls of the run (0: per-round figures only).
	Balls uint64
	// Refresh is R, balloc's --refresh: with random:s,k, every run of R
	// balls (the first included) gets a fresh hypergraph of s independent
	// uniform k-subsets, ⌈m/R⌉ of them in all, and the per-hypergraph figures
	// describe h, one such draw. 0, or a family that is not random, is one
	// hypergraph for all m balls.
	Refresh uint64
	// ExactWork bounds Σ_e |e|² for the exact pair count; beyond it pairs are
	// sampled. 0 is DefaultHyperExactWork.
	ExactWork float64
	// Samples is how many pairs each sampled estimate draws; 0 is
	// DefaultHyperSamples.
	Samples uint64
	// MaxIndexBytes caps the memory of the pair statistics; beyond it they
	// are skipped. 0 is DefaultHyperIndexBytes.
	MaxIndexBytes uint64
	// ListBins is how many bins attaining β to name; 0 is
	// DefaultHyperListBins.
	ListBins int
	// RNG is the stream sampling draws from, advanced by the draws. nil is
	// a zero-value PCG32, so a report is reproducible either way.
	RNG *kernels.PCG32

	// forceCompact makes tests take the relabelled (sparse bins) path on a
	// small hypergraph.
	forceCompact bool
}

// HyperStats describes a hypergraph as the allocation process sees it.
type HyperStats struct {
	Spec   string
	Family HFamily
	N      uint64 // bins
	S      uint64 // hyperedges
	D      int    // bins probed per ball

	MinSize, MaxSize uint64
	MeanSize         float64
	SumSize          uint64 // Σ_e |e|, the memberships
	// LogN is ln n; the paper asks every hyperedge to have "at least a
	// logarithmic number of bins".
	LogN float64

	MinDegree, MaxDegree uint64 // hyperedges containing a bin
	MeanDegree           float64

	// Beta is n·max_i P(i), P(i) = (1/s)·Σ_{B∋i} 1/|B|: the least β for
	// which H is β-balanced (reconstructed from Godfrey's condition).
	Beta float64
	// BetaMin is n·min_i P(i); 0 when some bin is in no hyperedge.
	BetaMin float64
	// BetaBins lists the first bins (ascending) attaining Beta;
	// BetaBinCount is how many do.
	BetaBins     []uint64
	BetaBinCount uint64
	// BetaD is n·max_i P(i ∈ D)/d, the same figure for the d-choice probe
	// (P(i ∈ D) = (1/s)·Σ_{B∋i} min(d,|B|)/|B|). It equals Beta when every
	// hyperedge has at least d bins.
	BetaD float64
	// BetaMethod says how Beta was found ("closed form" or "exact").
	BetaMethod string

	Pairs HyperPairStats
	Vis   HyperVisibility
}

// HyperPairStats is about pairs of distinct bins within one hypergraph. The
// codegree of a pair is the number of hyperedges holding both bins.
type HyperPairStats struct {
	// Skipped says why there are no pair statistics ("" when there are).
	Skipped string
	// Exact is false when sampled; Method says how.
	Exact  bool
	Method string
	// PairSamples and ProbeSamples count the draws behind the sampled
	// figures: uniform pairs of bins, and pairs a ball probes.
	PairSamples, ProbeSamples uint64

	TotalPairs float64 // n(n−1)/2
	// Covered counts the pairs that share a hyperedge (exact only);
	// CoveredFrac is Covered/TotalPairs, with CoveredSE its standard error
	// when sampled.
	Covered     uint64
	CoveredFrac float64
	CoveredSE   float64

	// MeanCodegree is the codegree averaged over all pairs, always exact:
	// Σ_e C(|e|,2) / C(n,2).
	MeanCodegree float64
	// MaxCodegree is the largest codegree, at pair MaxCodegreePair. When
	// sampled it is the largest seen among probed pairs: a lower bound.
	MaxCodegree     uint64
	MaxCodegreePair [2]uint64
	MaxIsLowerBound bool

	// ProbedCodegree is the mean codegree of the pair a ball draws as "a
	// uniform hyperedge with at least 2 bins, then 2 distinct positions of
	// it", with ProbedSE its standard error when sampled.
	ProbedCodegree float64
	ProbedSE       float64

	// MaxProbeD is max over pairs of P({i,j} ⊆ D) for one ball, at pair
	// MaxProbeDPair (exact only; 0 when sampled): a probability-weighted
	// visibility per round, balloc's, not the paper's.
	MaxProbeD     float64
	MaxProbeDPair [2]uint64
}

// HyperVisibility is the paper's pair visibility over the run's m balls.
type HyperVisibility struct {
	// PerRound is max over pairs of [pair shares a hyperedge of H^(t)], the
	// contribution of one round: 1 when some hyperedge has two bins.
	PerRound uint64

	Balls   uint64 // m
	Refresh uint64 // R; 0 for one hypergraph throughout
	// Dynamic is true when a fresh random:s,k hypergraph is drawn every R
	// balls.
	Dynamic bool

	// Static (Dynamic false): vis(i,j) = m·[i,j share a hyperedge], so the
	// sequence's visibility is Max = m·PerRound, exactly.
	Max uint64

	// Dynamic: Epochs = ⌈m/R⌉ hypergraphs; a given pair shares a hyperedge
	// of a fresh one with probability PCover = 1 − (1 − k(k−1)/(n(n−1)))^s,
	// so E[vis(i,j)] = Mean = m·PCover for every pair, and with probability
	// at least HyperVisConfidence every pair has vis(i,j) ⩽ Bound (a union
	// bound over pairs on R·Binomial(Epochs, PCover), capped at m).
	Epochs uint64
	PCover float64
	Mean   float64
	Bound  float64

	// Epsilon is the largest ε with max vis ⩽ n^{1−ε} (Max when static,
	// Bound when dynamic): the paper's condition asks for some ε > 0.
	Epsilon float64
}

// ComputeHyperStats measures h for a process probing d bins per ball. The
// per-bin figures are exact (O(Σ|e|) work, closed forms for intervals); pair
// figures are exact when Σ_e |e|² ⩽ opt.ExactWork and sampled otherwise.
// Hyperedges are taken as listed: a bin listed twice in one hyperedge counts
// twice, as the allocation loops index it twice.
func ComputeHyperStats(h *Hypergraph, d int, opt HyperStatsOptions) HyperStats {
	if d < 1 {
		panic("graph: ComputeHyperStats needs d ≥ 1")
	}
	if opt.ExactWork <= 0 {
		opt.ExactWork = DefaultHyperExactWork
	}
	if opt.Samples == 0 {
		opt.Samples = DefaultHyperSamples
	}
	if opt.MaxIndexBytes == 0 {
		opt.MaxIndexBytes = DefaultHyperIndexBytes
	}
	if opt.ListBins <= 0 {
		opt.ListBins = DefaultHyperListBins
	}
	if opt.RNG == nil {
		opt.RNG = new(kernels.PCG32)
	}
	st := HyperStats{Spec: h.Spec, Family: h.Family, N: h.N, S: h.S, D: d}
	if h.N > 0 {
		st.LogN = math.Log(float64(h.N))
	}
	st.Pairs.TotalPairs = float64(h.N) * float64(h.N-min(h.N, 1)) / 2
	if h.Family == Intervals {
		hyperIntervalStats(&st, h, d, opt)
	} else {
		hyperGenericStats(&st, h, d, opt)
	}
	hyperVisFill(&st, h, opt)
	return st
}

// hsChoose2 is C(x,2) as a float.
func hsChoose2(x uint64) float64 { return float64(x) * (float64(x) - 1) / 2 }

// hsProbeD is P({i,j} ⊆ D) given that both lie in a hyperedge of size sz that
// the ball chose: C(min(d,sz),2)/C(sz,2).
func hsProbeD(d int, sz uint64) float64 {
	return hsChoose2(min(uint64(d), sz)) / hsChoose2(sz)
}

// hyperIntervalStats fills st for the cyclic windows B_e = {e, ..., e+k−1 mod n},
// e < n, in closed form. Every bin lies in k windows of k bins, so P(i) =
// 1/n and β = 1. The pair at forward distance δ lies in the windows holding
// the arc from i to i+δ (δ+1 bins) or the arc back (n−δ+1 bins): codegree
// c(δ) = (k−δ)⁺ + (k−n+δ)⁺, k−1 at δ = 1 when k < n, and n for every pair
// when k = n.
func hyperIntervalStats(st *HyperStats, h *Hypergraph, d int, opt HyperStatsOptions) {
	n, k := h.N, h.K
	st.MinSize, st.MaxSize, st.MeanSize, st.SumSize = k, k, float64(k), n*k
	st.MinDegree, st.MaxDegree, st.MeanDegree = k, k, float64(k)
	st.Beta, st.BetaMin = 1, 1
	st.BetaBinCount = n
	for i := uint64(0); i < n && len(st.BetaBins) < opt.ListBins; i++ {
		st.BetaBins = append(st.BetaBins, i)
	}
	st.BetaD = float64(min(uint64(d), k)) / float64(d)
	st.BetaMethod = "closed form"

	p := &st.Pairs
	p.Exact, p.Method = true, "closed form"
	if n < 2 {
		return
	}
	p.MeanCodegree = float64(n) * hsChoose2(k) / p.TotalPairs
	if k < 2 {
		return
	}
	// Covered: pairs at cyclic distance ⩽ k−1 (all of them once k−1 ⩾ ⌊n/2⌋);
	// there are n pairs at each distance below n/2.
	if 2*(k-1) < n {
		p.Covered = n * (k - 1)
	} else {
		p.Covered = n * (n - 1) / 2
	}
	p.CoveredFrac = float64(p.Covered) / p.TotalPairs
	if k == n {
		p.MaxCodegree = n
	} else {
		p.MaxCodegree = k - 1
	}
	p.MaxCodegreePair = [2]uint64{0, 1}
	// A ball draws pair {i,j} with probability c_ij/(n·C(k,2)), so the mean
	// codegree of a probed pair is Σc²/Σc over δ = 1..n−1: Σc = k(k−1) and
	// Σc² = 2·Σ_{j<k} j² + 2·Σ (k−δ)(k−n+δ) over the δ where both arcs fit,
	// which with M = 2k−n is (M−1)M(M+1)/3 when M ⩾ 2.
	kf := float64(k)
	sq := (kf - 1) * kf * (2*kf - 1) / 3
	if m := 2*kf - float64(n); m >= 2 {
		sq += (m - 1) * m * (m + 1) / 3
	}
	p.ProbedCodegree = sq / (kf * (kf - 1))
	p.MaxProbeD = float64(p.MaxCodegree) * hsProbeD(d, k) / float64(n)
	p.MaxProbeDPair = p.MaxCodegreePair
}

// hyperIndex is h's memberships as dense bin ids 0..U−1: the bins
// themselves, or, when most bins are in no hyperedge, the ranks of the bins
// that are (so that memory follows Σ|e|, not n).
type hyperIndex struct {
	h       *Hypergraph
	members []uint32 // h.Members, or their ranks in used
	used    []uint32 // sorted bins in some hyperedge; nil when ids are bins
	u       uint64   // ids
	inc     []uint32 // hyperedges holding each id, ascending, CSR by incOff
	incOff  []uint64
}

func (ix *hyperIndex) edge(e uint64) []uint32 {
	if k := ix.h.K; k > 0 {
		return ix.members[e*k : (e+1)*k]
	}
	return ix.members[ix.h.Offsets[e]:ix.h.Offsets[e+1]]
}

// bin is the bin an id stands for.
func (ix *hyperIndex) bin(id uint32) uint64 {
	if ix.used == nil {
		return uint64(id)
	}
	return uint64(ix.used[id])
}

// id is a bin's id, false when the bin is in no hyperedge.
func (ix *hyperIndex) id(bin uint64) (uint32, bool) {
	if ix.used == nil {
		return uint32(bin), true
	}
	i, ok := slices.BinarySearch(ix.used, uint32(bin))
	return uint32(i), ok
}

// codegree is |inc(a) ∩ inc(b)| by a merge of the sorted lists.
func (ix *hyperIndex) codegree(a, b uint32) uint64 {
	x := ix.inc[ix.incOff[a]:ix.incOff[a+1]]
	y := ix.inc[ix.incOff[b]:ix.incOff[b+1]]
	var c uint64
	for len(x) > 0 && len(y) > 0 {
		switch {
		case x[0] < y[0]:
			x = x[1:]
		case x[0] > y[0]:
			y = y[1:]
		default:
			c++
			x, y = x[1:], y[1:]
		}
	}
	return c
}

// hyperGenericStats fills st for a hypergraph stored as member lists.
func hyperGenericStats(st *HyperStats, h *Hypergraph, d int, opt HyperStatsOptions) {
	ix := &hyperIndex{h: h, members: h.Members, u: h.N}
	st.MinSize = math.MaxUint64
	var sumSq, sumC2 float64
	var multi uint64 // hyperedges with at least 2 bins
	for e := range h.S {
		sz := h.Size(e)
		st.MinSize = min(st.MinSize, sz)
		st.MaxSize = max(st.MaxSize, sz)
		st.SumSize += sz
		sumSq += float64(sz) * float64(sz)
		sumC2 += hsChoose2(sz)
		if sz >= 2 {
			multi++
		}
	}
	if h.S == 0 {
		st.MinSize = 0
	} else {
		st.MeanSize = float64(st.SumSize) / float64(h.S)
	}
	if h.N > 0 {
		st.MeanDegree = float64(st.SumSize) / float64(h.N)
	}
	if opt.forceCompact || h.N > max(1<<22, st.SumSize) {
		ix.used = slices.Clone(h.Members[:st.SumSize])
		slices.Sort(ix.used)
		ix.used = slices.Compact(ix.used)
		ix.members = make([]uint32, st.SumSize)
		for i, b := range h.Members[:st.SumSize] {
			r, _ := slices.BinarySearch(ix.used, b)
			ix.members[i] = uint32(r)
		}
		ix.u = uint64(len(ix.used))
	}
	deg := hyperBalancedness(st, ix, d, opt)

	p := &st.Pairs
	if p.TotalPairs > 0 {
		p.MeanCodegree = sumC2 / p.TotalPairs
	}
	if multi == 0 {
		p.Exact, p.Method = true, "exact: no hyperedge has 2 bins"
		return
	}
	// Index: 8 bytes an id (offsets), 4 a membership; the exact count adds
	// 20 bytes an id of scratch.
	index := 8*float64(ix.u+1) + 4*float64(st.SumSize)
	switch {
	case h.S > math.MaxUint32:
		p.Skipped = fmt.Sprintf("more than %d hyperedges", uint64(math.MaxUint32))
		return
	case index > float64(opt.MaxIndexBytes):
		p.Skipped = fmt.Sprintf("the bin→hyperedge index would take %.3g bytes, more than %d", index, opt.MaxIndexBytes)
		return
	}
	ix.inc = make([]uint32, st.SumSize)
	ix.incOff = make([]uint64, ix.u+1)
	for id := range ix.u {
		ix.incOff[id+1] = ix.incOff[id] + deg[id]
	}
	next := slices.Clone(ix.incOff[:ix.u])
	for e := range h.S {
		for _, a := range ix.edge(e) {
			ix.inc[next[a]] = uint32(e)
			next[a]++
		}
	}
	if sumSq <= opt.ExactWork && index+20*float64(ix.u) <= float64(opt.MaxIndexBytes) {
		hyperExactPairs(p, ix, d)
	} else {
		hyperSampledPairs(p, ix, opt)
		p.Method = fmt.Sprintf("sampled (Σ|e|² = %.3g > %.3g exact steps)", sumSq, opt.ExactWork)
	}
}

// hyperBalancedness fills the per-bin figures and returns each id's degree.
func hyperBalancedness(st *HyperStats, ix *hyperIndex, d int, opt HyperStatsOptions) []uint64 {
	h := ix.h
	deg := make([]uint64, ix.u)
	// Uniform sizes: P(i) = deg_i/(s·k), compared exactly as integers.
	// Otherwise w_i = Σ_{B∋i} 1/|B| in floating point.
	var w, wd []float64
	if h.K == 0 {
		w = make([]float64, ix.u)
		if st.MinSize < uint64(d) {
			wd = make([]float64, ix.u)
		}
	}
	for e := range h.S {
		mem := ix.edge(e)
		inv := 1 / float64(len(mem))
		for _, a := range mem {
			deg[a]++
			if w != nil {
				w[a] += inv
			}
			if wd != nil {
				wd[a] += float64(min(d, len(mem))) * inv
			}
		}
	}
	st.BetaMethod = "exact"
	if h.S == 0 || ix.u == 0 {
		return deg
	}
	st.MinDegree = math.MaxUint64
	for _, x := range deg {
		st.MinDegree = min(st.MinDegree, x)
		st.MaxDegree = max(st.MaxDegree, x)
	}
	if ix.u < h.N {
		st.MinDegree = 0 // bins outside every hyperedge
	}
	nf, sf := float64(h.N), float64(h.S)
	if w == nil {
		kf := float64(h.K)
		st.Beta = nf * float64(st.MaxDegree) / (sf * kf)
		st.BetaMin = nf * float64(st.MinDegree) / (sf * kf)
		st.BetaD = st.Beta * float64(min(uint64(d), h.K)) / float64(d)
		for id, x := range deg {
			if x == st.MaxDegree {
				st.BetaBinCount++
				if len(st.BetaBins) < opt.ListBins {
					st.BetaBins = append(st.BetaBins, ix.bin(uint32(id)))
				}
			}
		}
		return deg
	}
	wmax, wmin := 0.0, math.Inf(1)
	for _, x := range w {
		wmax = max(wmax, x)
		wmin = min(wmin, x)
	}
	if ix.u < h.N {
		wmin = 0
	}
	st.Beta, st.BetaMin = nf*wmax/sf, nf*wmin/sf
	// Sums of the same reciprocals in another order may differ in the last
	// bits; a bin within 1e-12 of the largest attains it.
	for id, x := range w {
		if x >= wmax*(1-1e-12) {
			st.BetaBinCount++
			if len(st.BetaBins) < opt.ListBins {
				st.BetaBins = append(st.BetaBins, ix.bin(uint32(id)))
			}
		}
	}
	if wd == nil {
		st.BetaD = st.Beta
	} else {
		st.BetaD = nf * slices.Max(wd) / sf / float64(d)
	}
	return deg
}

// hsPairLess orders pairs lexicographically, for ties.
func hsPairLess(a, b [2]uint64) bool {
	return a[0] < b[0] || a[0] == b[0] && a[1] < b[1]
}

// hyperExactPairs visits, for every id a, each hyperedge holding a and each id b
// > a in it, counting codegrees in dense scratch reset through the touched
// list: Σ_e |e|² steps.
func hyperExactPairs(p *HyperPairStats, ix *hyperIndex, d int) {
	p.Exact, p.Method = true, "exact"
	cnt := make([]uint32, ix.u)
	wp := make([]float64, ix.u) // Σ 1/C(|e|,2): probe weight of the pair
	wd := make([]float64, ix.u) // Σ C(min(d,|e|),2)/C(|e|,2)
	var touched []uint32
	var sumP, sumCP float64
	sf := float64(ix.h.S)
	for a := range uint32(ix.u) {
		touched = touched[:0]
		for _, e := range ix.inc[ix.incOff[a]:ix.incOff[a+1]] {
			mem := ix.edge(uint64(e))
			sz := uint64(len(mem))
			if sz < 2 {
				continue
			}
			inv := 1 / hsChoose2(sz)
			pd := hsProbeD(d, sz)
			for _, b := range mem {
				if b <= a {
					continue
				}
				if cnt[b] == 0 {
					touched = append(touched, b)
				}
				cnt[b]++
				wp[b] += inv
				wd[b] += pd
			}
		}
		for _, b := range touched {
			c := uint64(cnt[b])
			pair := [2]uint64{ix.bin(a), ix.bin(b)}
			p.Covered++
			sumP += wp[b]
			sumCP += float64(c) * wp[b]
			if c > p.MaxCodegree || c == p.MaxCodegree && hsPairLess(pair, p.MaxCodegreePair) {
				p.MaxCodegree, p.MaxCodegreePair = c, pair
			}
			if v := wd[b] / sf; v > p.MaxProbeD || v == p.MaxProbeD && hsPairLess(pair, p.MaxProbeDPair) {
				p.MaxProbeD, p.MaxProbeDPair = v, pair
			}
			cnt[b], wp[b], wd[b] = 0, 0, 0
		}
	}
	p.CoveredFrac = float64(p.Covered) / p.TotalPairs
	if sumP > 0 {
		p.ProbedCodegree = sumCP / sumP
	}
}

// hyperSampledPairs estimates from opt.Samples uniform pairs of bins (is the pair
// covered?) and opt.Samples probed pairs (their codegree), each codegree by
// intersecting two hyperedge lists.
func hyperSampledPairs(p *HyperPairStats, ix *hyperIndex, opt HyperStatsOptions) {
	r := opt.RNG
	n := ix.h.N
	var hits uint64
	for range opt.Samples {
		i := r.Bounded64(n)
		j := r.Bounded64(n - 1)
		if j >= i {
			j++
		}
		a, ok1 := ix.id(i)
		b, ok2 := ix.id(j)
		if ok1 && ok2 && ix.codegree(a, b) > 0 {
			hits++
		}
	}
	p.PairSamples = opt.Samples
	f := float64(hits) / float64(opt.Samples)
	p.CoveredFrac = f
	p.CoveredSE = math.Sqrt(f * (1 - f) / float64(opt.Samples))

	// A probed pair: a uniform hyperedge among those with 2 bins or more
	// (rejection), then 2 distinct positions; a bin listed twice is drawn
	// again, as the exact count leaves such pairs out. The attempts are
	// capped for hypergraphs whose only pairs repeat one bin.
	var sum, sumSq float64
	for tries := uint64(0); p.ProbeSamples < opt.Samples && tries < 64*opt.Samples; tries++ {
		mem := ix.edge(r.Bounded64(ix.h.S))
		sz := uint64(len(mem))
		if sz < 2 {
			continue
		}
		x := r.Bounded64(sz)
		y := r.Bounded64(sz - 1)
		if y >= x {
			y++
		}
		a, b := mem[x], mem[y]
		if a == b {
			continue
		}
		if a > b {
			a, b = b, a
		}
		c := ix.codegree(a, b)
		p.ProbeSamples++
		sum += float64(c)
		sumSq += float64(c) * float64(c)
		pair := [2]uint64{ix.bin(a), ix.bin(b)}
		if c > p.MaxCodegree || c == p.MaxCodegree && hsPairLess(pair, p.MaxCodegreePair) {
			p.MaxCodegree, p.MaxCodegreePair = c, pair
		}
	}
	p.MaxIsLowerBound = true
	if p.ProbeSamples == 0 {
		return
	}
	m := float64(p.ProbeSamples)
	p.ProbedCodegree = sum / m
	if m > 1 {
		v := (sumSq - sum*sum/m) / (m - 1)
		p.ProbedSE = math.Sqrt(max(v, 0) / m)
	}
}

// hyperVisFill fills st.Vis from the pair figures and the run's m and R.
func hyperVisFill(st *HyperStats, h *Hypergraph, opt HyperStatsOptions) {
	v := &st.Vis
	v.Balls, v.Refresh = opt.Balls, opt.Refresh
	if st.Pairs.Skipped == "" && st.Pairs.MaxCodegree > 0 || st.Pairs.Skipped != "" && st.MaxSize >= 2 {
		v.PerRound = 1
	}
	v.Dynamic = h.Family == RandomK && opt.Refresh > 0 && opt.Balls > opt.Refresh
	if opt.Balls == 0 {
		return
	}
	var worst float64
	if !v.Dynamic {
		v.Max = opt.Balls * v.PerRound
		worst = float64(v.Max)
	} else {
		n, k := float64(h.N), float64(h.K)
		x := k * (k - 1) / (n * (n - 1)) // a given pair inside one random k-subset
		v.PCover = -math.Expm1(float64(h.S) * math.Log1p(-x))
		v.Epochs = (opt.Balls + opt.Refresh - 1) / opt.Refresh
		v.Mean = float64(opt.Balls) * v.PCover
		q := hsUnionQuantile(v.Epochs, v.PCover, st.Pairs.TotalPairs, 1-HyperVisConfidence)
		v.Bound = min(float64(q)*float64(opt.Refresh), float64(opt.Balls))
		worst = v.Bound
	}
	if worst >= 1 && st.N >= 2 {
		v.Epsilon = 1 - math.Log(worst)/math.Log(float64(st.N))
	}
}

// hsUnionQuantile is the least q with pairs·P(X > q) ⩽ delta for X ~
// Binomial(e, p): with probability ⩾ 1−delta no pair is covered in more than
// q of e independent draws. It sums the upper tail in log space downward from
// a Bernstein point q0, beyond which the tail is below delta/pairs·1e−6.
func hsUnionQuantile(e uint64, p, pairs, delta float64) uint64 {
	switch {
	case p <= 0 || pairs <= 0:
		return 0
	case p >= 1:
		return e
	}
	t := delta / pairs
	ef := float64(e)
	mu, v := ef*p, ef*p*(1-p)
	l := math.Log(1e6 / t)
	x := l/3 + math.Sqrt(l*l/9+2*v*l)
	q := e
	if q0 := math.Ceil(mu + x); q0 < ef {
		q = uint64(q0)
	}
	lgE, _ := math.Lgamma(ef + 1)
	logPMF := func(j uint64) float64 {
		a, _ := math.Lgamma(float64(j) + 1)
		b, _ := math.Lgamma(ef - float64(j) + 1)
		return lgE - a - b + float64(j)*math.Log(p) + (ef-float64(j))*math.Log1p(-p)
	}
	logT := math.Log(t)
	tail := math.Inf(-1) // log P(X > q)
	lp := logPMF(q)
	ratio := math.Log((1 - p) / p)
	for q > 0 {
		// P(X > q−1) = P(X > q) + P(X = q).
		next := hsLogAdd(tail, lp)
		if next > logT {
			return q
		}
		tail = next
		// pmf(q−1) = pmf(q)·q/(e−q+1)·(1−p)/p.
		lp += math.Log(float64(q)/(ef-float64(q)+1)) + ratio
		q--
	}
	return 0
}

func hsLogAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// hsFmt formats a real for the report.
func hsFmt(x float64) string { return fmt.Sprintf("%.4g", x) }

// Lines is the report of `balloc hypergraph-stats`, one fact a line.
func (s HyperStats) Lines() []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	name := s.Spec
	if name == "" {
		name = "hypergraph"
	}
	add("%s: n = %d bins, s = %d hyperedges, d = %d bins probed per ball", name, s.N, s.S, s.D)
	okLog := "no"
	if float64(s.MinSize) >= s.LogN {
		okLog = "yes"
	}
	add("hyperedge sizes: min %d, mean %s, max %d; ln n = %s, so every hyperedge has ≥ ln n bins: %s (the paper asks for a logarithmic number)",
		s.MinSize, hsFmt(s.MeanSize), s.MaxSize, hsFmt(s.LogN), okLog)
	if s.MinSize < uint64(s.D) {
		add("warning: some hyperedge has fewer than d = %d bins", s.D)
	}
	add("bin degree (hyperedges holding a bin): min %d, mean %s, max %d", s.MinDegree, hsFmt(s.MeanDegree), s.MaxDegree)
	bins := make([]string, len(s.BetaBins))
	for i, b := range s.BetaBins {
		bins[i] = fmt.Sprint(b)
	}
	more := ""
	if s.BetaBinCount > uint64(len(s.BetaBins)) {
		more = fmt.Sprintf(", … (%d bins in all)", s.BetaBinCount)
	}
	add("balancedness β = %s (n · max over bins of P(bin probed): a uniform hyperedge, then a uniform bin of it; Godfrey's condition, reconstructed), %s; attained by bin %s%s",
		hsFmt(s.Beta), s.BetaMethod, strings.Join(bins, ", "), more)
	add("least n·P(bin probed) = %s; with d = %d, n · max P(bin ∈ D) / d = %s", hsFmt(s.BetaMin), s.D, hsFmt(s.BetaD))

	p := s.Pairs
	if p.Skipped != "" {
		add("pair statistics skipped: %s", p.Skipped)
	} else {
		how := p.Method
		if p.Exact {
			add("pairs sharing a hyperedge: %d of %s (%s), %s", p.Covered, hsFmt(p.TotalPairs), hsPct(p.CoveredFrac), how)
		} else {
			add("pairs sharing a hyperedge: %s ± %s (95%% CI) of %s, %s, %d uniform pairs", hsPct(p.CoveredFrac), hsPct(1.96*p.CoveredSE), hsFmt(p.TotalPairs), how, p.PairSamples)
		}
		maxs := fmt.Sprintf("= %d (bins %d, %d)", p.MaxCodegree, p.MaxCodegreePair[0], p.MaxCodegreePair[1])
		if p.MaxIsLowerBound {
			maxs = fmt.Sprintf("≥ %d (largest among %d probed pairs: bins %d, %d)", p.MaxCodegree, p.ProbeSamples, p.MaxCodegreePair[0], p.MaxCodegreePair[1])
		}
		add("pair visibility within one hypergraph: max over pairs of hyperedges containing both %s, %s", maxs, how)
		add("hyperedges containing both bins: mean %s over all pairs (exact), mean %s%s over the pairs a ball probes",
			hsFmt(p.MeanCodegree), hsFmt(p.ProbedCodegree), hsSE(p.ProbedSE, p.Exact))
		if p.Exact {
			add("max over pairs of P(both bins in D) for one ball = %s (bins %d, %d), exact", hsFmt(p.MaxProbeD), p.MaxProbeDPair[0], p.MaxProbeDPair[1])
		}
	}

	v := s.Vis
	add("pair visibility per round: %d (max over pairs of [the pair shares a hyperedge of H^(t)])", v.PerRound)
	switch {
	case v.Balls == 0:
	case !v.Dynamic:
		add("pair visibility over m = %d balls, one hypergraph throughout: vis(i,j) = m·[i,j share a hyperedge], max = %d, exact; %s",
			v.Balls, v.Max, hsEps(v.Epsilon))
	default:
		add("pair visibility over m = %d balls, a fresh hypergraph every R = %d balls (--refresh; %d hypergraphs): E[vis(i,j)] = m·P(pair covered) = %d·%s = %s for every pair",
			v.Balls, v.Refresh, v.Epochs, v.Balls, hsFmt(v.PCover), hsFmt(v.Mean))
		add("max over pairs of vis(i,j) ≤ %s with probability ≥ %s (union bound over pairs on R·Binomial(%d, %s)); %s",
			hsFmt(v.Bound), hsFmt(HyperVisConfidence), v.Epochs, hsFmt(v.PCover), hsEps(v.Epsilon))
	}
	return out
}

// hsEps sets the visibility against the paper's condition vis ⩽ n^{1−ε}
// for some ε > 0.
func hsEps(eps float64) string {
	if eps <= 0 {
		return "more than n^(1−ε) for every ε > 0: the paper's condition fails"
	}
	return "≤ n^(1−ε) for ε ≤ " + hsFmt(eps)
}

func hsPct(x float64) string { return fmt.Sprintf("%.4g%%", 100*x) }

func hsSE(se float64, exact bool) string {
	if exact {
		return " (exact)"
	}
	return " ± " + hsFmt(1.96*se) + " (95% CI)" // a standard error of many samples: a normal interval, as every ± of balloc
}
