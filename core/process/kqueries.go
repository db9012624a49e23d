package process

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/kernels"
)

// Two samples, k binary queries each (Los and Sauerwald, "Balanced
// allocations with incomplete information: the power of two queries",
// ITCS 2022, arXiv 2107.03916). A ball samples two bins uniformly at
// random, with replacement as in the authors' Two-Choice, and learns of
// each only the answers to k yes-or-no queries, "is the load at least the
// median?" or "is the load at least 100?" in the abstract's words; it goes
// to the bin the answers show to be less loaded. The authors' catalogue of
// processes (dimitrioslos.com, research/balls-and-bins/processes,
// "k-Threshold(f_1, …, f_k)", a Two-Sample process) fixes the form: k
// thresholds ∞ = f_0 > f_1 > … > f_k, functions of the history, each
// sampled bin placed by its answers, and the ball allocated to the bin
// "witnessed to be lesser loaded". balloc offers two families of queries:
//
//   - k-threshold --offsets g_1,…,g_k: "is your load at least t/n + g_j?"
//     for ball t+1 (t balls placed, --initial's included), thresholds
//     relative to the average as the authors' Relative-Threshold processes
//     take them. A load is an integer, so load ≥ t/n + g ⇔ load ≥
//     ⌈t/n + g⌉, computed exactly in rationals (Two-Thinning's Thinning).
//   - k-quantile --deltas δ_1,…,δ_k: "are you among the ⌈δ_j n⌉ heaviest
//     bins?", Quantile(δ)'s query (quantile.go) asked k times, with ties
//     in a uniformly random order as there (the authors' code samples a
//     position of the sorted load vector): a sampled bin takes one uniform
//     position among the bins at its load, which answers all k queries, so
//     the answers are those of a bin at a uniform position of the sorted
//     vector.
//
// A bin's level is its number of yes answers (the thresholds order the
// answers: a bin at or above f_j is at or above every lower one). Choices
// left open, balloc's:
//
//   - equal levels: the first sample. The two samples are exchangeable, so
//     this has the law of a uniformly random choice between them (and the
//     slow loop and the exact law say so), one draw fewer a ball.
//   - the values are a set: their order on the command line does not
//     matter, and a repeated value (a query that tells nothing new) is
//     refused.
//   - k is at most kernels.MaxQueries = 16; the paper's k is O(log log n).
//
// The paper's upper bounds (m/n + O(√log n) with k = 2, m/n +
// O(k(log n)^(1/k)) with k = O(log log n)) come from thresholds of its
// own choosing inside the proofs; the constants of those choices are not
// reproduced here, so balloc asks for the thresholds and has no default.
// With k = 1, k-quantile is Quantile(δ) in law (a heavy first sample
// passes the ball on, to a uniform second one; here to the second unless
// it is heavy too, the same law since a heavy pair goes to a uniform one
// of the two) and k-threshold is Two-Thinning with θ = g in law.
//
// Direct engine: kernels.KThreshold on stretches of constant limits, and
// kernels.KQuantile with K-Thinning's counts per load and boundaries
// (kernels.KThinningCounts). Histogram engine: ball by ball on ranks
// (kernels.LevelsKThreshold, kernels.LevelsKQuantile), exact. Fluid limit
// for k-quantile below.

// KQueries is k-Threshold, or k-Quantile's queries (KQuantile).
type KQueries struct {
	quantile bool
	Values   []float64 // offsets g_j (k-threshold) or fractions δ_j (k-quantile), as given
	k        []uint64  // k-quantile: ⌈δ_j n⌉
}

// KQuantile is k-Quantile and KThreshold k-Threshold: KQueries with each
// its fluid limit.
type (
	KQuantile  struct{ KQueries }
	KThreshold struct{ KQueries }
)

var kThresholdEntry = &Entry{
	Name: "k-threshold", Order: 64,
	Summary: "two uniform bins, each answering k queries \"load ≥ t/n + g_j?\"; the bin with fewer yes answers (ties: the first)",
	Source:  "Los, Sauerwald 2022 (ITCS: k-Threshold, two queries)",
	New:     func() Process { return &KThreshold{} },
}

var kQuantileEntry = &Entry{
	Name: "k-quantile", Order: 67,
	Summary: "two uniform bins, each answering k queries \"among the ⌈δ_j n⌉ heaviest?\"; the bin with fewer yes answers (ties: the first)",
	Source:  "Los, Sauerwald 2022 (ITCS: k-Quantile, two queries)",
	New:     func() Process { return &KQuantile{KQueries{quantile: true}} },
}

func init() {
	Register(kThresholdEntry)
	Register(kQuantileEntry)
}

func (p *KQueries) Entry() *Entry {
	if p.quantile {
		return kQuantileEntry
	}
	return kThresholdEntry
}

func (p *KQueries) Params() []*Param {
	if p.quantile {
		return []*Param{Custom("deltas", "k-quantile: δ_1,…,δ_k, distinct fractions in (0, 1]; query j asks a sampled bin whether it is among the ⌈δ_j n⌉ heaviest (ties in a random order)",
			p.parse("deltas", func(x float64) bool { return x > 0 && x <= 1 }, "fractions δ in (0, 1]"), p.text).
			Need("δ_1,…,δ_k: k distinct fractions in (0, 1], one per query")}
	}
	return []*Param{Custom("offsets", "k-threshold: g_1,…,g_k, distinct reals; query j asks a sampled bin whether its load is at least t/n + g_j",
		p.parse("offsets", func(x float64) bool { return math.Abs(x) <= 1e15 }, "reals g with |g| ≤ 1e15"), p.text).
		Need("g_1,…,g_k: k distinct reals, one per query; query j asks whether a load is at least t/n + g_j")}
}

// parse reads a comma-separated list of 1 to kernels.MaxQueries distinct
// values, each valid by ok.
func (p *KQueries) parse(flag string, ok func(float64) bool, want string) func(string) error {
	return func(v string) error {
		parts := strings.Split(v, ",")
		if len(parts) > kernels.MaxQueries {
			return fmt.Errorf("--%s %q: at most %d queries (k ≤ %d), got %d", flag, v, kernels.MaxQueries, kernels.MaxQueries, len(parts))
		}
		xs := make([]float64, 0, len(parts))
		for _, part := range parts {
			x, err := ParseReal(part)
			if err != nil || !ok(x) {
				return fmt.Errorf("--%s %q: want a comma-separated list of %s", flag, v, want)
			}
			if slices.Contains(xs, x) {
				return fmt.Errorf("--%s %q: %s appears twice; each query asks something new", flag, v, strings.TrimSpace(part))
			}
			xs = append(xs, x)
		}
		p.Values = xs
		return nil
	}
}

// text is the canonical value: the list as given.
func (p *KQueries) text() any {
	parts := make([]string, len(p.Values))
	for i, x := range p.Values {
		parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// Check computes k-quantile's ⌈δ_j n⌉ exactly (δ is a dyadic rational),
// and refuses two fractions with the same count at this n.
func (p *KQueries) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	if !p.quantile {
		return nil
	}
	p.k = make([]uint64, len(p.Values))
	for j, d := range p.Values {
		x := new(big.Rat).SetFloat64(d)
		x.Mul(x, new(big.Rat).SetInt(new(big.Int).SetUint64(su.Bins)))
		k := new(big.Int).Quo(x.Num(), x.Denom())
		if !x.IsInt() {
			k.Add(k, big.NewInt(1))
		}
		p.k[j] = k.Uint64()
		for i := range j {
			if p.k[i] == p.k[j] {
				return fmt.Errorf("--deltas %s: δ = %g and %g both ask for the %d heaviest of %d bins; give fractions that differ at this n",
					p.text(), p.Values[i], d, p.k[j], su.Bins)
			}
		}
	}
	return nil
}

type kThresholdLoop[L kernels.Load] struct {
	r      *kernels.PCG32
	thin   []thinCursor
	limits []uint64
	w0     uint64 // --initial's balls: the queries read the current average (W0 + t)/n
}

// Step runs the balls up to the first change of any query's limit.
func (l *kThresholdLoop[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	t += l.w0
	c = min(c, limitsAt(l.thin, l.limits, t)-t+1)
	return c, kernels.KThreshold(loads, l.r, c, l.limits, maxLoad)
}

type kQuantileLoop[L kernels.Load] struct {
	r *kernels.PCG32
	q *kernels.KThinningCounts
}

func (l kQuantileLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.KQuantile(loads, l.r, c, l.q, maxLoad)
}

// Start counts --initial's loads (the queries rank the current loads).
func (l kQuantileLoop[L]) Start(loads []L) { kernels.StartKThinning(l.q, loads) }

func kQueriesDirect[L kernels.Load](p *KQueries, tr *Trial) Stepper[L] {
	if p.quantile {
		return kQuantileLoop[L]{tr.Choices, kernels.NewKThinningCounts(tr.Bins, p.k)}
	}
	return &kThresholdLoop[L]{r: tr.Choices, thin: newThinCursors(tr.Bins, p.Values), limits: make([]uint64, len(p.Values)), w0: tr.Initial}
}

func (p *KQueries) Direct32(tr *Trial) Stepper[uint32] { return kQueriesDirect[uint32](p, tr) }
func (p *KQueries) Direct64(tr *Trial) Stepper[uint64] { return kQueriesDirect[uint64](p, tr) }

type kThresholdLevels struct {
	r      *kernels.PCG32
	thin   []thinCursor
	limits []uint64
	w0     uint64
}

func (l *kThresholdLevels) Step(lv *kernels.Levels, t, want uint64) uint64 {
	t += l.w0
	c := min(want, Chunk, limitsAt(l.thin, l.limits, t)-t+1)
	kernels.LevelsKThreshold(lv, l.r, c, l.limits)
	return c
}

type kQuantileLevels struct {
	r *kernels.PCG32
	k []uint64
}

func (l kQuantileLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	c := min(want, Chunk)
	kernels.LevelsKQuantile(lv, l.r, c, l.k)
	return c
}

func (p *KQueries) Levels(tr *Trial) LevelStepper {
	if p.quantile {
		return kQuantileLevels{tr.Choices, p.k}
	}
	return &kThresholdLevels{r: tr.Choices, thin: newThinCursors(tr.Bins, p.Values), limits: make([]uint64, len(p.Values)), w0: tr.Initial}
}

// HistogramSeconds: two ranks a ball and k comparisons each. Measured by
// BenchmarkKQueries (bench/kqueries_test.go) at two queries, n = 10^4 and
// 10^6: 12.5 ns a ball (k-threshold) and 11.4 (k-quantile).
func (p *KQueries) HistogramSeconds(_, m, _ uint64) float64 {
	if p.quantile {
		return float64(m) * 11.4e-9
	}
	return float64(m) * 12.5e-9
}

// DirectFactor: in the same run at n = 10^4, two queries took 1.9
// (k-threshold) and 4.4 (k-quantile: two positions drawn and the counts
// per load and two boundaries updated, every ball) times two-choice's
// 2.34 ns a ball.
func (p *KQueries) DirectFactor() float64 {
	if p.quantile {
		return 4.4
	}
	return 1.9
}

// Fluid (k-quantile): with s_i the fraction of bins at load ≥ i and
// positions u ∈ [0, 1) counted from the heaviest, a bin at position u has
// level ℓ(u) = #{j : u < δ_j}. The ball lands at position u through the
// first sample when the second's level is ≥ ℓ(u), and through the second
// when the first's is > ℓ(u): density f(u) = G(ℓ(u)) + G(ℓ(u) + 1), where
// G(ℓ) is the fraction of positions of level ≥ ℓ. The bins at load i − 1
// hold positions [s_i, s_{i−1}), so
//
//	ds_i/dt = F(s_{i−1}) − F(s_i),  F(x) = ∫_0^x f(u) du,
//
// F piecewise linear. With k = 1 it is Quantile(δ)'s limit (quantile.go).
// k-threshold's is theory.FluidKThreshold (KThreshold.Fluid).
func (p *KQuantile) Fluid(bins, balls uint64) (theory.Profile, error) {
	F := kQuantileF(p.Values)
	return theory.Solve(1, float64(balls)/float64(bins), theory.Step(2), nil,
		func(_ float64, w *theory.Window, ds [][]float64) {
			for k := range ds[0] {
				i := w.Base() + k
				ds[0][k] = F(w.At(0, i-1)) - F(w.At(0, i))
			}
		}), nil
}

// Fluid (k-threshold) is theory.FluidKThreshold: the same landing rule on
// levels of loads against ⌈τ + g_j⌉, which move with the time τ = t/n.
func (p *KThreshold) Fluid(bins, balls uint64) (theory.Profile, error) {
	return theory.FluidKThreshold(p.Values, float64(balls)/float64(bins)), nil
}

// kQuantileF is F of Fluid's comment for the fractions deltas.
func kQuantileF(deltas []float64) func(float64) float64 {
	cuts := append([]float64{0}, deltas...)
	slices.Sort(cuts)
	cuts = append(cuts, 1)
	k := len(deltas)
	// Segment s = [cuts[s], cuts[s+1]) has level k − s; G(ℓ) is the total
	// width of the segments of level ≥ ℓ, the first k − ℓ + 1 of them.
	G := func(l int) float64 {
		if l > k {
			return 0
		}
		return cuts[k-l+1]
	}
	dens := make([]float64, k+1)
	for s := range dens {
		dens[s] = G(k-s) + G(k-s+1)
	}
	return func(x float64) float64 {
		total := 0.0
		for s := range dens {
			lo, hi := cuts[s], cuts[s+1]
			if x <= lo {
				break
			}
			total += dens[s] * (min(x, hi) - lo)
		}
		return total
	}
}
