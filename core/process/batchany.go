package process

import (
	"fmt"

	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// --batch b for k-thinning, threshold, adaptive, twinning, packing and
// kd-choice (the b-Batch setting of Berenbrink, Czumaj,
// Englert, Friedetzky, Nagel 2012 and Los, Sauerwald SPAA 2022, bbatch.go):
// every ball of a batch decides on the loads at the batch's start, and on
// what the rule reads beside them as it was then, W0 + t₀ the balls placed
// at the batch's start (--initial's W0 counted, initial.go):
//
//   - k-thinning, thresholds: sample j < K kept when its frozen load is
//     below (W0 + t₀)/n + θj, as two-thinning's batches (K = 2 with a
//     threshold runs them); quantile thresholds: kept when its frozen load
//     is at most the load at the test's position in the batch-start
//     vector, as quantile's batches rank.
//   - threshold, adaptive: samples until one's frozen load is below the
//     limit, threshold's ⌈(W0 + m)/n⌉ + 1, adaptive's for the batch's first
//     ball, ⌊(W0 + t₀)/n⌋ + 2 (the count as the batch's start saw it, as
//     two-thinning's batches read t₀); every probe counted. A frozen load
//     below the limit exists (the least is at most the batch-start
//     average), so every ball ends.
//   - twinning, packing: the sampled bin's frozen load x against the
//     batch-start average (W0 + t₀)/n: twinning 2 balls if below, else 1;
//     packing ⌈(W0 + t₀)/n⌉ + 1 − x balls if below (the bin as the batch's
//     start saw it raised to ⌈W/n⌉ + 1), else 1.
//   - kd-choice: the d samples of a step ranked by their frozen loads; k = 1
//     is d-choice's batches.
//
// A step of several balls is decided once, in the batch of its first ball;
// batches count balls, so a step whose balls cross a batch end places the
// rest first in the next batch, before any new sample (kernels/batch_steps.go).
// --batch 1 is the process itself, its own loops. Direct engine only;
// max_gap covers the batch ends, as for the other batched processes.
//
// --tau T --delay fixed for k-thinning (τ-Delay's setting, delayparam.go):
// every sample's load as it was τ balls ago, against (t/n + θj) for the t
// balls placed — the count is exact, only loads are old, as two-thinning's
// delayed loop reads its first sample (K = 2 runs that loop) — or ranked in
// the vector of τ balls ago, as quantile's delayed rank test. The other
// delays are refused: an age per read has no rule for K reads here yet.

// batchMemory adds the frozen loads of batches of b.
func batchMemory(b uint64, f *units.Footprint, m Mem) {
	if b > 1 {
		f.Add(m.BinsCulprit, m.BinsHint, kernels.BatchMemory(m.Bins, b, int(m.LoadBytes), m.Weighted))
	}
}

// batchWhy keeps a batched process off the histogram engine.
func batchWhy(name string, b uint64) string {
	if b > 1 {
		return name + " in batches (--batch) runs on the direct engine"
	}
	return ""
}

// batchStart is what every batched stepper shares: the frozen loads.
type batchStart[L kernels.Load] struct{ batch *kernels.Batch[L] }

// Start freezes --initial's loads for the first batch.
func (l *batchStart[L]) Start(loads []L) { l.batch.Start(loads) }

func (l *batchStart[L]) BatchEnds(n int) (uint64, float64) { return l.batch.BatchEnds(n) }

func newBatchStart[L kernels.Load](tr *Trial, b uint64) batchStart[L] {
	return batchStart[L]{kernels.NewBatch[L](int(tr.Bins), b, false)}
}

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

func (p *KThinning) Memory(f *units.Footprint, m Mem) {
	batchMemory(p.Batch, f, m)
	p.Delayed.memory(f, m)
}

func (p *KThinning) InitialWhy() string { return p.Delayed.initialWhy(p.Entry().Name) }

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

func (p *Retry) Memory(f *units.Footprint, m Mem) {
	batchMemory(p.Batch, f, m)
	p.Delayed.memory(f, m)
}

// twinningBatched: the batch-start average, one call per batch at most.
type twinningBatched[L kernels.Load] struct {
	batchStart[L]
	r       *kernels.PCG32
	st      kernels.MultiStep
	packing bool
	b, w0   uint64
}

func (l *twinningBatched[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	c = min(c, l.b-t%l.b)
	return c, kernels.BatchedTwinning(loads, l.r, l.w0+t-t%l.b, c, &l.st, l.packing, l.batch, maxLoad)
}

func (l *twinningBatched[L]) Samples() uint64 { return l.st.Samples }

func twinningBatchedDirect[L kernels.Load](p *Twinning, tr *Trial) Stepper[L] {
	return &twinningBatched[L]{batchStart: newBatchStart[L](tr, p.Batch), r: tr.Choices, packing: p.packing, b: p.Batch, w0: tr.Initial}
}

func (p *Twinning) HistogramWhy() string {
	if why := batchWhy(p.Entry().Name, p.Batch); why != "" {
		return why
	}
	return p.Delayed.histogramWhy(p.Entry().Name)
}

func (p *Twinning) Memory(f *units.Footprint, m Mem) {
	batchMemory(p.Batch, f, m)
	p.Delayed.memory(f, m)
	if p.packing && p.Delayed.on() { // packing's runs beside the ring (kernels/packing_runs.go)
		perBin, perTau := kernels.PackingRunsMemory()
		f.Add(m.BinsCulprit, m.BinsHint, units.Mul(m.Bins, uint64(perBin)))
		f.Add("--tau "+units.FormatCount(p.Delayed.Tau), "lower --tau (or --balls)", units.Mul(kernels.DelayWindow(p.Delayed.Tau, m.Balls)+1, uint64(perTau)))
	}
}

type kdChoiceBatched[L kernels.Load] struct {
	batchStart[L]
	r  *kernels.PCG32
	st *kernels.KDState
}

func (l *kdChoiceBatched[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.BatchedKDChoice(loads, l.r, c, l.st, l.batch, maxLoad)
}

func (l *kdChoiceBatched[L]) Samples() uint64 { return l.st.Samples }

func (p *KDChoice) HistogramWhy() string {
	if why := batchWhy(p.Entry().Name, p.Batch); why != "" {
		return why
	}
	return p.Delayed.histogramWhy(p.Entry().Name)
}
