package process

import (
	"fmt"

	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// τ-Delay as a setting (Los and Sauerwald, "Balanced allocations with the
// choice of noise", PODC 2022, §2, for Two-Choice): every
// load a process reads may be up to τ balls old, --delay choosing how old,
// as tau-delay reads them (taudelay.go, kernels/delay.go). d-choice
// (two-choice with it), one-plus-beta, quantile, mixed-quantile and
// two-thinning take --tau T --delay … this way, and k-thinning --tau T with
// --delay fixed (kthinning.go); --tau 0 (the default) is the process itself,
// its own loops. What each reads, delayed:
//
//   - d-choice: each of the d loads at its own age (uniform: d independent
//     ages a ball, as tau-delay draws two; empirical and replay: one age a
//     ball for all its reads); adversarial: the adversary shows each
//     sample at any load it had in the window and sends the ball to the
//     heaviest sample it can make win (kernels/delay_choice.go); d = 2 is
//     tau-delay ball for ball, its own loops.
//   - one-plus-beta: a two-choice step as d-choice d = 2; a one-choice
//     step reads nothing.
//   - quantile, mixed-quantile: the rank test on the load vector as it was
//     τ balls ago, as in batches it is made on the vector at the batch's
//     start; --delay fixed only (other ages would rank a bin in a vector of
//     another moment per read, which has no O(1) form here).
//   - two-thinning: the first sample's load at its age against t/n + θ for
//     the t balls placed so far (the ball's number is known exactly; only
//     loads are outdated); adversarial: the adversary sees both samples and
//     sends the ball to the heavier when the window allows either outcome.
//
// Direct engine only (a bin's pending placements tell it apart, as for
// tau-delay); unit balls, except two-choice, which is tau-delay and takes
// --weights. Not with --batch: a batch is a delay that resets at batch ends,
// and the two at once is no process of the papers.

// Delayed is the τ-Delay setting of a process: τ = 0 is none.
type Delayed struct {
	Tau          uint64 // the oldest a read may be, in balls
	Delay        kernels.DelayMode
	Ages         *Ages  // --delay empirical: the law of an age
	AgesSource   string // where it came from, for output
	Replay       []uint32
	ReplaySource string
	ages         *kernels.Ages
}

// on reports whether reads are delayed (after check: τ ≥ 1, or the largest
// age of --ages or --replay).
func (s *Delayed) on() bool { return s.Tau > 0 }

// parseTau reads --tau: a count of balls below 2^32 − 1.
func parseTau(v string) (uint64, error) {
	x, err := units.ParseCount(v)
	if err != nil {
		return 0, fmt.Errorf("--tau %v", err)
	}
	if x > 1<<32-2 {
		return 0, fmt.Errorf("--tau %d: want at most 4294967294", x)
	}
	return x, nil
}

// parseDelay reads --delay.
func parseDelay(v string) (kernels.DelayMode, error) {
	for i, name := range delayModes {
		if v == name {
			return kernels.DelayMode(i), nil
		}
	}
	return 0, fmt.Errorf("--delay %q: want fixed, uniform, adversarial, empirical or replay", v)
}

// params are --tau, --delay, --ages and --replay of a process named name,
// as tau-delay has them, with --tau 0 (no delay) the default.
func (s *Delayed) params(name string) []*Param {
	params := []*Param{
		Custom("tau", name+": with --tau T ≥ 1 every load read may be up to T balls old (τ-Delay's setting; 0: none)", func(v string) error {
			x, err := parseTau(v)
			s.Tau = x
			return err
		}, func() any { return s.Tau }).Def("0").Listed().ShownWhen(s.on),
		Custom("delay", name+" with --tau: how old each read is: fixed (τ), uniform (in [0, τ]), adversarial, empirical (drawn from --ages) or replay (one age per ball, from --replay)", func(v string) error {
			x, err := parseDelay(v)
			s.Delay = x
			return err
		}, func() any { return delayModes[s.Delay] }).Def("fixed").Listed().ShownWhen(s.on),
		Custom("ages", name+" --delay empirical: a file of \"age count\" lines, the law of read ages in balls", func(v string) error {
			ages, err := ReadAges(v)
			if err != nil {
				return err
			}
			s.Ages, s.AgesSource = ages, v
			return nil
		}, func() any { return s.AgesSource }).Need("a file of ages (with --delay empirical)").
			OptionalWhen(func() bool { return s.Delay != kernels.DelayEmpirical || s.Ages != nil }).
			ShownWhen(func() bool { return s.Delay == kernels.DelayEmpirical }),
		Custom("replay", name+" --delay replay: a file of ages in balls, one per ball in ball order (balloc concurrent --save-ages writes one)", func(v string) error {
			ages, err := ReadReplay(v)
			if err != nil {
				return err
			}
			s.Replay, s.ReplaySource = ages, v
			return nil
		}, func() any { return s.ReplaySource }).Need("a file of per-ball ages (with --delay replay)").
			OptionalWhen(func() bool { return s.Delay != kernels.DelayReplay || s.Replay != nil }).
			ShownWhen(func() bool { return s.Delay == kernels.DelayReplay }),
	}
	for _, q := range params {
		q.AsSetting()
	}
	return params
}

// delayRule is what a process allows of the setting.
type delayRule struct {
	fixedOnly bool // quantile: --delay fixed only
	weighted  bool // takes --weights with a delay (two-choice, as tau-delay)
	batch     uint64
}

// check validates the setting for process name and sets τ from --ages or
// --replay.
func (s *Delayed) check(name string, su *Setup, rule delayRule) error {
	mode, tauSet := s.Delay, su.Given["tau"]
	empirical, replay := mode == kernels.DelayEmpirical, mode == kernels.DelayReplay
	switch {
	case !empirical && s.Ages != nil:
		return fmt.Errorf("--ages applies to --delay empirical only")
	case !replay && s.Replay != nil:
		return fmt.Errorf("--replay applies to --delay replay only")
	case (empirical || replay) && tauSet:
		return fmt.Errorf("--tau: with --delay %s τ is the largest age in --%s; leave --tau out", delayModes[mode], map[bool]string{true: "ages", false: "replay"}[empirical])
	case su.Given["delay"] && !tauSet && !empirical && !replay:
		return fmt.Errorf("--delay %s: %s reads loads as they are unless --tau T ≥ 1 says how old they may be", delayModes[mode], name)
	}
	switch {
	case empirical:
		a, err := kernels.NewAges(s.Ages.Age, s.Ages.Count, s.Ages.Tau)
		if err != nil {
			return fmt.Errorf("--ages: %v", err)
		}
		s.ages, s.Tau = a, s.Ages.Tau
	case replay:
		if s.Replay == nil {
			return fmt.Errorf("%s --delay replay needs --replay: a file of per-ball ages", name)
		}
		if uint64(len(s.Replay)) != su.Balls {
			return fmt.Errorf("--replay %s holds %d ages and --balls is %d: give one age per ball (set --balls %d)",
				s.ReplaySource, len(s.Replay), su.Balls, len(s.Replay))
		}
		tau := uint32(0)
		for _, a := range s.Replay {
			tau = max(tau, a)
		}
		s.Tau = uint64(tau)
	}
	flag := "--tau " + units.FormatCount(s.Tau)
	if empirical || replay {
		flag = "--delay " + delayModes[mode]
	}
	switch {
	case !s.on() && !(empirical || replay):
		return nil
	case rule.batch > 1:
		return fmt.Errorf("%s with --batch %d: give one of them (a batch is a delay that resets at batch ends; both at once is not defined)", flag, rule.batch)
	case rule.fixedOnly && mode != kernels.DelayFixed:
		return fmt.Errorf("--delay %s: %s's rank test reads the whole load vector; with --tau it reads the vector as of τ balls ago (--delay fixed) only", delayModes[mode], name)
	case (replay || !rule.weighted) && (!su.Weights.Unit() || su.Weights.Kind == WeightsConst):
		return fmt.Errorf("--weights: %s with %s places unit balls (tau-delay, two-choice with a delay, takes --weights)", name, flag)
	}
	return nil
}

// tauDelay is the tau-delay process this setting makes of Two-Choice.
func (s *Delayed) tauDelay() *TauDelay {
	return &TauDelay{*s}
}

// delayState is a trial's delay state, for its bins and balls.
func delayState[L kernels.Load](s *Delayed, tr *Trial) *kernels.Delay[L] {
	if s.Delay == kernels.DelayReplay {
		return kernels.NewReplay[L](int(tr.Bins), s.Tau)
	}
	return kernels.NewDelay[L](int(tr.Bins), s.Tau, s.Delay, false, s.ages, tr.Balls)
}

// memory adds the delay state's bytes: tau-delay's.
func (s *Delayed) memory(f *units.Footprint, m Mem) {
	if s.on() {
		s.tauDelay().Footprint(f, m)
	}
}

// content is tau-delay's: the law of --ages and the digest of --replay.
func (s *Delayed) content() (map[string]string, []string) { return s.tauDelay().Content() }

// histogramWhy keeps a delayed process off the histogram engine.
// initialWhy: the delay's record of past loads starts from empty bins, as
// tau-delay's does (taudelay.go), so a delayed process starts from --initial
// zero only.
func (s *Delayed) initialWhy(name string) string {
	if !s.on() {
		return ""
	}
	return name + " with --tau reads a record of past loads that starts from empty bins; it starts from --initial zero only"
}

func (s *Delayed) histogramWhy(name string) string {
	if s.on() {
		return name + " with --tau runs on the direct engine (a bin's pending placements tell it apart from others at its load)"
	}
	return ""
}

// fluidWhy refuses a fluid limit for a delayed process.
func (s *Delayed) fluidWhy(name string) error {
	if s.on() {
		return fmt.Errorf("no fluid limit for %s with --tau", name)
	}
	return nil
}

// delayedDChoiceLoop runs d-choice (coin nil) or (1+β) with delayed reads.
type delayedDChoiceLoop[L kernels.Load] struct {
	tr     *Trial
	d      int
	coin   *kernels.Bernoulli
	delay  *kernels.Delay[L]
	replay []uint32
}

func (l *delayedDChoiceLoop[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	var rp []uint32
	if l.replay != nil {
		rp = l.replay[t : t+c]
	}
	return c, kernels.DelayedDChoice(loads, l.tr.Choices, l.tr.Noise, c, l.d, l.coin, l.delay, rp, maxLoad)
}

// delayedDirect is the stepper of d-choice d ≥ 2 (coin nil) or (1+β) with
// the setting on: tau-delay's own loops at d = 2 without a coin.
func delayedDirect[L kernels.Load](s *Delayed, d int, coin *kernels.Bernoulli, tr *Trial) Stepper[L] {
	if d == 2 && coin == nil {
		return tauDelayDirect[L](s.tauDelay(), tr)
	}
	return &delayedDChoiceLoop[L]{tr, d, coin, delayState[L](s, tr), s.Replay}
}

type delayedQuantileLoop[L kernels.Load] struct {
	r     *kernels.PCG32
	q     *kernels.QuantileCounts
	coin  *kernels.Bernoulli
	delay *kernels.Delay[L]
}

func (l *delayedQuantileLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.DelayedQuantile(loads, l.r, c, l.q, l.coin, l.delay, maxLoad)
}

type delayedThinningLoop[L kernels.Load] struct {
	tr     *Trial
	thin   Thinning
	delay  *kernels.Delay[L]
	replay []uint32
}

func (l *delayedThinningLoop[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	limit, last := l.thin.At(t)
	c = min(c, last-t+1)
	var rp []uint32
	if l.replay != nil {
		rp = l.replay[t : t+c]
	}
	return c, kernels.DelayedTwoThinning(loads, l.tr.Choices, l.tr.Noise, c, limit, l.delay, rp, maxLoad)
}

// batchedThinningLoop is Two-Thinning in batches: the balls of a batch
// compare the loads at its start with the limit for the balls placed then,
// t₀/n + θ (kernels.BatchedTwoThinning).
type batchedThinningLoop[L kernels.Load] struct {
	r          *kernels.PCG32
	thin       Thinning
	batch      *kernels.Batch[L]
	b          uint64
	limit      uint64 // for batches starting at W0 + t₀ in [first, end]
	first, end uint64
	w0         uint64 // --initial's balls: the limit reads the average (W0 + t₀)/n
}

func newBatchedThinning[L kernels.Load](r *kernels.PCG32, thin Thinning, bins int, b, w0 uint64) *batchedThinningLoop[L] {
	l := &batchedThinningLoop[L]{r: r, thin: thin, batch: kernels.NewBatch[L](bins, b, false), b: b, w0: w0}
	l.limit, l.end = thin.At(w0)
	l.first = w0
	return l
}

func (l *batchedThinningLoop[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	if t0 := l.w0 + t - t%l.b; t0 < l.first || t0 > l.end {
		l.limit, l.end = l.thin.At(t0)
		l.first = t0
	}
	c = min(c, l.b-t%l.b)
	return c, kernels.BatchedTwoThinning(loads, l.r, c, l.limit, l.batch, maxLoad)
}

func (l *batchedThinningLoop[L]) BatchEnds(n int) (uint64, float64) { return l.batch.BatchEnds(n) }

// Start freezes --initial's loads for the first batch.
func (l *batchedThinningLoop[L]) Start(loads []L) { l.batch.Start(loads) }

// checkFixedDelay: --tau with --delay fixed only, then the setting's checks.
func checkFixedDelay(name string, s *Delayed, su *Setup, batch uint64) error {
	if mode := s.Delay; mode != kernels.DelayFixed {
		return fmt.Errorf("--delay %s: %s with --tau reads every sample as it was τ balls ago (--delay fixed) only", delayModes[mode], name)
	}
	return s.check(name, su, delayRule{batch: batch})
}
