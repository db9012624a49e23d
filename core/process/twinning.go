package process

import (
	"fmt"
	"math"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// Twinning (Los, Sauerwald and Sylvester, "Balanced allocations: caching and
// packing, twinning and thinning", SODA 2022; the definitions as the
// first author's pages state them, dimitrioslos.com/research/balls-and-bins/
// processes/twinning.html): each step samples one bin i uniformly and, with
// W^t the balls placed before the step,
//
//	x_i ← x_i + 2  if x_i < W^t/n   (an underloaded bin: strictly below the average)
//	x_i ← x_i + 1  if x_i ≥ W^t/n.
//
// The paper counts steps; balloc counts balls (--balls m places exactly m):
// the last step is cut to fit, and a checkpoint may fall between a step's
// two balls. Results report the bins sampled (Result.Samples), so balls per
// sample is balls/samples (between 1 and 2).
//
// Packing (packing.go) is the same loop with another rule for an
// underloaded bin, and shares this file's type.
//
// Direct engine: kernels.Twinning, one PCG32.Bounded(n) per step; the rule
// reads the sampled load and the average only, so the process is symmetric
// and the histogram engine runs it exactly, step by step on ranks
// (kernels.LevelsTwinning). Fluid limit below (both processes). --batch b
// (b-Batch's setting, batch.go): the sampled bin's load at the batch's
// start against the average then.

// Twinning is Twinning, or Packing when packing is set.
type Twinning struct {
	packing bool
	Batch   uint64  // balls per batch (b-Batch's setting, batch.go); 1: none
	Delayed Delayed // τ-Delay's setting, --delay fixed (delay.go); τ = 0: none
}

var twinningEntry = &Entry{
	Name: "twinning", Order: 68,
	Summary: "one uniform bin a step: 2 balls if its load is below the average W/n, else 1",
	Source:  "Los, Sauerwald, Sylvester 2022 (SODA: Twinning)",
	Reports: []*result.Kind{result.SamplesKind},
	New:     func() Process { return &Twinning{} },
}

func init() { Register(twinningEntry) }

func (p *Twinning) Entry() *Entry {
	if p.packing {
		return packingEntry
	}
	return twinningEntry
}

func (p *Twinning) Params() []*Param {
	return append([]*Param{BatchParam(&p.Batch)}, p.Delayed.params(p.Entry().Name)...)
}

func (p *Twinning) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	if err := checkBatch(p.Entry().Name, p.Batch, su, 1); err != nil {
		return err
	}
	return checkFixedDelay(p.Entry().Name, &p.Delayed, su, p.Batch)
}

// twinningLoop carries the step in progress between chunks.
// w0 is --initial's balls: W counts them (the average is the current one).
type twinningLoop[L kernels.Load] struct {
	r       *kernels.PCG32
	st      kernels.MultiStep
	packing bool
	w0      uint64
}

func (l *twinningLoop[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	if l.packing {
		return c, kernels.Packing(loads, l.r, l.w0+t, c, &l.st, maxLoad)
	}
	return c, kernels.Twinning(loads, l.r, l.w0+t, c, &l.st, maxLoad)
}

func (l *twinningLoop[L]) Samples() uint64 { return l.st.Samples }

func (p *Twinning) Direct32(tr *Trial) Stepper[uint32] {
	if p.Batch > 1 {
		return twinningBatchedDirect[uint32](p, tr)
	}
	if p.Delayed.on() {
		return twinningDelayedDirect[uint32](p, tr)
	}
	return &twinningLoop[uint32]{r: tr.Choices, packing: p.packing, w0: tr.Initial}
}
func (p *Twinning) Direct64(tr *Trial) Stepper[uint64] {
	if p.Batch > 1 {
		return twinningBatchedDirect[uint64](p, tr)
	}
	if p.Delayed.on() {
		return twinningDelayedDirect[uint64](p, tr)
	}
	return &twinningLoop[uint64]{r: tr.Choices, packing: p.packing, w0: tr.Initial}
}

type twinningLevels struct {
	r       *kernels.PCG32
	st      kernels.MultiStep
	packing bool
	w0      uint64 // as twinningLoop's
}

func (l *twinningLevels) Step(lv *kernels.Levels, t, want uint64) uint64 {
	c := min(want, Chunk)
	kernels.LevelsTwinning(lv, l.r, l.w0+t, c, &l.st, l.packing)
	return c
}

func (l *twinningLevels) Samples() uint64 { return l.st.Samples }

func (p *Twinning) Levels(tr *Trial) LevelStepper {
	return &twinningLevels{r: tr.Choices, packing: p.packing, w0: tr.Initial}
}

// HistogramSeconds: a rank and its level a step, a move a ball. At n = 10^6,
// m = 10^8 twinning ran 26 ns a ball and packing 29 where two-thinning ran
// 18.4 (its 8.51 of core/choose.go's table, on a busier machine): scaled,
// 12 and 13.5 ns.
func (p *Twinning) HistogramSeconds(_, m, _ uint64) float64 {
	if p.packing {
		return float64(m) * 13.5e-9
	}
	return float64(m) * 12e-9
}

// DirectFactor: one random read a step, fewer than one a ball. At n = 10^6,
// m = 2·10^8 twinning ran 1.85e8 balls/s and packing 2.64e8 where
// two-choice ran 1.05e8, in the same run.
func (p *Twinning) DirectFactor() float64 {
	if p.packing {
		return 1.05 / 2.64
	}
	return 1.05 / 1.85
}

// Fluid solves the mean-field limit of Twinning or Packing in t = balls/n.
// With s_j the fraction of bins at load ≥ j, p_j = s_j − s_{j+1}, and
// q = ⌈t⌉ (for an integer load x < t ⇔ x < q; q is constant on each
// stretch (q−1, q]), in steps per bin τ:
//
//	twinning: ds_i/dτ = p_{i−1} + [i−2 < q]·p_{i−2},  dt/dτ = 1 + (1 − s_q)
//	packing:  ds_i/dτ = 1 − s_i (i ≤ q), 1 − s_q + p_q (i = q+1), p_{i−1} (i > q+1),
//	          dt/dτ = s_q + Σ_{j<q} (q+1−j)·p_j = s_q + (1 − s_q) + Σ_{i≤q} (1 − s_i)
//
// (a sampled bin at j < q climbs to j+2, resp. to q+1, crossing every
// level between; above, one level), and ds_i/dt = (ds_i/dτ)/(dt/dτ). Both
// sum to Σ ds_i/dt = 1, one ball per bin per unit time.
func (p *Twinning) Fluid(bins, balls uint64) (theory.Profile, error) {
	if p.Batch > 1 {
		return theory.Profile{}, fmt.Errorf("no fluid limit for %s in batches", p.Entry().Name)
	}
	if err := p.Delayed.fluidWhy(p.Entry().Name); err != nil {
		return theory.Profile{}, err
	}
	var q int
	st := theory.NewStretches(func(t float64) float64 { return math.Floor(t) + 1 },
		func(a, b float64) { q = int(math.Ceil((a + b) / 2)) })
	return theory.Solve(1, float64(balls)/float64(bins), theory.Step(2), st,
		func(_ float64, w *theory.Window, ds [][]float64) {
			s := func(i int) float64 { return w.At(0, i) }
			pj := func(j int) float64 { return s(j) - s(j+1) }
			if !p.packing {
				rate := 2 - s(q)
				for k := range ds[0] {
					i := w.Base() + k
					v := pj(i - 1)
					if i-2 < q {
						v += pj(i - 2)
					}
					ds[0][k] = v / rate
				}
				return
			}
			rate := 1.0
			for i := w.Base(); i <= q; i++ {
				rate += 1 - s(i)
			}
			for k := range ds[0] {
				i := w.Base() + k
				var v float64
				switch {
				case i <= q:
					v = 1 - s(i)
				case i == q+1:
					v = 1 - s(q) + pj(q)
				default:
					v = pj(i - 1)
				}
				ds[0][k] = v / rate
			}
		}), nil
}

// Twinning and Packing in batches (--batch b, batch.go): the sampled bin's
// frozen load x against the batch-start average (W0 + t₀)/n: twinning 2
// balls if below, else 1; packing ⌈(W0 + t₀)/n⌉ + 1 − x balls if below
// (the bin as the batch's start saw it raised to ⌈W/n⌉ + 1), else 1.
// kernels/batch_steps.go's batchedTwinningWhole runs them at b ≥ n.
//
// Delayed (--tau T --delay fixed, delay.go): a step reads the sampled bin's
// load x τ balls old against the current average t/n (t the balls placed
// before the step): twinning 2 balls if x < t/n, else 1; packing
// ⌈t/n⌉ + 1 − x balls if x < t/n, else 1 — the balls added are computed
// from the old load (the bin as the read saw it raised to ⌈t/n⌉ + 1; its
// current load may be higher), as the batches compute them from the frozen
// load. Every ball of a step enters the record of past loads one by one.

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

func (p *Twinning) Footprint(f *units.Footprint, m Mem) {
	batchMemory(p.Batch, f, m)
	p.Delayed.memory(f, m)
	if p.packing && p.Delayed.on() { // packing's runs beside the ring (kernels/packing_runs.go)
		perBin, perTau := kernels.PackingRunsMemory()
		f.Add(m.BinsCulprit, m.BinsHint, units.Mul(m.Bins, uint64(perBin)))
		f.Add("--tau "+units.FormatCount(p.Delayed.Tau), "lower --tau (or --balls)", units.Mul(kernels.DelayWindow(p.Delayed.Tau, m.Balls)+1, uint64(perTau)))
	}
}

func (p *Twinning) InitialWhy() string { return p.Delayed.initialWhy(p.Entry().Name) }

// twinningDelayed carries the step in progress and the record between
// calls.
type twinningDelayed[L kernels.Load] struct {
	r       *kernels.PCG32
	st      kernels.MultiStep
	packing bool
	delay   *kernels.Delay[L]
}

func (l *twinningDelayed[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.DelayedTwinning(loads, l.r, c, &l.st, l.packing, l.delay, maxLoad)
}

func (l *twinningDelayed[L]) Samples() uint64 { return l.st.Samples }

func twinningDelayedDirect[L kernels.Load](p *Twinning, tr *Trial) Stepper[L] {
	return &twinningDelayed[L]{r: tr.Choices, packing: p.packing, delay: delayState[L](&p.Delayed, tr)}
}
