package process

import (
	"fmt"
	"math"
	"math/big"

	"github.com/balloc/balloc/core/optimal"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// Two-Thinning (Feldheim and Gurel-Gurevich, "The power of thinning in
// balanced allocation", 2021; Los, Sauerwald and Sylvester, "Balanced
// allocations: caching and packing, twinning and thinning", SODA 2022): a
// ball samples a uniform bin and keeps it if its load is below t/n + θ (ball
// t+1 sees t balls placed); else it goes to a second uniform bin. The limit
// is computed exactly in rationals (thinning, below), and is constant for
// stretches of about n balls, which each run as one loop call.
//
// Direct engine: kernels.TwoThinning; histogram engine: ball by ball on
// ranks (kernels.LevelsTwoThinning). Fluid limit: core/theory. balloc
// concurrent: ShapeThinning.
//
// --batch B: every ball of a batch compares its first bin's load at the
// batch's start with t₀/n + θ, t₀ the balls placed at the batch's start —
// all it sees is as it was then (kernels.BatchedTwoThinning). --tau T: the
// first bin's load is read up to τ balls old and compared with t/n + θ for
// the current t (delay.go). Both on the direct engine only.

// TwoThinning is Two-Thinning.
type TwoThinning struct {
	Threshold float64 // θ, relative to the current average
	Batch     uint64  // balls per batch (b-Batch's setting); 1: none
	Delayed   Delayed // τ-Delay's setting (delay.go); τ = 0: none

	Optimal bool            // --threshold optimal (optimalrule.go)
	policy  *optimal.Policy // its table, built by Check
}

var twoThinningEntry = &Entry{
	Name: "two-thinning", Order: 60,
	Summary: "first uniform bin kept if its load < t/n + θ, else a second uniform bin",
	Source:  "Feldheim, Gurel-Gurevich 2021; Los, Sauerwald, Sylvester 2022",
	New:     func() Process { return &TwoThinning{} },
}

func init() { Register(twoThinningEntry) }

func (*TwoThinning) Entry() *Entry { return twoThinningEntry }

func (p *TwoThinning) Params() []*Param {
	return append([]*Param{
		Custom("threshold", "θ: two-thinning keeps the first bin if its load < t/n + θ (any real); or optimal, the exact DP's policy for these n and m",
			func(v string) error {
				if isOptimal(v) {
					p.Optimal = true
					return nil
				}
				x, err := ParseReal(v)
				if err != nil || math.Abs(x) > 1e15 {
					return fmt.Errorf("--threshold %q: want a real number with |θ| ≤ 1e15, or optimal", v)
				}
				p.Threshold, p.Optimal = x, false
				return nil
			}, func() any {
				if p.Optimal {
					return optimalWord
				}
				return p.Threshold
			}).
			Listed().Need("a real θ; the first bin is kept when its load < t/n + θ (or optimal)"),
		BatchParam(&p.Batch),
	}, p.Delayed.params("two-thinning")...)
}

func (p *TwoThinning) Check(su *Setup) error {
	if err := needBins(p, su); err != nil {
		return err
	}
	if err := checkBatch(p.Entry().Name, p.Batch, su, 1); err != nil {
		return err
	}
	if p.Optimal {
		var err error
		p.policy, err = optimalPolicy("--threshold", su, 2, p.Batch, &p.Delayed)
		return err
	}
	return p.Delayed.check(p.Entry().Name, su, delayRule{batch: p.Batch})
}

// HistogramWhy: batches and delays run on the direct engine only.
func (p *TwoThinning) HistogramWhy() string {
	if p.Batch > 1 {
		return "two-thinning in batches (--batch) runs on the direct engine"
	}
	return p.Delayed.histogramWhy(p.Entry().Name)
}

func (p *TwoThinning) Content() (map[string]string, []string) { return p.Delayed.content() }

// Memory: the frozen loads of batches, or the delay's state.
func (p *TwoThinning) Footprint(f *units.Footprint, m Mem) {
	if p.Batch > 1 {
		f.Add(m.BinsCulprit, m.BinsHint, kernels.BatchMemory(m.Bins, p.Batch, int(m.LoadBytes), m.Weighted))
	}
	p.Delayed.memory(f, m)
}

// w0 is --initial's balls: ball t+1 reads the current average (w0 + t)/n
// (initial.go).
type twoThinningLoop[L kernels.Load] struct {
	r    *kernels.PCG32
	thin Thinning
	w0   uint64
}

func (l *twoThinningLoop[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	limit, last := l.thin.At(l.w0 + t)
	c = min(c, last-(l.w0+t)+1)
	return c, kernels.TwoThinning(loads, l.r, c, limit, maxLoad)
}

func twoThinningDirect[L kernels.Load](p *TwoThinning, tr *Trial) Stepper[L] {
	if p.Optimal {
		return newOptimalLoop[L](p.policy, tr)
	}
	thin := NewThinning(tr.Bins, p.Threshold)
	switch {
	case p.Batch > 1:
		return newBatchedThinning[L](tr.Choices, thin, int(tr.Bins), p.Batch, tr.Initial)
	case p.Delayed.on():
		return &delayedThinningLoop[L]{tr, thin, delayState[L](&p.Delayed, tr), p.Delayed.Replay}
	}
	return &twoThinningLoop[L]{tr.Choices, thin, tr.Initial}
}

func (p *TwoThinning) Direct32(tr *Trial) Stepper[uint32] { return twoThinningDirect[uint32](p, tr) }
func (p *TwoThinning) Direct64(tr *Trial) Stepper[uint64] { return twoThinningDirect[uint64](p, tr) }

type twoThinningLevels struct {
	r    *kernels.PCG32
	thin Thinning
	w0   uint64
}

func (l *twoThinningLevels) Step(lv *kernels.Levels, t, want uint64) uint64 {
	limit, last := l.thin.At(l.w0 + t)
	c := min(want, Chunk, last-(l.w0+t)+1)
	kernels.LevelsTwoThinning(lv, l.r, c, limit)
	return c
}

func (p *TwoThinning) Levels(tr *Trial) LevelStepper {
	if p.Optimal {
		return newOptimalLevels(p.policy, tr)
	}
	return &twoThinningLevels{tr.Choices, NewThinning(tr.Bins, p.Threshold), tr.Initial}
}

// HistogramSeconds: 8.51 ns a ball on ranks (core/choose.go).
func (*TwoThinning) HistogramSeconds(_, m, _ uint64) float64 { return float64(m) * 8.51e-9 }

// DirectFactor: 6.26 ns a ball against two-choice's 5.46 at n = 10^6.
func (*TwoThinning) DirectFactor() float64 { return 6.26 / 5.46 }

func (p *TwoThinning) Fluid(bins, balls uint64) (theory.Profile, error) {
	if p.Optimal {
		return theory.Profile{}, fmt.Errorf("no fluid limit for two-thinning --threshold optimal (a policy of the whole load vector)")
	}
	if p.Batch > 1 {
		return theory.Profile{}, fmt.Errorf("no fluid limit for two-thinning in batches")
	}
	if err := p.Delayed.fluidWhy(p.Entry().Name); err != nil {
		return theory.Profile{}, err
	}
	return theory.FluidTwoThinning(p.Threshold, float64(balls)/float64(bins)), nil
}

func (p *TwoThinning) Concurrent() Rule {
	return Rule{Shape: ShapeThinning, Theta: p.Threshold, Params: []RuleParam{{"threshold", "θ; a ball keeps its first bin if that bin's load < t/n + θ, t the balls placed so far as the workers' striped counts give it, else takes a second (any real)"}}}
}

// Thinning computes Two-Thinning's acceptance limit exactly. Ball t+1 sees
// t balls placed, average t/n, and keeps its first bin when load < t/n + θ;
// for integer loads that is load < ⌈t/n + θ⌉. The limit is constant for
// stretches of about n balls, which the engine runs as one loop call.
type Thinning struct {
	n     *big.Rat
	theta *big.Rat // exact: a float64 is a dyadic rational
}

// NewThinning is the limit on n bins for θ.
func NewThinning(n uint64, theta float64) Thinning {
	return Thinning{n: new(big.Rat).SetInt(new(big.Int).SetUint64(n)), theta: new(big.Rat).SetFloat64(theta)}
}

// At returns the limit for ball t+1 and the last t (inclusive) for which it
// holds. A limit ≤ 0 is returned as 0: no load is below it.
func (th Thinning) At(t uint64) (limit, last uint64) {
	x := new(big.Rat).SetFrac(new(big.Int).SetUint64(t), th.n.Num())
	x.Add(x, th.theta)
	c := ceilRat(x)
	// t/n + θ ≤ c ⇔ t ≤ (c − θ)·n.
	bound := new(big.Rat).Sub(new(big.Rat).SetInt(c), th.theta)
	bound.Mul(bound, th.n)
	lastInt := floorRat(bound)
	last = math.MaxUint64
	if lastInt.IsUint64() {
		last = lastInt.Uint64()
	}
	if c.Sign() <= 0 {
		return 0, last
	}
	if !c.IsUint64() {
		return math.MaxUint64, last
	}
	return c.Uint64(), last
}

// floorRat is ⌊x⌋: big.Int.Div is Euclidean, which is the floor for the
// positive denominator of a Rat.
func floorRat(x *big.Rat) *big.Int {
	return new(big.Int).Div(x.Num(), x.Denom())
}

func ceilRat(x *big.Rat) *big.Int {
	q := floorRat(x)
	if !x.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// InitialWhy: delayed, its record of past loads starts empty (delay.go).
func (p *TwoThinning) InitialWhy() string {
	if p.Optimal {
		return optimalWhy("two-thinning --threshold", "--initial is not built with it")
	}
	return p.Delayed.initialWhy(p.Entry().Name)
}

// Placement: Two-Thinning with t read as the balls present — the first bin
// is kept when its load is below (balls present)/n + θ, the current
// average plus θ (kernels/placer.go), which is the static rule while no
// ball has left. The deletions model passes the balls present as t to the
// static steppers, so they run unchanged.
func (p *TwoThinning) Placement() (kernels.Placement, string) {
	if p.Optimal {
		return kernels.Placement{}, optimalWhy("--threshold", "balls that leave are not built with it")
	}
	if why := settingWhy(p.Batch, &p.Delayed); why != "" {
		return kernels.Placement{}, why
	}
	return kernels.Placement{D: 2, Beta: 1, Thetas: []float64{p.Threshold}}, ""
}
