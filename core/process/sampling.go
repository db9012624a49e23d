package process

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/balloc/balloc/core/units"

	"github.com/balloc/balloc/kernels"

	"github.com/balloc/balloc/internal/files"
)

// Sampling and tie options of the two-sample family: d-choice, two-choice
// and one-plus-beta; quantile and mixed-quantile take
// --distinct and --sampling (both samples by the law; with --distinct the
// second is another bin than the first), not --ties: Quantile never
// compares two loads. always-go-left has its own tie rule (the leftmost
// group, Vöcking 2003) and takes none of them.
//
// --ties random|first|index. random, the default, breaks ties between the
// least loaded samples uniformly at random; the default loops keep the
// first least loaded sample drawn, which is the same in law because the
// samples are exchangeable (kernels/dchoice.go). first names that rule and
// runs the same loops, so its results are random's bit for bit. index gives
// the ball to the least loaded sample of lowest bin index, a fixed order of
// the bins: what the authors' code does for its Three-Choice and (1+β) rows
// (Dim131/Batched-22 src/batched_spaa_22.cc and Batched-23
// src/batched_spaa_23.cc: d_choice and one_plus_beta return the largest
// sampled position of the load vector sorted heaviest first, so among equal
// loads a fixed position wins; two_choice_with_random_tie_breaking keeps
// the first sample). Los and Sauerwald, "Balanced allocations in batches:
// simplified and generalized", SPAA 2022, Fig. 8.4, compare the two for
// Two-Choice in batches of b = 25n: every ball of a batch sees the same
// frozen loads, and a fixed order sends them to the same few bins of the
// lightest level (from the empty start the largest gap after one batch is
// 41 against 18). Without batches the law of the sorted load vector is the
// same under either rule (the bins of one load are interchangeable once it
// is the least), but the labelled vector's is not: index runs on the direct
// engine only.

// --distinct draws a ball's samples without replacement: a sample that
// repeats one of the ball's is drawn again, so the k-th (k = 0, 1, …) is
// uniform over the bins not yet drawn, and d ≤ n. The samples stay
// exchangeable, so first and random ties are the same law here too. On the
// histogram engine the d distinct samples are d
// distinct uniform ranks (kernels.LevelsDChoiceDistinct), exact on level
// counts, ball by ball; in batches --distinct runs on the direct engine.

// --sampling uniform|twoclass:f,c|zipf:s|file:PATH samples bins with
// unequal probabilities (Wieder, "Balanced allocations with heterogenous
// bins", SPAA 2007): every sample of every ball is drawn independently with
// P(bin i) = w_i / Σ w, by an alias table (kernels.Alias, O(1) a draw, each
// probability rounded to a multiple of 2^-32/n). twoclass:f,c gives the
// first k = ⌈f·n⌉ bins (0 < f < 1) weight c > 0 and the others weight 1:
// P(i) = c/(kc + n − k) for i < k, 1/(kc + n − k) for i ≥ k. zipf:s gives
// bin i (from 0) weight 1/(i+1)^s, s ≥ 0. file:PATH reads one non-negative
// weight a line, n lines (n is the file's when --bins is absent). The gap is
// still max − m/n. With --distinct a draw that repeats one of the ball's
// samples is drawn again (sequential sampling without replacement from the
// law); those samples are not exchangeable (a likely bin tends to come
// first), so random ties there are an explicit uniform choice among the
// tied samples, and first ties are a different process. Bins are told
// apart by their probabilities: direct engine only.
//
// Wieder's result: d-choice keeps a gap independent of m only when the
// probabilities are balanced enough; otherwise the bins sampled least fall
// behind at a linear rate and the gap grows with m. With twoclass:1/2,c and
// two choices the rare half receives a ball whenever one of the two samples
// is rare, probability 1 − (c/(c+1))², so for c = 8 the frequent bins
// receive 0.790 of the balls on half the bins and the gap tends to
// 0.580·m/n (core/engine/sampling_test.go, TestSamplingWiederGapGrows).

// Sampling is the options a process of the family holds.
type Sampling struct {
	Ties     string // random, first or index
	Distinct bool   // samples without replacement
	Law      string // --sampling as given
	law      samplingLaw
	alias    *kernels.Alias // built by check for a law other than uniform
}

// samplingLaw is --sampling parsed.
type samplingLaw struct {
	kind    string  // uniform, twoclass, zipf or file
	f, c, s float64 // twoclass:f,c; zipf:s
	path    string
	weights []float64 // file's
}

// unequal reports whether the law is not uniform.
func (l samplingLaw) unequal() bool { return l.kind != "" && l.kind != "uniform" }

// parseSampling reads --sampling's value (a file: the file too).
func parseSampling(v string) (samplingLaw, error) {
	want := func() (samplingLaw, error) {
		return samplingLaw{}, fmt.Errorf("--sampling %q: want uniform, twoclass:f,c (0 < f < 1, c > 0), zipf:s (s ≥ 0) or file:PATH", v)
	}
	kind, arg, _ := strings.Cut(v, ":")
	switch kind {
	case "uniform":
		if arg != "" || strings.Contains(v, ":") {
			return want()
		}
		return samplingLaw{kind: kind}, nil
	case "twoclass":
		fs, cs, ok := strings.Cut(arg, ",")
		f, err1 := ParseReal(fs)
		c, err2 := ParseReal(cs)
		if !ok || err1 != nil || err2 != nil || !(f > 0 && f < 1) || !(c > 0) {
			return want()
		}
		return samplingLaw{kind: kind, f: f, c: c}, nil
	case "zipf":
		x, err := ParseReal(arg)
		if err != nil || x < 0 {
			return want()
		}
		return samplingLaw{kind: kind, s: x}, nil
	case "file":
		if arg == "" {
			return want()
		}
		w, err := readWeights(arg)
		return samplingLaw{kind: kind, path: arg, weights: w}, err
	}
	return want()
}

// readWeights reads one non-negative finite weight a line; an error names
// the file and the line.
func readWeights(path string) ([]float64, error) {
	f, err := files.OpenInput(path)
	if err != nil {
		return nil, fmt.Errorf("--sampling file:%s: %v", path, err)
	}
	defer f.Close()
	var w []float64
	total := 0.0
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		x, err := ParseReal(sc.Text())
		if err != nil || x < 0 {
			return nil, fmt.Errorf("--sampling file:%s:%d: want one non-negative weight a line, got %q", path, ln, clipText(sc.Text()))
		}
		w = append(w, x)
		total += x
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--sampling file:%s: %v", path, err)
	}
	switch {
	case len(w) == 0:
		return nil, fmt.Errorf("--sampling file:%s: no weights", path)
	case uint64(len(w)) > kernels.MaxBins:
		return nil, fmt.Errorf("--sampling file:%s: %d weights, more than the %d bins of the direct engine", path, len(w), uint64(kernels.MaxBins))
	case !(total > 0) || math.IsInf(total, 0):
		return nil, fmt.Errorf("--sampling file:%s: the weights sum to %v; want a positive finite sum", path, total)
	}
	return w, nil
}

// weights are the law's weights on n bins.
func (l *samplingLaw) weightsOn(n uint64) []float64 {
	if l.kind == "file" {
		return l.weights
	}
	w := make([]float64, n)
	switch l.kind {
	case "twoclass":
		k := ceilTimes(l.f, n)
		for i := range w {
			w[i] = 1
			if uint64(i) < k {
				w[i] = l.c
			}
		}
	case "zipf":
		for i := range w {
			w[i] = math.Pow(float64(i+1), -l.s)
		}
	}
	return w
}

// ceilTimes is ⌈x·n⌉, exactly (x is a dyadic rational).
func ceilTimes(x float64, n uint64) uint64 {
	r := new(big.Rat).SetFloat64(x)
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).SetUint64(n)))
	k := new(big.Int).Quo(r.Num(), r.Denom())
	if !r.IsInt() {
		k.Add(k, big.NewInt(1))
	}
	return k.Uint64()
}

// aliasBytes is what the alias table of n bins holds, and the weights
// behind it while it is built.
func aliasBytes(n uint64) uint64 { return units.Mul(n, 4+4+1+8+8) }

// setBins takes the bins from a --sampling file when --bins is absent.
func (o *Sampling) setBins(su *Setup) error {
	if o.law.kind != "file" {
		return nil
	}
	k := uint64(len(o.law.weights))
	if su.Bins != 0 && su.Bins != k {
		return fmt.Errorf("--bins %d disagrees with --sampling file:%s, which has %d weights; leave --bins out", su.Bins, o.law.path, k)
	}
	su.Bins = k
	return nil
}

// params are the options' parameters, appended to the process's own.
func (o *Sampling) params() []*Param {
	return append([]*Param{
		Choice("ties", "d-choice, two-choice, one-plus-beta: ties between the least loaded samples: random (uniform; the default), "+
			"first (the first sample drawn: the same law, the same loop), index (the lowest bin index, the authors' fixed order; direct engine only)",
			&o.Ties, "random", "first", "index").Def("random").Listed().ShownWhen(func() bool { return o.Ties != "random" }),
	}, o.sampleParams()...)
}

// sampleParams are --distinct and --sampling, which quantile takes too.
func (o *Sampling) sampleParams() []*Param {
	return []*Param{
		Bool("distinct", "d-choice, two-choice, one-plus-beta, quantile, mixed-quantile: a ball's samples without replacement (d ≤ bins)", &o.Distinct).
			Def("false").Listed().ShownWhen(func() bool { return o.Distinct }),
		Custom("sampling", "d-choice, two-choice, one-plus-beta, quantile, mixed-quantile: the law of each sample: uniform (the default); twoclass:f,c "+
			"(the first ⌈f·n⌉ bins c times as likely as the others: P(i) = c/(kc+n−k) for i < k = ⌈fn⌉, else 1/(kc+n−k)); "+
			"zipf:s (P(i) ∝ 1/(i+1)^s); file:PATH (one non-negative weight a line, n lines); direct engine only",
			func(v string) error {
				l, err := parseSampling(v)
				if err != nil {
					return err
				}
				o.Law, o.law = v, l
				return nil
			}, func() any { return o.Law }).Def("uniform").ShownWhen(func() bool { return o.law.unequal() }),
	}
}

// on reports whether the options need the loops of kernels/sampling.go.
func (o *Sampling) on() bool { return o.Ties == "index" || o.Distinct || o.law.unequal() }

// check refuses the options where the process runs loops they do not
// reach (real loads of random weights, vector balls) and more distinct
// samples than bins; d is the samples a ball draws.
func (o *Sampling) check(su *Setup, d, dims int) error {
	if !o.on() {
		return nil
	}
	if o.Distinct && uint64(d) > su.Bins {
		return fmt.Errorf("--distinct: %d samples without replacement need --bins ≥ %d, not %d", d, d, su.Bins)
	}
	if !su.Weights.Unit() {
		return fmt.Errorf("%s: not with random --weights (the weighted loop samples uniformly, ties to the first)", o.culprit())
	}
	if dims > 1 {
		return fmt.Errorf("%s: not with --dims %d (the vector engine samples uniformly, ties to the first)", o.culprit(), dims)
	}
	o.alias = nil
	if !o.law.unequal() {
		return nil
	}
	if su.Bins > kernels.MaxBins {
		return fmt.Errorf("--sampling %s: the direct engine holds at most %d bins, not %d", o.Law, uint64(kernels.MaxBins), su.Bins)
	}
	if mem := units.MemoryLimit(); mem.Bytes > 0 && aliasBytes(su.Bins) > mem.Bytes/2 {
		return fmt.Errorf("--sampling %s: the alias table of %d bins takes %s, more than half the %v; lower --bins", o.Law, su.Bins,
			units.FormatBytes(float64(aliasBytes(su.Bins))), mem)
	}
	a, err := kernels.NewAliasFloat(o.law.weightsOn(su.Bins))
	if err != nil {
		return fmt.Errorf("--sampling %s: %v", o.Law, err)
	}
	if o.Distinct && a.Support() < d {
		return fmt.Errorf("--distinct: %d samples without replacement need %d bins that --sampling %s can draw, not %d", d, d, o.Law, a.Support())
	}
	o.alias = a
	return nil
}

// memory: the alias table.
func (o *Sampling) memory(f *units.Footprint, m Mem) {
	if o.law.unequal() {
		f.Add("--sampling "+o.Law, "lower --bins", units.Mul(m.Bins, 9))
	}
}

// culprit names the option flags in force, for errors.
func (o *Sampling) culprit() string {
	var parts []string
	if o.Ties == "index" {
		parts = append(parts, "--ties index")
	}
	if o.Distinct {
		parts = append(parts, "--distinct")
	}
	if o.law.unequal() {
		parts = append(parts, "--sampling "+o.Law)
	}
	return strings.Join(parts, " ")
}

// histogramWhy: ties by bin index tell bins apart; the batched level
// sampler (hist.NewBatched) draws with replacement.
func (o *Sampling) histogramWhy(batched bool) string {
	switch {
	case o.law.unequal():
		return "--sampling " + o.Law + " runs on the direct engine: bins are sampled with unequal probabilities"
	case o.Ties == "index":
		return "--ties index runs on the direct engine: ties go by bin index, so bins are distinguishable"
	case o.Distinct && batched:
		return "--distinct in batches (--batch) runs on the direct engine"
	}
	return ""
}

// draws is a trial's kernels.Draws for balls of d samples.
func (o *Sampling) draws(d int) *kernels.Draws {
	random := o.Ties == "random" && o.Distinct && o.alias != nil
	return kernels.NewDraws(d, o.Ties == "index", random, o.Distinct, o.alias)
}

// drawsLevels runs --distinct on the histogram engine, ball by ball.
type drawsLevels struct {
	r    *kernels.PCG32
	d    int
	coin *kernels.Bernoulli // one-plus-beta; nil for d-choice
	buf  []uint64
}

func (l *drawsLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	c := min(want, Chunk)
	if l.coin == nil {
		kernels.LevelsDChoiceDistinct(lv, l.r, c, l.buf)
	} else {
		kernels.LevelsOnePlusBetaDistinct(lv, l.r, c, l.coin)
	}
	return c
}

// levels is the histogram engine's stepper with the options (which
// histogramWhy allows: --distinct, unbatched).
func (o *Sampling) levels(d int, coin *kernels.Bernoulli, tr *Trial) LevelStepper {
	if coin != nil {
		c := *coin
		coin, d = &c, 2
	}
	return &drawsLevels{tr.Choices, d, coin, make([]uint64, d)}
}

// histogramSeconds: ball by ball on ranks, about 8 ns a ball and 4 ns a
// further sample at n = 10^4 (BenchmarkSampling's histogram rows: 12 ns at
// d = 2, 18 at d = 3).
func (o *Sampling) histogramSeconds(m uint64, d int) float64 {
	return float64(m) * (8 + 4*float64(d-1)) * 1e-9
}

// directFactor: BenchmarkSampling at n = 10^4 against the two-choice row of
// the same run (balls per CPU second): uniform samples 1.3× two-choice's
// time at d = 2 (--distinct, or index ties) and about 0.8·d beyond; an
// alias table 1.75·d, and with --distinct 4.75·d.
func (o *Sampling) directFactor(d int) float64 {
	x := float64(d)
	switch {
	case o.law.unequal() && o.Distinct:
		return 4.75 * x
	case o.law.unequal():
		return 1.75 * x
	case d == 2:
		return 1.3
	}
	return 0.8 * x
}

type drawsLoop[L kernels.Load] struct {
	r    *kernels.PCG32
	o    *kernels.Draws
	coin *kernels.Bernoulli // one-plus-beta; nil for d-choice
}

func (l drawsLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	if l.coin == nil {
		return c, kernels.DChoiceDraws(loads, l.r, c, l.o, maxLoad)
	}
	return c, kernels.OnePlusBetaDraws(loads, l.r, c, l.coin, l.o, maxLoad)
}

type drawsBatched[L kernels.Load] struct {
	drawsLoop[L]
	batch *kernels.Batch[L]
}

func (l *drawsBatched[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	if l.coin == nil {
		return c, kernels.BatchedDChoiceDraws(loads, l.r, c, l.o, l.batch, maxLoad)
	}
	return c, kernels.BatchedOnePlusBetaDraws(loads, l.r, c, l.coin, l.o, l.batch, maxLoad)
}

func (l *drawsBatched[L]) BatchEnds(n int) (uint64, float64) { return l.batch.BatchEnds(n) }

// Start freezes --initial's loads for the first batch.
func (l *drawsBatched[L]) Start(loads []L) { l.batch.Start(loads) }

// drawsDirect is the direct engine's stepper with options o: d-choice of d
// samples (coin nil) or (1+β) with a copy of coin, in batches of b > 1.
func drawsDirect[L kernels.Load](o *Sampling, d int, coin *kernels.Bernoulli, b uint64, tr *Trial) Stepper[L] {
	if coin != nil {
		c := *coin
		coin, d = &c, 2
	}
	loop := drawsLoop[L]{tr.Choices, o.draws(d), coin}
	if b > 1 {
		return &drawsBatched[L]{loop, kernels.NewBatch[L](int(tr.Bins), b, false)}
	}
	return loop
}

// The family's methods that the options add to.

// quantileDraws is quantile's direct stepper with --distinct or --sampling.
type quantileDraws[L kernels.Load] struct {
	r    *kernels.PCG32
	q    *kernels.QuantileCounts
	coin *kernels.Bernoulli
	o    *kernels.Draws
}

func (l quantileDraws[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.QuantileDraws(loads, l.r, c, l.q, l.coin, l.o, maxLoad)
}

// Start counts --initial's loads (the rank test ranks the current loads).
func (l quantileDraws[L]) Start(loads []L) { kernels.StartQuantile(l.q, loads) }

// quantileDrawsDirect: δ = 0 (or η = 0) is one sample by the law.
func quantileDrawsDirect[L kernels.Load](p *Quantile, tr *Trial) Stepper[L] {
	if p.k == 0 {
		return drawsLoop[L]{tr.Choices, p.Opt.draws(1), nil}
	}
	return quantileDraws[L]{tr.Choices, kernels.NewQuantileCounts(tr.Bins, p.k), p.coinCopy(), p.Opt.draws(2)}
}

type quantileDistinctLevels struct {
	r    *kernels.PCG32
	k    uint64
	coin *kernels.Bernoulli
}

func (l quantileDistinctLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	c := min(want, Chunk)
	kernels.LevelsQuantileDistinct(lv, l.r, c, l.k, l.coin)
	return c
}

// notWithDelay: the options and τ-Delay's setting (delayparam.go) each have
// loops of their own, so both at once is refused rather than one dropped.
func (o *Sampling) notWithDelay(d *Delayed) error {
	if o.on() && d.on() {
		return fmt.Errorf("--tau with %s: the delayed loops draw uniform samples with replacement and random ties; give one of the two", o.culprit())
	}
	return nil
}

// checkQuantile: batches of quantile sample uniformly with replacement.
func (o *Sampling) checkQuantile(su *Setup, batched bool) error {
	if o.on() && batched {
		return fmt.Errorf("%s: quantile in batches (--batch) samples uniformly with replacement", o.culprit())
	}
	return o.check(su, 2, 1)
}

// bothContent joins the spec-hash content of τ-Delay's setting (a replay
// file) and of the options (a --sampling file): at most one is on, as
// notWithDelay refuses both, but neither is dropped.
func bothContent(d *Delayed, o *Sampling) (map[string]string, []string) {
	m, l := d.content()
	om, ol := o.content()
	if len(om) > 0 && m == nil {
		m = map[string]string{}
	}
	for k, v := range om {
		m[k] = v
	}
	return m, append(l, ol...)
}

func (o *Sampling) content() (map[string]string, []string) {
	if o.law.kind != "file" {
		return nil, nil
	}
	h := sha256.New()
	var b [8]byte
	for _, w := range o.law.weights {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(w))
		h.Write(b[:])
	}
	return map[string]string{"sampling": "file"}, []string{"sampling=" + hex.EncodeToString(h.Sum(nil)[:8])}
}
