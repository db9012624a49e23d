package process

import (
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// Threshold and Adaptive. Czumaj and Stemann ("Randomized allocation
// processes", Random Structures & Algorithms 18(4), 2001) analyse
// MThreshold: a ball samples uniform bins, with replacement, until one has
// a load below the threshold M, and goes there (m = n, M = 2: maximum load
// 2, at most 1.146194 + o(1) samples a ball). Berenbrink, Khodamoradi,
// Sauerwald and Stauffer ("Balls-into-bins with nearly optimal load
// distribution", SPAA 2013) take M = m/n + 1, and Adaptive, which needs no
// m in advance, M = i/n + 1 for ball i: maximum load ⌈m/n⌉ + 1 with O(m)
// expected samples. So:
//
//   - threshold: load < m/n + 1, m the balls of the whole run;
//   - adaptive: ball i, counted from 1 (the ball placed after i − 1 others),
//     load < i/n + 1.
//
// The comparisons are strict and the count from 1 as in the implementation
// of both in daniel-stoneuk/load-balancing (algorithms.py: threshold
// `chosen_bin.load < ball.m / bins.n + 1`, adaptive `chosen_bin.load <
// ball.position / n + 1`, with `position = ball_index + 1` in
// simulation.py; its report's §2.4 cites the two papers). For integer
// loads they are load < ⌈m/n⌉ + 1 and load < ⌈i/n⌉ + 1 = ⌊t/n⌋ + 2 for the
// ball placed after t = i − 1 others, computed in integers (their code
// compares with a float64 quotient: the same while m < 2^53). A bin below
// the limit always exists (the least load is at most ⌊t/n⌋ ≤ ⌊(m − 1)/n⌋),
// so every ball ends.
//
// Each sample reads one load: the trial reports the probes per ball, mean
// and max (Result.Probes). Direct engine: kernels.Retry; histogram engine:
// kernels.LevelsRetry on ranks, exact (both are symmetric). No fluid limit.
// --batch b (b-Batch's setting, batch.go): the loads at the batch's
// start are tested, adaptive's limit that of the batch's first ball.
// --tau T --delay fixed (τ-Delay's setting, delay.go): each probe reads the
// sampled bin's load τ balls old against the current limit; probes counted.

// Retry is Threshold, or Adaptive.
type Retry struct {
	adaptive bool
	Batch    uint64  // balls per batch (b-Batch's setting, batch.go); 1: none
	Delayed  Delayed // τ-Delay's setting, --delay fixed (delay.go); τ = 0: none
}

var thresholdEntry = &Entry{
	Name: "threshold", Order: 62,
	Summary: "uniform bins until one has load < m/n + 1 (m: the run's balls); reports probes per ball",
	Source:  "Czumaj, Stemann 2001 (MThreshold); Berenbrink, Khodamoradi, Sauerwald, Stauffer 2013 (SPAA)",
	Reports: []*result.Kind{result.ProbesKind},
	New:     func() Process { return &Retry{} },
}

var adaptiveEntry = &Entry{
	Name: "adaptive", Order: 63,
	Summary: "uniform bins until one has load < i/n + 1 for ball i (from 1); reports probes per ball",
	Source:  "Berenbrink, Khodamoradi, Sauerwald, Stauffer 2013 (SPAA)",
	Reports: []*result.Kind{result.ProbesKind},
	New:     func() Process { return &Retry{adaptive: true} },
}

func init() {
	Register(thresholdEntry)
	Register(adaptiveEntry)
}

func (p *Retry) Entry() *Entry {
	if p.adaptive {
		return adaptiveEntry
	}
	return thresholdEntry
}

func (p *Retry) Params() []*Param {
	return append([]*Param{BatchParam(&p.Batch)}, p.Delayed.params(p.Entry().Name)...)
}

func (p *Retry) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	if err := checkBatch(p.Entry().Name, p.Batch, su, 1); err != nil {
		return err
	}
	return checkFixedDelay(p.Entry().Name, &p.Delayed, su, p.Batch)
}

// retryLimit gives the limit for ball t+1 and the balls it holds for.
//
// From --initial's W0 balls both read the total: threshold's limit is
// ⌈(W0 + m)/n⌉ + 1 (the final average), adaptive's (W0 + i)/n + 1.
type retryLimit struct {
	adaptive bool
	n, fixed uint64 // fixed: threshold's ⌈(W0 + m)/n⌉ + 1
	w0       uint64
}

func newRetryLimit(p *Retry, tr *Trial) retryLimit {
	w := tr.Initial + tr.Balls
	return retryLimit{adaptive: p.adaptive, n: tr.Bins, fixed: w/tr.Bins + min(w%tr.Bins, 1) + 1, w0: tr.Initial}
}

// at returns the limit of ball t+1 and how many of the c balls from there
// it holds for: adaptive's ⌊t/n⌋ + 2 up to the next multiple of n.
func (l retryLimit) at(t, c uint64) (limit, count uint64) {
	if !l.adaptive {
		return l.fixed, c
	}
	t += l.w0
	q := t / l.n
	return q + 2, min(c, (q+1)*l.n-t)
}

type retryLoop[L kernels.Load] struct {
	r     *kernels.PCG32
	limit retryLimit
	pr    kernels.Probes
}

func (l *retryLoop[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	limit, c := l.limit.at(t, c)
	return c, kernels.Retry(loads, l.r, c, limit, &l.pr, maxLoad)
}

func (l *retryLoop[L]) Probes() (uint64, uint64) { return l.pr.Total, l.pr.Max }

func (p *Retry) Direct32(tr *Trial) Stepper[uint32] {
	if p.Batch > 1 {
		return retryBatchedDirect[uint32](p, tr)
	}
	if p.Delayed.on() {
		return retryDelayedDirect[uint32](p, tr)
	}
	return &retryLoop[uint32]{r: tr.Choices, limit: newRetryLimit(p, tr)}
}
func (p *Retry) Direct64(tr *Trial) Stepper[uint64] {
	if p.Batch > 1 {
		return retryBatchedDirect[uint64](p, tr)
	}
	if p.Delayed.on() {
		return retryDelayedDirect[uint64](p, tr)
	}
	return &retryLoop[uint64]{r: tr.Choices, limit: newRetryLimit(p, tr)}
}

type retryLevels struct {
	r     *kernels.PCG32
	limit retryLimit
	pr    kernels.Probes
}

func (l *retryLevels) Step(lv *kernels.Levels, t, want uint64) uint64 {
	limit, c := l.limit.at(t, min(want, Chunk))
	kernels.LevelsRetry(lv, l.r, c, limit, &l.pr)
	return c
}

func (l *retryLevels) Probes() (uint64, uint64) { return l.pr.Total, l.pr.Max }

func (p *Retry) Levels(tr *Trial) LevelStepper {
	return &retryLevels{r: tr.Choices, limit: newRetryLimit(p, tr)}
}

// HistogramSeconds: ball by ball on ranks, a rank and a level per probe.
// At n = 10^6, m = 2·10^7 a ball took 0.86 (threshold) and 1.16 (adaptive)
// times two-thinning's in the same run (its 8.51 ns of core/choose.go: 7.35
// and 9.9 ns; a loaded machine, the better of two runs).
func (p *Retry) HistogramSeconds(_, m, _ uint64) float64 {
	if p.adaptive {
		return float64(m) * 9.9e-9
	}
	return float64(m) * 7.35e-9
}

// DirectFactor: in the same runs, 0.60 (threshold: one probe a ball for
// most of the run) and 1.40 (adaptive: about 1.4) times two-choice's ns a
// ball.
func (p *Retry) DirectFactor() float64 {
	if p.adaptive {
		return 1.40
	}
	return 0.60
}

// Threshold and Adaptive in batches (--batch b, batch.go): samples until
// one's frozen load is below the limit, threshold's ⌈(W0 + m)/n⌉ + 1,
// adaptive's for the batch's first ball, ⌊(W0 + t₀)/n⌋ + 2 (the count as
// the batch's start saw it, as two-thinning's batches read t₀); every
// probe counted. A frozen load below the limit exists (the least is at
// most the batch-start average), so every ball ends.
//
// Delayed (--tau T --delay fixed, delay.go): each probe reads the sampled
// bin's load τ balls old against the current limit (threshold's ⌈m/n⌉ + 1,
// adaptive's ⌊t/n⌋ + 2 for the t balls placed); every probe counted. An
// old load below the limit exists (the old loads sum to at most t), so
// every ball ends.

// retryBatched: the limit for the batch's first ball, one call per batch at
// most.
type retryBatched[L kernels.Load] struct {
	batchStart[L]
	r     *kernels.PCG32
	limit retryLimit
	b     uint64
	pr    kernels.Probes
}

func (l *retryBatched[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	limit, _ := l.limit.at(t-t%l.b, 1)
	c = min(c, l.b-t%l.b)
	return c, kernels.BatchedRetry(loads, l.r, c, limit, &l.pr, l.batch, maxLoad)
}

func (l *retryBatched[L]) Probes() (uint64, uint64) { return l.pr.Total, l.pr.Max }

func retryBatchedDirect[L kernels.Load](p *Retry, tr *Trial) Stepper[L] {
	return &retryBatched[L]{batchStart: newBatchStart[L](tr, p.Batch), r: tr.Choices, limit: newRetryLimit(p, tr), b: p.Batch}
}

func (p *Retry) HistogramWhy() string {
	if why := batchWhy(p.Entry().Name, p.Batch); why != "" {
		return why
	}
	return p.Delayed.histogramWhy(p.Entry().Name)
}

func (p *Retry) Footprint(f *units.Footprint, m Mem) {
	batchMemory(p.Batch, f, m)
	p.Delayed.memory(f, m)
}

func (p *Retry) InitialWhy() string { return p.Delayed.initialWhy(p.Entry().Name) }

// retryDelayed: each probe's load τ balls old against the limit for the
// current t (adaptive's calls cut where it changes, as retryLoop's).
type retryDelayed[L kernels.Load] struct {
	r     *kernels.PCG32
	limit retryLimit
	pr    kernels.Probes
	delay *kernels.Delay[L]
}

func (l *retryDelayed[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	limit, c := l.limit.at(t, c)
	return c, kernels.DelayedRetry(loads, l.r, c, limit, &l.pr, l.delay, maxLoad)
}

func (l *retryDelayed[L]) Probes() (uint64, uint64) { return l.pr.Total, l.pr.Max }

func retryDelayedDirect[L kernels.Load](p *Retry, tr *Trial) Stepper[L] {
	return &retryDelayed[L]{r: tr.Choices, limit: newRetryLimit(p, tr), delay: delayState[L](&p.Delayed, tr)}
}

// Placement: Adaptive with ball i read as present + 1 (the current
// average): uniform samples until one's load is below (present + 1)/n + 1,
// the static rule while no ball has left. Threshold's limit m/n + 1 reads
// the run's total balls, which has no meaning when balls leave: refused
// (adaptive is its reading on the current average).
func (p *Retry) Placement() (kernels.Placement, string) {
	if !p.adaptive {
		return kernels.Placement{}, "threshold's limit m/n + 1 reads the run's total balls, which has no meaning when balls leave; adaptive reads the current average (i/n + 1)"
	}
	if why := settingWhy(p.Batch, &p.Delayed); why != "" {
		return kernels.Placement{}, why
	}
	if why := staticWhy(p); why != "" {
		return kernels.Placement{}, why
	}
	return kernels.Placement{D: 2, Beta: 1, Thetas: []float64{1}, Retry: true}, ""
}
