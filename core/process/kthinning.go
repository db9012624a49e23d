package process

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/balloc/balloc/core/optimal"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// K-Thinning (Feldheim and Gurel-Gurevich, "The power of thinning in
// balanced allocation", 2021, and Los, Sauerwald and Sylvester, SODA 2022,
// for K = 2; the K-sample rule as A. Vari-Kakas, "Reinforcement Learning
// Meets Balls into Bins", Cambridge Part II project, writes it: github
// varikakasandor/dissertation-balls-into-bins, k_thinning/environment.py and
// strategies/): a ball takes up to K uniform samples, with
// replacement; sample j < K is kept when it passes test j, and the K-th
// sample is kept whatever its load. Two families of tests:
//
//   - --thresholds θ1,…,θ(K−1): sample j passes when its load is below
//     t/n + θj, ball t+1 seeing t balls placed — Two-Thinning's comparison
//     (twothinning.go), computed exactly by its Thinning for each θj, so
//     K = 2 with θ1 = θ is two-thinning --threshold θ, and runs its loops:
//     the same draws, the same loads for the same seed.
//   - --thresholds quantile: sample j passes when its load is at most the
//     load at position ⌊n(1 − 2^(−1/c))⌋ (from 0) of the loads sorted in
//     ascending order, c = K − j + 1 the choices left with this sample
//     (the dissertation's QuantileStrategy / MeanThinningStrategy:
//     loads[bin] <= sorted(loads)[floor(n * (1 - 2 ** (-1 / choices_left)))],
//     choices_left = K for the first sample and one less after each
//     rejection). Every bin at the boundary load passes (≤). The position
//     is computed exactly in integers (kThinningIndex), where the authors'
//     code uses floating point; the two agree but where n(1 − 2^(−1/c)) is
//     within rounding of an integer.
//
// Direct engine: kernels.KThinning on stretches of constant limits, and
// kernels.KThinningQuantile with the counts of bins per load beside the
// loads (kernels.KThinningCounts, Quantile's machinery), so each test is
// O(1). Histogram engine: ball by ball on ranks (kernels.LevelsKThinning,
// kernels.LevelsKThinningQuantile), exact. Fluid limit with thresholds:
// Two-Thinning's generalised (theory.FluidKThinning). With quantile
// thresholds there is none here: a bin is kept exactly when the fraction of
// bins at or above its load is at least 2^(−1/c), a right-hand side that
// jumps as a level's fraction crosses that value, and the boundary level
// then slides along it (a Filippov system, not an ODE that RK4 solves).
//
// --batch b (b-Batch's setting, batch.go): the tests read the loads at
// the batch's start, with (W0 + t₀)/n + θj or the ranks of that vector.
// --tau T --delay fixed (τ-Delay's setting): every sample's load as it was
// τ balls ago, against t/n + θj for the current t or ranked in the vector
// of τ balls ago.
//
// --thresholds optimal: the optimal policy's table from core/optimal's
// exact DP (optimalrule.go), on the direct and histogram engines.

// KThinning is K-Thinning.
type KThinning struct {
	K          int
	Thresholds Thresholds
	idx        []uint64 // quantile: the ascending position of each test's boundary
	Batch      uint64   // balls per batch (b-Batch's setting, batch.go); 1: none
	Delayed    Delayed  // τ-Delay's setting, --delay fixed (delay.go); τ = 0: none

	policy *optimal.Policy // --thresholds optimal: its table, built by Check (optimalrule.go)
}

// Thresholds is the value of --thresholds: K − 1 reals, the quantile
// rule, or the optimal policy (optimalrule.go).
type Thresholds struct {
	Quantile bool
	Optimal  bool
	Theta    []float64
}

// String is the canonical text: "quantile" or "θ1,θ2,…".
func (th Thresholds) String() string {
	if th.Quantile {
		return "quantile"
	}
	if th.Optimal {
		return optimalWord
	}
	parts := make([]string, len(th.Theta))
	for i, x := range th.Theta {
		parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// maxK bounds K, a choice of balloc's: a ball takes at most K samples, and
// kernels.KThinningQuantile keeps K − 1 boundaries in local arrays.
const maxK = 64

var kThinningEntry = &Entry{
	Name: "k-thinning", Order: 61,
	Summary: "up to K uniform bins: bin j < K kept if its load < t/n + θj (or within the 1 − 2^(−1/choices left) quantile), else the next; the K-th kept",
	Source:  "Feldheim, Gurel-Gurevich 2021 (K = 2); Vari-Kakas, Cambridge Part II project (K-Thinning, quantile thresholds)",
	New:     func() Process { return &KThinning{} },
}

func init() { Register(kThinningEntry) }

func (*KThinning) Entry() *Entry { return kThinningEntry }

func (p *KThinning) Params() []*Param {
	return append([]*Param{
		IntWant("k", "k-thinning: K, the most uniform samples a ball takes (the K-th kept whatever its load), 2 ≤ K ≤ 64", &p.K, 2, maxK,
			fmt.Sprintf("an integer in [2, %d]", maxK)).Def("2").Listed(),
		Custom("thresholds", "k-thinning: θ1,…,θ(K−1), sample j < K kept if its load < t/n + θj; or quantile, kept if within the 1 − 2^(−1/choices left) quantile of the loads; or optimal, the exact DP's policy for these n and m",
			func(v string) error {
				th, err := ParseThresholds(v)
				if err != nil {
					return err
				}
				p.Thresholds = th
				return nil
			}, func() any { return p.Thresholds.String() }).
			Need("θ1,…,θ(K−1) (K − 1 reals, one per sample before the last), quantile or optimal"),
		BatchParam(&p.Batch),
	}, p.Delayed.params("k-thinning")...)
}

// ParseThresholds reads --thresholds: "quantile", "optimal" or a
// comma-separated list of reals with |θ| ≤ 1e15 (two-thinning's --threshold
// range).
func ParseThresholds(v string) (Thresholds, error) {
	if strings.TrimSpace(v) == "quantile" {
		return Thresholds{Quantile: true}, nil
	}
	if isOptimal(v) {
		return Thresholds{Optimal: true}, nil
	}
	var th Thresholds
	for _, part := range strings.Split(v, ",") {
		x, err := ParseReal(part)
		if err != nil || math.Abs(x) > 1e15 {
			return Thresholds{}, fmt.Errorf("--thresholds %q: want quantile or a comma-separated list of reals θ with |θ| ≤ 1e15, or optimal", v)
		}
		th.Theta = append(th.Theta, x)
	}
	return th, nil
}

// Check wants K − 1 thresholds, and computes the quantile positions.
func (p *KThinning) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	if err := checkBatch(p.Entry().Name, p.Batch, su, 1); err != nil {
		return err
	}
	if err := p.checkDelay(su); err != nil {
		return err
	}
	if p.Thresholds.Optimal {
		var err error
		p.policy, err = optimalPolicy("--thresholds", su, p.K, p.Batch, &p.Delayed)
		return err
	}
	if p.Thresholds.Quantile {
		p.idx = make([]uint64, p.K-1)
		for j := range p.idx {
			p.idx[j] = kThinningIndex(su.Bins, p.K-j)
		}
		return nil
	}
	if len(p.Thresholds.Theta) != p.K-1 {
		return fmt.Errorf("--thresholds %s: k-thinning with --k %d takes K − 1 = %d thresholds, one per sample before the last; got %d",
			p.Thresholds, p.K, p.K-1, len(p.Thresholds.Theta))
	}
	return nil
}

// kThinningIndex is ⌊n(1 − 2^(−1/c))⌋, exactly: the largest idx with
// 2(n − idx)^c > n^c (x ↦ x^c is increasing, and (n − idx)^c = n^c/2 has
// no integer solution for c ≥ 2, so the floor is never at a tie). The
// float64 value starts the search.
func kThinningIndex(n uint64, c int) uint64 {
	nc := new(big.Int).Exp(new(big.Int).SetUint64(n), big.NewInt(int64(c)), nil)
	above := func(idx uint64) bool { // 2(n − idx)^c > n^c
		x := new(big.Int).Exp(new(big.Int).SetUint64(n-idx), big.NewInt(int64(c)), nil)
		return x.Lsh(x, 1).Cmp(nc) > 0
	}
	idx := min(uint64(float64(n)*(1-math.Pow(2, -1/float64(c)))), n-1)
	for idx > 0 && !above(idx) {
		idx--
	}
	for idx+1 < n && above(idx+1) {
		idx++
	}
	return idx
}

// twoThinning is K = 2 with a threshold: Two-Thinning itself.
func (p *KThinning) twoThinning() *TwoThinning {
	if p.K == 2 && !p.Thresholds.Quantile && !p.Thresholds.Optimal {
		return &TwoThinning{Threshold: p.Thresholds.Theta[0]}
	}
	return nil
}

// thinCursor follows one test's limit ⌈t/n + θ⌉ from stretch to stretch.
// Thinning.At computes it exactly in rationals (about 1.5 µs); the next
// stretch's limit is one more and ends n balls later ((c + 1 − θ)n =
// (c − θ)n + n), so At is called again only where that step does not hold
// (a limit clamped at 0, an end near 2^64). With K − 1 tests whose stretches
// interleave, a Step of its own per stretch and At each time cost 1 µs a
// ball at n = 100, K = 8.
type thinCursor struct {
	th          Thinning
	n           uint64
	limit, last uint64
	from        uint64 // a t known to hold the limit; below it, At again (deletions lower t)
	started     bool
}

func newThinCursors(n uint64, thetas []float64) []thinCursor {
	cs := make([]thinCursor, len(thetas))
	for j, theta := range thetas {
		cs[j] = thinCursor{th: NewThinning(n, theta), n: n}
	}
	return cs
}

// at returns the limit for ball t+1 and the last t it holds for. t may
// decrease between calls only in the deletions model (t is the balls
// present), where a t below the known stretch calls At afresh.
func (c *thinCursor) at(t uint64) (limit, last uint64) {
	if !c.started || t > c.last || t < c.from {
		if c.started && t > c.last && t-c.last <= c.n && c.limit > 0 && c.limit < math.MaxUint64 && c.last <= math.MaxUint64-c.n {
			c.limit, c.last, c.from = c.limit+1, c.last+c.n, c.last+1
		} else {
			c.limit, c.last = c.th.At(t)
			c.from, c.started = t, true
		}
	}
	return c.limit, c.last
}

// limitsAt sets the limit of every test for ball t+1 and returns the last
// t for which all hold.
func limitsAt(cs []thinCursor, limits []uint64, t uint64) uint64 {
	last := uint64(math.MaxUint64)
	for j := range cs {
		var lj uint64
		limits[j], lj = cs[j].at(t)
		last = min(last, lj)
	}
	return last
}

type kThinningLoop[L kernels.Load] struct {
	r      *kernels.PCG32
	thin   []thinCursor
	limits []uint64
	w0     uint64 // --initial's balls: the tests read the current average (W0 + t)/n
}

// Step runs the balls up to the first change of any test's limit.
func (l *kThinningLoop[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	t += l.w0
	c = min(c, limitsAt(l.thin, l.limits, t)-t+1)
	return c, kernels.KThinning(loads, l.r, c, l.limits, maxLoad)
}

type kThinningQuantileLoop[L kernels.Load] struct {
	r *kernels.PCG32
	q *kernels.KThinningCounts
}

func (l kThinningQuantileLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.KThinningQuantile(loads, l.r, c, l.q, maxLoad)
}

// Start counts --initial's loads (the tests rank the current loads).
func (l kThinningQuantileLoop[L]) Start(loads []L) { kernels.StartKThinning(l.q, loads) }

func kThinningDirect[L kernels.Load](p *KThinning, tr *Trial) Stepper[L] {
	if p.Thresholds.Optimal {
		return newOptimalLoop[L](p.policy, tr)
	}
	if p.Batch > 1 {
		return kThinningBatchedDirect[L](p, tr)
	}
	if p.Delayed.on() {
		return kThinningDelayedDirect[L](p, tr)
	}
	if p.Thresholds.Quantile {
		k := make([]uint64, len(p.idx))
		for j, x := range p.idx {
			k[j] = tr.Bins - x
		}
		return kThinningQuantileLoop[L]{tr.Choices, kernels.NewKThinningCounts(tr.Bins, k)}
	}
	if two := p.twoThinning(); two != nil {
		return &twoThinningLoop[L]{tr.Choices, NewThinning(tr.Bins, two.Threshold), tr.Initial}
	}
	return &kThinningLoop[L]{r: tr.Choices, thin: newThinCursors(tr.Bins, p.Thresholds.Theta), limits: make([]uint64, p.K-1), w0: tr.Initial}
}

func (p *KThinning) Direct32(tr *Trial) Stepper[uint32] { return kThinningDirect[uint32](p, tr) }
func (p *KThinning) Direct64(tr *Trial) Stepper[uint64] { return kThinningDirect[uint64](p, tr) }

type kThinningLevels struct {
	r      *kernels.PCG32
	thin   []thinCursor
	limits []uint64
	w0     uint64 // as kThinningLoop's
}

func (l *kThinningLevels) Step(lv *kernels.Levels, t, want uint64) uint64 {
	t += l.w0
	c := min(want, Chunk, limitsAt(l.thin, l.limits, t)-t+1)
	kernels.LevelsKThinning(lv, l.r, c, l.limits)
	return c
}

type kThinningQuantileLevels struct {
	r   *kernels.PCG32
	idx []uint64
}

func (l kThinningQuantileLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	c := min(want, Chunk)
	kernels.LevelsKThinningQuantile(lv, l.r, c, l.idx)
	return c
}

func (p *KThinning) Levels(tr *Trial) LevelStepper {
	if p.Thresholds.Optimal {
		return newOptimalLevels(p.policy, tr)
	}
	if p.Thresholds.Quantile {
		return kThinningQuantileLevels{tr.Choices, p.idx}
	}
	if two := p.twoThinning(); two != nil {
		return two.Levels(tr)
	}
	return &kThinningLevels{r: tr.Choices, thin: newThinCursors(tr.Bins, p.Thresholds.Theta), limits: make([]uint64, p.K-1), w0: tr.Initial}
}

// HistogramSeconds: ball by ball on ranks. At n = 10^6, m = 2·10^7, K = 3
// (thresholds 0.5,1 and quantile) a ball took 0.82 and 1.85 times
// two-thinning's in the same run (its 8.51 ns of core/choose.go: 7.0 and
// 15.7 ns; a loaded machine, the better of two runs).
func (p *KThinning) HistogramSeconds(_, m, _ uint64) float64 {
	if p.Thresholds.Quantile {
		return float64(m) * 15.7e-9
	}
	return float64(m) * 7.0e-9
}

// DirectFactor: in the same runs, 1.02 (thresholds) and 2.25 (quantile:
// the counts per load and each boundary updated every ball) times
// two-choice's ns a ball.
func (p *KThinning) DirectFactor() float64 {
	if p.Thresholds.Quantile {
		return 2.25
	}
	return 1.02
}

// Fluid is theory.FluidKThinning for thresholds; quantile thresholds have
// none (see the file's comment).
func (p *KThinning) Fluid(bins, balls uint64) (theory.Profile, error) {
	if p.Batch > 1 {
		return theory.Profile{}, fmt.Errorf("no fluid limit for k-thinning in batches")
	}
	if err := p.Delayed.fluidWhy(p.Entry().Name); err != nil {
		return theory.Profile{}, err
	}
	if p.Thresholds.Quantile {
		return theory.Profile{}, fmt.Errorf("no fluid limit for k-thinning --thresholds quantile (a discontinuous right-hand side)")
	}
	if p.Thresholds.Optimal {
		return theory.Profile{}, fmt.Errorf("no fluid limit for k-thinning --thresholds optimal (a policy of the whole load vector)")
	}
	return theory.FluidKThinning(p.Thresholds.Theta, float64(balls)/float64(bins)), nil
}

// K-Thinning in batches (--batch b, the b-Batch setting, batch.go): sample
// j < K kept when its frozen load is below (W0 + t₀)/n + θj, as
// two-thinning's batches (K = 2 with a threshold runs them); with quantile
// thresholds, kept when its frozen load is at most the load at the test's
// position in the batch-start vector, as quantile's batches rank.
//
// K-Thinning delayed (--tau T --delay fixed, the τ-Delay setting,
// delay.go): every sample's load as it was τ balls ago, against
// (t/n + θj) for the t balls placed — the count is exact, only loads are
// old, as two-thinning's delayed loop reads its first sample (K = 2 runs
// that loop) — or ranked in the vector of τ balls ago, as quantile's
// delayed rank test. The other delays are refused: an age per read has no
// rule for K reads here yet.

// kThinningBatched: limits for the batch's start, one call per batch at most.
type kThinningBatched[L kernels.Load] struct {
	batchStart[L]
	r      *kernels.PCG32
	thin   []thinCursor
	limits []uint64
	b, w0  uint64
}

func (l *kThinningBatched[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	limitsAt(l.thin, l.limits, l.w0+t-t%l.b)
	c = min(c, l.b-t%l.b)
	return c, kernels.BatchedKThinning(loads, l.r, c, l.limits, l.batch, maxLoad)
}

type kThinningQuantileBatched[L kernels.Load] struct {
	batchStart[L]
	r  *kernels.PCG32
	kb *kernels.KThinningBatched
}

func (l *kThinningQuantileBatched[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.BatchedKThinningQuantile(loads, l.r, c, l.kb, l.batch, maxLoad)
}

// Start counts --initial's loads and freezes them for the first batch.
func (l *kThinningQuantileBatched[L]) Start(loads []L) {
	l.batch.Start(loads)
	kernels.StartKThinningBatched(l.kb, loads)
}

func kThinningBatchedDirect[L kernels.Load](p *KThinning, tr *Trial) Stepper[L] {
	if p.Thresholds.Quantile {
		k := make([]uint64, len(p.idx))
		for j, x := range p.idx {
			k[j] = tr.Bins - x
		}
		return &kThinningQuantileBatched[L]{newBatchStart[L](tr, p.Batch), tr.Choices, kernels.NewKThinningBatched(tr.Bins, k)}
	}
	if two := p.twoThinning(); two != nil {
		return newBatchedThinning[L](tr.Choices, NewThinning(tr.Bins, two.Threshold), int(tr.Bins), p.Batch, tr.Initial)
	}
	return &kThinningBatched[L]{newBatchStart[L](tr, p.Batch), tr.Choices, newThinCursors(tr.Bins, p.Thresholds.Theta),
		make([]uint64, p.K-1), p.Batch, tr.Initial}
}

func (p *KThinning) HistogramWhy() string {
	if why := batchWhy(p.Entry().Name, p.Batch); why != "" {
		return why
	}
	return p.Delayed.histogramWhy(p.Entry().Name)
}

func (p *KThinning) Footprint(f *units.Footprint, m Mem) {
	batchMemory(p.Batch, f, m)
	p.Delayed.memory(f, m)
}

func (p *KThinning) InitialWhy() string {
	if p.Thresholds.Optimal {
		return optimalWhy("k-thinning --thresholds", "--initial is not built with it")
	}
	return p.Delayed.initialWhy(p.Entry().Name)
}

// checkDelay: --tau with --delay fixed only (each sample's own load τ balls
// old, as two-thinning's fixed delay reads its first sample; the other
// modes' ages per read are not defined here), then the setting's checks.
func (p *KThinning) checkDelay(su *Setup) error {
	if mode := p.Delayed.Delay; mode != kernels.DelayFixed {
		return fmt.Errorf("--delay %s: k-thinning with --tau reads every sample as it was τ balls ago (--delay fixed) only", delayModes[mode])
	}
	return p.Delayed.check(p.Entry().Name, su, delayRule{batch: p.Batch})
}

// kThinningDelayed: every sample's load τ balls old against the limits for
// the current t (limits: stretches as kThinningLoop's), or ranked in the
// vector of τ balls ago (q follows it).
type kThinningDelayed[L kernels.Load] struct {
	r      *kernels.PCG32
	thin   []thinCursor
	limits []uint64
	q      *kernels.KThinningCounts
	delay  *kernels.Delay[L]
}

func (l *kThinningDelayed[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	if l.q != nil {
		return c, kernels.DelayedKThinningQuantile(loads, l.r, c, l.q, l.delay, maxLoad)
	}
	c = min(c, limitsAt(l.thin, l.limits, t)-t+1)
	return c, kernels.DelayedKThinning(loads, l.r, c, l.limits, l.delay, maxLoad)
}

func kThinningDelayedDirect[L kernels.Load](p *KThinning, tr *Trial) Stepper[L] {
	if two := p.twoThinning(); two != nil {
		return &delayedThinningLoop[L]{tr, NewThinning(tr.Bins, two.Threshold), delayState[L](&p.Delayed, tr), nil}
	}
	l := &kThinningDelayed[L]{r: tr.Choices, delay: delayState[L](&p.Delayed, tr)}
	if p.Thresholds.Quantile {
		k := make([]uint64, len(p.idx))
		for j, x := range p.idx {
			k[j] = tr.Bins - x
		}
		l.q = kernels.NewKThinningCounts(tr.Bins, k)
	} else {
		l.thin, l.limits = newThinCursors(tr.Bins, p.Thresholds.Theta), make([]uint64, p.K-1)
	}
	return l
}

// Placement: K-Thinning with thresholds, t read as the balls present, as
// Two-Thinning's. The quantile thresholds (positions of the sorted loads)
// are not built here.
func (p *KThinning) Placement() (kernels.Placement, string) {
	if p.Thresholds.Optimal {
		return kernels.Placement{}, optimalWhy("--thresholds", "balls that leave are not built with it")
	}
	if why := settingWhy(p.Batch, &p.Delayed); why != "" {
		return kernels.Placement{}, why
	}
	if why := staticWhy(p); why != "" {
		return kernels.Placement{}, why
	}
	if p.Thresholds.Quantile {
		return kernels.Placement{}, "--thresholds quantile has no dynamic reading yet (give θ1,…,θ(K−1))"
	}
	return kernels.Placement{D: 2, Beta: 1, Thetas: append([]float64(nil), p.Thresholds.Theta...)}, ""
}
