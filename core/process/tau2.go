package process

import (
	"fmt"

	"github.com/balloc/balloc/kernels"
)

// --tau T --delay fixed (τ-Delay's setting, delayparam.go)
// for threshold and adaptive, twinning and packing, and kd-choice, as
// k-thinning takes it (batchany.go): every load a decision reads is the
// bin's load τ balls ago; every count is exact (the balls placed so far).
//
//   - threshold, adaptive: each probe reads the sampled bin's load τ balls
//     old against the current limit (threshold's ⌈m/n⌉ + 1, adaptive's
//     ⌊t/n⌋ + 2 for the t balls placed); every probe counted. An old load
//     below the limit exists (the old loads sum to at most t), so every
//     ball ends.
//   - twinning, packing: a step reads the sampled bin's load x τ balls old
//     against the current average t/n (t the balls placed before the
//     step): twinning 2 balls if x < t/n, else 1; packing ⌈t/n⌉ + 1 − x
//     balls if x < t/n, else 1 — the balls added are computed from the old
//     load (the bin as the read saw it raised to ⌈t/n⌉ + 1; its current
//     load may be higher), as the batches compute them from the frozen
//     load (batchany.go). Every ball of a step enters the record of past
//     loads one by one.
//   - kd-choice: the d slots of a step ranked by their loads τ balls ago
//     (ties by position, as the undelayed loop), one ball on each of the k
//     first; k = 1 is d-choice reading every sample τ balls old.
//
// The other delays are refused (an age per read has no rule for a ball's
// several reads here yet), as are --batch, --initial (the record of past
// loads starts from empty bins), --weights and the histogram engine, each
// in one line (Delayed.check, InitialWhy, HistogramWhy). --tau 0 is the
// process itself, its own loops (kernels/delay_steps.go).

// checkFixedDelay: --tau with --delay fixed only, then the setting's checks.
func checkFixedDelay(name string, s *Delayed, su *Setup, batch uint64) error {
	if mode := s.Delay; mode != kernels.DelayFixed {
		return fmt.Errorf("--delay %s: %s with --tau reads every sample as it was τ balls ago (--delay fixed) only", delayModes[mode], name)
	}
	return s.check(name, su, delayRule{batch: batch})
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
