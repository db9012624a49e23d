package process

import (
	"fmt"

	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/kernels"
)

// τ-Delay (Los and Sauerwald, "Balanced allocations with the choice of
// noise", PODC 2022, §2): a ball samples two uniform bins and compares
// their loads as they were up to τ balls ago; the lesser reading gets the
// ball. --delay says how old each read is: fixed (exactly τ balls, or all
// balls so far while fewer than τ), uniform (an age drawn in [0, τ] per
// read), adversarial (the reading that misleads most within the window),
// empirical (ages drawn from the law in --ages, τ its largest age) or replay
// (one age per ball, in ball order, from --replay or from a balloc
// concurrent run: kernels/replay.go). Direct engine only (kernels/delay.go);
// τ = 0 is Two-Choice's loop, which draws the same stream.

// TauDelay is τ-Delay: Two-Choice under the τ-Delay setting (delay.go),
// whose fields it holds (Delayed) and whose state its loops read.
type TauDelay struct{ Delayed }

var tauDelayEntry = &Entry{
	Name: "tau-delay", Order: 105,
	Summary:  "two uniform bins; each load read as it was up to τ balls ago",
	Source:   "Los, Sauerwald 2022 (Choice of Noise), §2",
	Weighted: true,
	New:      func() Process { return &TauDelay{} },
}

func init() { Register(tauDelayEntry) }

func (*TauDelay) Entry() *Entry { return tauDelayEntry }

// AgeSource is a process whose reads can take their ages from a law or a
// sequence given beside its parameters (core.WithAges, core.WithReplay:
// balloc concurrent's measured ages): tau-delay.
type AgeSource interface {
	SetAges(ages *Ages, source string)
	SetReplay(ages []uint32, source string)
}

// SetAges gives --delay empirical its law of ages, from source.
func (p *TauDelay) SetAges(ages *Ages, source string) { p.Ages, p.AgesSource = ages, source }

// SetReplay gives --delay replay its age per ball, from source.
func (p *TauDelay) SetReplay(ages []uint32, source string) { p.Replay, p.ReplaySource = ages, source }

var delayModes = []string{"fixed", "uniform", "adversarial", "empirical", "replay"} // index = kernels.DelayMode

func (p *TauDelay) Params() []*Param {
	return []*Param{
		Custom("tau", "tau-delay: the oldest a load read may be, in balls, 0 ≤ τ < 2^32 − 1", func(v string) error {
			x, err := parseTau(v)
			p.Tau = x
			return err
		}, func() any { return p.Tau }).Listed().Need("a count τ ≥ 0 of balls (0 is two-choice)").
			OptionalWhen(func() bool { return p.Delay == kernels.DelayEmpirical || p.Delay == kernels.DelayReplay }),
		Custom("delay", "tau-delay: how old each read is: fixed (τ), uniform (in [0, τ]), adversarial, empirical (drawn from --ages) or replay (one age per ball, from --replay)", func(v string) error {
			x, err := parseDelay(v)
			p.Delay = x
			return err
		}, func() any { return delayModes[p.Delay] }).Def("fixed").Listed(),
		Custom("ages", "tau-delay --delay empirical: a file of \"age count\" lines, the law of read ages in balls", func(v string) error {
			ages, err := ReadAges(v)
			if err != nil {
				return err
			}
			p.Ages, p.AgesSource = ages, v
			return nil
		}, func() any { return p.AgesSource }).Need("a file of ages (with --delay empirical)").
			OptionalWhen(func() bool { return p.Delay != kernels.DelayEmpirical || p.Ages != nil }).
			ShownWhen(func() bool { return p.Delay == kernels.DelayEmpirical }),
		Custom("replay", "tau-delay --delay replay: a file of ages in balls, one per ball in ball order (balloc concurrent --save-ages writes one)", func(v string) error {
			ages, err := ReadReplay(v)
			if err != nil {
				return err
			}
			p.Replay, p.ReplaySource = ages, v
			return nil
		}, func() any { return p.ReplaySource }).Need("a file of per-ball ages (with --delay replay)").
			OptionalWhen(func() bool { return p.Delay != kernels.DelayReplay || p.Replay != nil }).
			ShownWhen(func() bool { return p.Delay == kernels.DelayReplay }),
	}
}

func (p *TauDelay) Check(su *Setup) error {
	empirical, tauSet := p.Delay == kernels.DelayEmpirical, su.Given["tau"]
	switch {
	case empirical && tauSet:
		return fmt.Errorf("--tau: with --delay empirical τ is the largest age in --ages; leave --tau out")
	case !empirical && p.Ages != nil:
		return fmt.Errorf("--ages applies to --delay empirical only")
	case p.Delay == kernels.DelayReplay:
		if err := p.checkReplay(su); err != nil {
			return err
		}
	case p.Replay != nil:
		return fmt.Errorf("--replay applies to --delay replay only")
	case empirical:
		a, err := kernels.NewAges(p.Ages.Age, p.Ages.Count, p.Ages.Tau)
		if err != nil {
			return fmt.Errorf("--ages: %v", err)
		}
		p.ages = a
		p.Tau = p.Ages.Tau
	}
	return needBins(p, su)
}

// checkReplay validates --delay replay and sets τ to the largest age.
func (p *TauDelay) checkReplay(su *Setup) error {
	switch {
	case su.Given["tau"]:
		return fmt.Errorf("--tau: with --delay replay τ is the largest age in --replay; leave --tau out")
	case p.Replay == nil:
		return fmt.Errorf("tau-delay --delay replay needs --replay: a file of per-ball ages")
	case !su.Weights.Unit() || su.Weights.Kind == WeightsConst:
		return fmt.Errorf("--weights: tau-delay --delay replay places unit balls")
	case uint64(len(p.Replay)) != su.Balls:
		return fmt.Errorf("--replay %s holds %d ages and --balls is %d: give one age per ball (set --balls %d)",
			p.ReplaySource, len(p.Replay), su.Balls, len(p.Replay))
	}
	tau := uint32(0)
	for _, a := range p.Replay {
		tau = max(tau, a)
	}
	p.Tau = uint64(tau)
	return nil
}

// Content: the law of --ages (for the file's name) and the digest of the
// replayed sequence.
func (p *TauDelay) Content() (map[string]string, []string) {
	values := map[string]string{}
	var parts []string
	if p.Ages != nil {
		values["ages"] = "file" // its law follows
		parts = append(parts, "ages="+p.Ages.HashText())
	}
	if p.Replay != nil {
		parts = append(parts, "replay="+replayDigest(p.Replay))
	}
	return values, parts
}

func (p *TauDelay) Footprint(f *units.Footprint, m Mem) {
	if p.Tau == 0 {
		return // Two-Choice's loop
	}
	perBin, perTau := kernels.DelayMemory(p.Delay, int(m.LoadBytes), m.Weighted)
	if p.Delay == kernels.DelayReplay {
		perBin, perTau = kernels.ReplayMemory() // the ages themselves are held by the process
	}
	f.Add(m.BinsCulprit, m.BinsHint, units.Mul(m.Bins, uint64(perBin)))
	tau, hint := "--tau "+units.FormatCount(p.Tau), "lower --tau (or --balls)"
	switch p.Delay {
	case kernels.DelayEmpirical:
		tau, hint = fmt.Sprintf("--ages %s (τ = %d)", p.AgesSource, p.Tau), "use ages below a smaller τ in --ages (or lower --balls)"
	case kernels.DelayReplay:
		tau, hint = fmt.Sprintf("--replay %s (τ = %d)", p.ReplaySource, p.Tau), "replay a sequence of smaller ages (or fewer balls)"
	}
	f.Add(tau, hint, units.Mul(kernels.DelayWindow(p.Tau, m.Balls), uint64(perTau)))
}

type tauDelayLoop[L kernels.Load] struct {
	tr    *Trial
	delay *kernels.Delay[L]
}

// InitialWhy: the delay's record of past loads starts from empty bins.
func (p *TauDelay) InitialWhy() string {
	return "tau-delay's record of past loads starts from empty bins; it starts from --initial zero only"
}

func (l *tauDelayLoop[L]) Step(loads []L, _, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.TauDelay(loads, l.tr.Choices, l.tr.Noise, c, l.delay, maxLoad)
}

type tauReplayLoop[L kernels.Load] struct {
	tr     *Trial
	delay  *kernels.Delay[L]
	replay []uint32
}

func (l *tauReplayLoop[L]) Step(loads []L, t, c uint64, maxLoad L) (uint64, L) {
	return c, kernels.TauDelayReplay(loads, l.tr.Choices, l.replay[t:t+c], l.delay, maxLoad)
}

func tauDelayDirect[L kernels.Load](p *TauDelay, tr *Trial) Stepper[L] {
	switch {
	case p.Tau == 0:
		return twoChoiceLoop[L]{tr.Choices}
	case p.Delay == kernels.DelayReplay:
		return &tauReplayLoop[L]{tr, kernels.NewReplay[L](int(tr.Bins), p.Tau), p.Replay}
	}
	return &tauDelayLoop[L]{tr, kernels.NewDelay[L](int(tr.Bins), p.Tau, p.Delay, false, p.ages, tr.Balls)}
}

func (p *TauDelay) Direct32(tr *Trial) Stepper[uint32] { return tauDelayDirect[uint32](p, tr) }
func (p *TauDelay) Direct64(tr *Trial) Stepper[uint64] { return tauDelayDirect[uint64](p, tr) }

type tauDelayReal struct {
	tr    *Trial
	delay *kernels.Delay[float64]
}

func (l *tauDelayReal) Step(loads, w []float64, maxLoad float64) float64 {
	return kernels.TauDelayWeighted(loads, l.tr.Choices, l.tr.Noise, w, l.delay, maxLoad)
}

func (p *TauDelay) DirectReal(tr *Trial) RealStepper {
	if p.Tau == 0 {
		return dChoiceReal{tr.Choices, 2}
	}
	return &tauDelayReal{tr, kernels.NewDelay[float64](int(tr.Bins), p.Tau, p.Delay, true, p.ages, tr.Balls)}
}
