package process

import (
	"fmt"
	"math"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// (k,d)-choice (Peres, Talwar and Wieder, "The (1+β)-choice process and
// weighted balls-into-bins", SODA 2010, where it is analysed beside (1+β);
// the maximum load at m = n: Park, "A generalization of multiple choice
// balls-into-bins", 2011/2017): each step samples d bins uniformly at
// random and places k balls, one into each of the k least loaded of them.
//
// Where the papers leave a choice, balloc decides:
//   - Samples are drawn with replacement, as Peres, Talwar and Wieder's
//     bins (and the README's rule for every process) are: d independent
//     uniform slots. A bin drawn twice is two slots, and takes two balls
//     when both are among the k least loaded.
//   - The k least loaded are ranked by the loads at the step's start (the
//     k balls of a step are placed together); ties between equal loads are
//     broken uniformly at random — the loop keeps the earlier slot, which
//     is the same in law because the slots are i.i.d. (kernels/dchoice.go).
//   - balloc counts balls (--balls m places exactly m): a step's balls go
//     to its slots least loaded first, so the last step, cut to fit m, fills
//     its lightest slots, and a checkpoint may fall inside a step. Results
//     report the bins sampled (Result.Samples: d a step).
//
// k = 1 is d-choice and runs its loops (the same stream: d
// PCG32.Bounded(n) a step); k = d puts a ball on every slot, One-Choice
// in law after whole steps (a step cut by m or a checkpoint has filled its
// lightest slots first). 1 ≤ k ≤ d ≤ bins.
//
// Direct engine: kernels.KDChoice, d PCG32.Bounded(n) a step. The rule reads
// the sampled loads only, so the histogram engine runs it exactly, step by
// step on ranks (kernels.LevelsKDChoice). Fluid limit below. --batch b
// (b-Batch's setting, batch.go): the slots ranked by their loads at the
// batch's start.

// KDChoice is (k,d)-choice.
type KDChoice struct {
	K, D    int
	Batch   uint64  // balls per batch (b-Batch's setting, batch.go); 1: none
	Delayed Delayed // τ-Delay's setting, --delay fixed (delay.go); τ = 0: none
}

var kdChoiceEntry = &Entry{
	Name: "kd-choice", Order: 23,
	Summary: "d uniform bins a step (with replacement), one ball into each of the k least loaded",
	Source:  "Peres, Talwar, Wieder 2010 (SODA: (k,d)-choice)",
	Reports: []*result.Kind{result.SamplesKind},
	New:     func() Process { return &KDChoice{} },
}

func init() { Register(kdChoiceEntry) }

func (*KDChoice) Entry() *Entry { return kdChoiceEntry }

func (p *KDChoice) Params() []*Param {
	return append([]*Param{
		DParam(&p.D, "kd-choice: bins sampled a step, 1 ≤ d ≤ bins"),
		IntWant("k", "kd-choice: balls a step K, one into each of the K least loaded of its d samples, 1 ≤ K ≤ d", &p.K, 1, 1<<20,
			"an integer in [1, d]").
			Listed().Need("balls a step K, 1 ≤ K ≤ d: one into each of the K least loaded of the d samples"),
		BatchParam(&p.Batch),
	}, p.Delayed.params(p.Entry().Name)...)
}

func (p *KDChoice) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	if p.K > p.D {
		return fmt.Errorf("--k %d exceeds --d %d: want 1 ≤ k ≤ d (the k least loaded of d samples)", p.K, p.D)
	}
	if uint64(p.D) > su.Bins {
		return fmt.Errorf("--d %d exceeds --bins %d: want 1 ≤ d ≤ bins", p.D, su.Bins)
	}
	if err := checkBatch(p.Entry().Name, p.Batch, su, 1); err != nil {
		return err
	}
	return checkFixedDelay(p.Entry().Name, &p.Delayed, su, p.Batch)
}

// Memory: the step's scratch, a few words a sample (d ≤ bins).
func (p *KDChoice) Footprint(f *units.Footprint, m Mem) {
	f.Add(fmt.Sprintf("--d %d", p.D), "lower --d", units.Mul(uint64(p.D), 48))
	batchMemory(p.Batch, f, m)
	p.Delayed.memory(f, m)
}

// dChoice is the d-choice process k = 1 runs.
func (p *KDChoice) dChoice() *DChoice { return &DChoice{D: p.D, Dims: 1, Populated: 1, Batch: 1} }

type kdChoiceLoop[L kernels.Load] struct {
	r  *kernels.PCG32
	st *kernels.KDState
}

func (l *kdChoiceLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.KDChoice(loads, l.r, c, l.st, maxLoad)
}

func (l *kdChoiceLoop[L]) Samples() uint64 { return l.st.Samples }

// dChoiceCounted is d-choice's stepper (k = 1), counting d samples a ball.
type dChoiceCounted[L kernels.Load] struct {
	inner    Stepper[L]
	d, balls uint64
}

func (l *dChoiceCounted[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	c, maxLoad = l.inner.Step(loads, t, c, maxLoad)
	l.balls += c
	return c, maxLoad
}

func (l *dChoiceCounted[L]) Samples() uint64 { return l.d * l.balls }

func kdChoiceDirect[L kernels.Load](p *KDChoice, tr *Trial) Stepper[L] {
	if p.Batch > 1 { // k = 1 too: d-choice's batches ball for ball, counted
		return &kdChoiceBatched[L]{newBatchStart[L](tr, p.Batch), tr.Choices, kernels.NewKDState(p.K, p.D)}
	}
	if p.Delayed.on() { // k = 1 too: d-choice reading every sample τ balls old
		return &kdChoiceDelayed[L]{tr.Choices, kernels.NewKDState(p.K, p.D), delayState[L](&p.Delayed, tr)}
	}
	if p.K == 1 {
		return &dChoiceCounted[L]{inner: dChoiceDirect[L](p.D, 1, tr), d: uint64(p.D)}
	}
	return &kdChoiceLoop[L]{tr.Choices, kernels.NewKDState(p.K, p.D)}
}

func (p *KDChoice) Direct32(tr *Trial) Stepper[uint32] { return kdChoiceDirect[uint32](p, tr) }
func (p *KDChoice) Direct64(tr *Trial) Stepper[uint64] { return kdChoiceDirect[uint64](p, tr) }

type kdChoiceLevels struct {
	r  *kernels.PCG32
	st *kernels.KDState
}

func (l *kdChoiceLevels) Step(lv *kernels.Levels, _, want uint64) uint64 {
	c := min(want, Chunk)
	kernels.LevelsKDChoice(lv, l.r, c, l.st)
	return c
}

func (l *kdChoiceLevels) Samples() uint64 { return l.st.Samples }

// dChoiceLevelsCounted is d-choice's level stepper (k = 1), counting.
type dChoiceLevelsCounted struct {
	inner    LevelStepper
	d, balls uint64
}

func (l *dChoiceLevelsCounted) Step(lv *kernels.Levels, t, want uint64) uint64 {
	c := l.inner.Step(lv, t, want)
	l.balls += c
	return c
}

func (l *dChoiceLevelsCounted) Samples() uint64 { return l.d * l.balls }

func (p *KDChoice) Levels(tr *Trial) LevelStepper {
	if p.K == 1 {
		return &dChoiceLevelsCounted{inner: p.dChoice().Levels(tr), d: uint64(p.D)}
	}
	return &kdChoiceLevels{tr.Choices, kernels.NewKDState(p.K, p.D)}
}

// HistogramSeconds: k = 1 is d-choice's; else step by step, d ranks and
// their levels a step and a move a ball: k = 2, d = 4 ran 63 ns a ball at
// n = 10^6, m = 10^8, where two-thinning ran 18.4 (its 8.51 of
// core/choose.go's table): scaled, 29 ns, about 11.5 ns a rank and 6 a move.
func (p *KDChoice) HistogramSeconds(n, m, k uint64) float64 {
	if p.K == 1 {
		return p.dChoice().HistogramSeconds(n, m, k)
	}
	return float64(m) * (11.5e-9*float64(p.D)/float64(p.K) + 6e-9)
}

// DirectFactor: d/k random reads a ball, staged as two-choice's are: k = 2,
// d = 4 ran 2.1 to 2.5 times as long a ball as two-choice at n = 10^6,
// m = 2·10^8, in the same runs; so 1.15·d/k.
func (p *KDChoice) DirectFactor() float64 {
	if p.K == 1 {
		return p.dChoice().DirectFactor()
	}
	return 1.15 * float64(p.D) / float64(p.K)
}

// Fluid solves the mean-field limit (n → ∞, where a step's d samples are
// distinct bins). With s_j the fraction of bins at load ≥ j, the number A_j
// of a step's samples below load j is Binomial(d, 1 − s_j), and of the k
// kept slots (k − A_j)⁺ are at load ≥ j; so (k − A_{i−1})⁺ − (k − A_i)⁺ of
// them are at load i − 1 and move up. A step is k balls, so per unit time
// t = balls/n:
//
//	ds_i/dt = (E(k − A_{i−1})⁺ − E(k − A_i)⁺) / k,
//	E(k − A)⁺ = Σ_{a<k} (k − a)·C(d, a)·(1 − s)^a·s^(d−a).
//
// k = 1 is d-choice's s_{i−1}^d − s_i^d.
func (p *KDChoice) Fluid(bins, balls uint64) (theory.Profile, error) {
	if p.Batch > 1 {
		return theory.Profile{}, fmt.Errorf("no fluid limit for kd-choice in batches")
	}
	if err := p.Delayed.fluidWhy(p.Entry().Name); err != nil {
		return theory.Profile{}, err
	}
	k, d := p.K, p.D
	binom := make([]float64, k)
	for a := range binom {
		binom[a] = math.Exp(lchoose(d, a))
	}
	short := func(s float64) float64 { // E(k − A)⁺, A ~ Binomial(d, 1 − s)
		sum := 0.0
		for a, c := range binom {
			sum += float64(k-a) * c * math.Pow(1-s, float64(a)) * math.Pow(s, float64(d-a))
		}
		return sum
	}
	return theory.Solve(1, float64(balls)/float64(bins), theory.Step(d), nil,
		func(_ float64, w *theory.Window, ds [][]float64) {
			for j := range ds[0] {
				i := w.Base() + j
				ds[0][j] = (short(w.At(0, i-1)) - short(w.At(0, i))) / float64(k)
			}
		}), nil
}

// lchoose is log C(d, a).
func lchoose(d, a int) float64 {
	x, _ := math.Lgamma(float64(d + 1))
	y, _ := math.Lgamma(float64(a + 1))
	z, _ := math.Lgamma(float64(d - a + 1))
	return x - y - z
}

// kd-choice in batches (--batch b, batch.go): the d samples of a step
// ranked by their frozen loads; k = 1 is d-choice's batches.
//
// Delayed (--tau T --delay fixed, delay.go): the d slots of a step ranked
// by their loads τ balls ago (ties by position, as the undelayed loop), one
// ball on each of the k first; k = 1 is d-choice reading every sample τ
// balls old.

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

func (p *KDChoice) InitialWhy() string { return p.Delayed.initialWhy(p.Entry().Name) }

type kdChoiceDelayed[L kernels.Load] struct {
	r     *kernels.PCG32
	st    *kernels.KDState
	delay *kernels.Delay[L]
}

func (l *kdChoiceDelayed[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.DelayedKDChoice(loads, l.r, c, l.st, l.delay, maxLoad)
}

func (l *kdChoiceDelayed[L]) Samples() uint64 { return l.st.Samples }
