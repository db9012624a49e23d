package core

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/balloc/balloc/kernels"
)

// The direct engine: a flat array of loads, one specialised loop per
// process, chosen once per chunk (never per ball).

const (
	// unitChunk balls run between progress reports: a few milliseconds.
	unitChunk = 1 << 22
	// weightBuffer is how many ball weights are drawn ahead at a time.
	weightBuffer = 1 << 13
)

// checkpointsOf returns the ball counts at which to snapshot: K evenly
// spaced points ⌊k·m/K⌋, k = 1..K, and always m itself (last).
func checkpointsOf(m, k uint64) []uint64 {
	pts := make([]uint64, 0, k+1)
	for i := uint64(1); i <= k; i++ {
		hi, lo := bits.Mul64(i, m)
		q, _ := bits.Div64(hi, lo, k) // hi < k since i ≤ k: no overflow
		pts = append(pts, q)
	}
	if len(pts) == 0 || pts[len(pts)-1] != m {
		pts = append(pts, m)
	}
	return pts
}

func runDirect(s *Spec, trial uint64, progress func(uint64)) *Result {
	res := &Result{}
	switch {
	case s.Process.Kind == KindIdea || s.Params.Dims > 1:
		runIdea(s, trial, progress, res)
	case !s.Params.Weights.Unit():
		runReal(s, trial, progress, res)
	case s.Balls <= math.MaxUint32:
		runUnit[uint32](s, trial, progress, res)
	default:
		runUnit[uint64](s, trial, progress, res)
	}
	return res
}

// runUnit runs a unit-weight (or constant-weight) trial on integer loads.
// Constant weights w give exactly the unit process scaled by w: every rule
// here compares loads only, and all loads are multiples of w.
func runUnit[L kernels.Load](s *Spec, trial uint64, progress func(uint64), res *Result) {
	loads := make([]L, s.Bins)
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	noise := kernels.TrialStream(s.Seed, trial, kernels.LaneNoise)
	scale := s.Params.Weights.Scale()
	kind, d := s.effective()
	var coin kernels.Bernoulli
	if kind == KindOnePlusBeta {
		var err error
		if coin, err = kernels.NewBernoulli(s.Params.Beta); err != nil {
			panic(err) // NewSpec checked 0 ≤ β ≤ 1
		}
	}
	var thin thinning
	if kind == KindTwoThinning {
		thin = newThinning(s.Bins, s.Params.Threshold)
	}
	// For integer loads, |x − y| ≤ g ⇔ |x − y| ≤ ⌊g⌋.
	g := uint64(math.Floor(s.Params.G))
	rule := s.gRule()
	var delay *kernels.Delay[L]
	if kind == KindTauDelay {
		if s.Params.Delay == kernels.DelayReplay {
			delay = kernels.NewReplay[L](len(loads), s.Params.Tau)
		} else {
			delay = kernels.NewDelay[L](len(loads), s.Params.Tau, s.Params.Delay, false, s.ages, s.Balls)
		}
	}
	var batch *kernels.Batch[L]
	if kind == KindBBatch {
		batch = kernels.NewBatch[L](len(loads), s.Params.Batch, false)
	}
	var structure *graphRunner
	switch kind {
	case KindGraphical, KindKPGroups, KindHypergraph:
		structure = newGraphRunner[L](s, trial)
	}
	var maxLoad L
	t := uint64(0)
	if s.Checkpoints > 0 {
		res.Checkpoints = make([]Checkpoint, 0, s.Checkpoints) // as TrialFootprint counts them: no doubling
	}
	for _, target := range checkpointsOf(s.Balls, s.Checkpoints) {
		for t < target {
			c := min(target-t, unitChunk)
			switch kind {
			case KindGraphical, KindKPGroups, KindHypergraph:
				c, maxLoad = runGraph(s, structure, loads, &rng, t, c, maxLoad)
			case KindOneChoice:
				maxLoad = kernels.OneChoice(loads, &rng, c, maxLoad)
			case KindDChoice:
				if d == 2 {
					maxLoad = kernels.TwoChoice(loads, &rng, c, maxLoad)
				} else {
					maxLoad = kernels.DChoice(loads, &rng, c, d, maxLoad)
				}
			case KindOnePlusBeta:
				maxLoad = kernels.OnePlusBeta(loads, &rng, c, &coin, maxLoad)
			case KindAlwaysGoLeft:
				maxLoad = kernels.AlwaysGoLeft(loads, &rng, c, d, maxLoad)
			case KindTwoThinning:
				limit, last := thin.at(t)
				c = min(c, last-t+1)
				maxLoad = kernels.TwoThinning(loads, &rng, c, limit, maxLoad)
			case KindGAdvComp, KindGMyopicComp:
				maxLoad = kernels.GComp(loads, &rng, &noise, c, g, rule, maxLoad)
			case KindSigmaNoisyLoad:
				maxLoad = kernels.SigmaNoisyLoad(loads, &rng, &noise, c, s.Params.Sigma, maxLoad)
			case KindRhoNoisyComp:
				maxLoad = kernels.RhoNoisyComp(loads, &rng, &noise, c, s.rhoTable, maxLoad)
			case KindTauDelay:
				if s.Params.Delay == kernels.DelayReplay {
					maxLoad = kernels.TauDelayReplay(loads, &rng, s.Params.Replay[t:t+c], delay, maxLoad)
				} else {
					maxLoad = kernels.TauDelay(loads, &rng, &noise, c, delay, maxLoad)
				}
			case KindBBatch:
				maxLoad = kernels.BBatch(loads, &rng, c, batch, maxLoad)
			default:
				panic("core: no direct loop for " + s.Process.Name)
			}
			t += c
			progress(c)
		}
		snap := measureUnit(loads, t, scale, s.Alpha, maxLoad)
		if s.Checkpoints > 0 {
			res.Checkpoints = append(res.Checkpoints, snap.checkpoint())
		}
		if t == s.Balls {
			res.fill(snap, s.Alpha)
		}
	}
	if batch != nil {
		// max_gap of b-batch also covers every batch end (when the batch's loads are published).
		if ends, g := batch.BatchEnds(len(loads)); ends > 0 {
			res.MaxGap = max(res.MaxGap, g*scale)
		}
	}
	if s.KeepLoads {
		res.Loads = make([]float64, len(loads))
		for i, v := range loads {
			res.Loads[i] = float64(v) * scale
		}
	}
}

// effective returns the loop that runs s and its d. Degenerate parameters
// are run by the loop of the process they equal, which consumes the choice
// stream the same way: d = 1 is one-choice; β = 0 one-choice and β = 1
// two-choice (no coin is flipped at either end); τ = 0 and b = 1 are
// two-choice.
func (s *Spec) effective() (Kind, int) {
	kind, d := s.Process.Kind, s.Params.D
	switch {
	case kind == KindDChoice && d == 1,
		kind == KindOnePlusBeta && s.Params.Beta == 0:
		return KindOneChoice, 1
	case kind == KindOnePlusBeta && s.Params.Beta == 1,
		kind == KindTauDelay && s.Params.Tau == 0,
		kind == KindBBatch && s.Params.Batch == 1:
		return KindDChoice, 2
	}
	return kind, d
}

func (s *Spec) gRule() kernels.GRule {
	if s.Process.Kind == KindGMyopicComp {
		return kernels.GRandom
	}
	return adversaries[string(s.Params.Adversary)]
}

// runReal runs a trial with random weights on real-valued loads.
func runReal(s *Spec, trial uint64, progress func(uint64), res *Result) {
	loads := make([]float64, s.Bins)
	rng := kernels.TrialStream(s.Seed, trial, kernels.LaneChoices)
	wrng := kernels.TrialStream(s.Seed, trial, kernels.LaneWeights)
	noise := kernels.TrialStream(s.Seed, trial, kernels.LaneNoise)
	buf := make([]float64, weightBuffer)
	kind, d := s.effective()
	rule := s.gRule()
	var delay *kernels.Delay[float64]
	if kind == KindTauDelay {
		delay = kernels.NewDelay[float64](len(loads), s.Params.Tau, s.Params.Delay, true, s.ages, s.Balls)
	}
	var batch *kernels.Batch[float64]
	if kind == KindBBatch {
		batch = kernels.NewBatch[float64](len(loads), s.Params.Batch, true)
	}
	maxLoad := 0.0
	t, pending := uint64(0), uint64(0)
	if s.Checkpoints > 0 {
		res.Checkpoints = make([]Checkpoint, 0, s.Checkpoints) // as TrialFootprint counts them: no doubling
	}
	for _, target := range checkpointsOf(s.Balls, s.Checkpoints) {
		for t < target {
			w := buf[:min(target-t, weightBuffer)]
			fillWeights(w, &wrng, s.Params.Weights)
			switch kind {
			case KindOneChoice:
				maxLoad = kernels.OneChoiceWeighted(loads, &rng, w, maxLoad)
			case KindDChoice:
				maxLoad = kernels.DChoiceWeighted(loads, &rng, w, d, maxLoad)
			case KindGAdvComp, KindGMyopicComp:
				maxLoad = kernels.GCompWeighted(loads, &rng, &noise, w, s.Params.G, rule, maxLoad)
			case KindSigmaNoisyLoad:
				maxLoad = kernels.SigmaNoisyLoadWeighted(loads, &rng, &noise, w, s.Params.Sigma, maxLoad)
			case KindRhoNoisyComp:
				maxLoad = kernels.RhoNoisyCompWeighted(loads, &rng, &noise, w, s.Params.Rho, maxLoad)
			case KindTauDelay:
				maxLoad = kernels.TauDelayWeighted(loads, &rng, &noise, w, delay, maxLoad)
			case KindBBatch:
				maxLoad = kernels.BBatchWeighted(loads, &rng, w, batch, maxLoad)
			default:
				panic("core: no weighted loop for " + s.Process.Name)
			}
			t += uint64(len(w))
			if pending += uint64(len(w)); pending >= unitChunk/8 {
				progress(pending)
				pending = 0
			}
		}
		snap := measureReal(loads, t, s.Alpha)
		if snap.MaxLoad != maxLoad {
			panic("core: the weighted loop's maximum disagrees with the loads")
		}
		if s.Checkpoints > 0 {
			res.Checkpoints = append(res.Checkpoints, snap.checkpoint())
		}
		if t == s.Balls {
			res.fill(snap, s.Alpha)
		}
	}
	if pending > 0 {
		progress(pending)
	}
	if batch != nil {
		if ends, g := batch.BatchEnds(len(loads)); ends > 0 {
			res.MaxGap = max(res.MaxGap, g)
		}
	}
	if s.KeepLoads {
		res.Loads = loads
	}
}

// fillWeights draws the next len(w) ball weights of law wt from the weight
// stream.
func fillWeights(w []float64, wrng *kernels.PCG32, wt Weights) {
	switch wt.Kind {
	case WeightsExp:
		kernels.FillExp(w, wrng, 1/wt.Value) // exp:λ has rate λ
	case WeightsUniform:
		kernels.FillUniform(w, wrng, wt.Value, wt.B)
	case WeightsPareto:
		kernels.FillPareto(w, wrng, wt.Value, (wt.Value-1)/wt.Value) // mean 1
	default:
		for k := range w {
			w[k] = wt.Scale()
		}
	}
}

// thinning computes Two-Thinning's acceptance limit exactly. Ball t+1 sees
// t balls placed, average t/n, and keeps its first bin when load < t/n + θ;
// for integer loads that is load < ⌈t/n + θ⌉. The limit is constant for
// stretches of about n balls, which the engine runs as one loop call.
type thinning struct {
	n     *big.Rat
	theta *big.Rat // exact: a float64 is a dyadic rational
}

func newThinning(n uint64, theta float64) thinning {
	return thinning{n: new(big.Rat).SetInt(new(big.Int).SetUint64(n)), theta: new(big.Rat).SetFloat64(theta)}
}

// at returns the limit for ball t+1 and the last t (inclusive) for which it
// holds. A limit ≤ 0 is returned as 0: no load is below it.
func (th thinning) at(t uint64) (limit, last uint64) {
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
