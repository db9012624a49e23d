package balloc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/theory"
)

// Spec is a validated experiment. Only NewSpec makes one; it is safe for
// concurrent use.
type Spec struct {
	s    *core.Spec // a built-in process
	rule Rule       // or a user's rule
	c    Config     // with Trials ≥ 1
	// fluid is the fluid limit set beside each trial with Config.Theory
	// (for the supermarket, the fixed point).
	fluid *Profile
}

// NewSpec validates c before any work: every refusal is one error saying,
// in Go terms, which field or parameter is at fault and what it accepts,
// e.g. `balloc: parameter d = 0: want an integer in [1, min(bins, 1048576)]`.
func NewSpec(c Config) (*Spec, error) {
	if err := checkCommon(&c); err != nil {
		return nil, err
	}
	if c.Rule != nil {
		return newRuleSpec(c)
	}
	if c.Process == "" {
		return nil, errors.New("balloc: Config has neither Process nor Rule; give one (Processes lists the catalogue)")
	}
	set, err := c.Params.strings()
	if err != nil {
		return nil, err
	}
	if c.Initial != "" {
		set["initial"] = c.Initial
	}
	s, err := core.NewSpec(c.Process, set, commonOf(c))
	if err != nil {
		return nil, goError(err, c.Params)
	}
	spec := &Spec{s: s, c: c}
	if c.Theory {
		p, err := spec.Fluid()
		if err != nil {
			return nil, fmt.Errorf("balloc: Theory: %v", err)
		}
		spec.fluid = &p
	}
	return spec, nil
}

// Trials is the number of trials Run makes.
func (s *Spec) Trials() int { return s.c.Trials }

// Bins is n: Config.Bins, or what a graph or hyperedge file fixed.
func (s *Spec) Bins() uint64 {
	if s.s != nil {
		return s.s.Bins
	}
	return s.c.Bins
}

// Balls is the balls (steps, events) a trial runs: Config.Balls, or the
// supermarket's events, or the phases' steps.
func (s *Spec) Balls() uint64 {
	if s.s != nil {
		return s.s.Balls
	}
	return s.c.Balls
}

// Engine is the engine the trials run on, EngineAuto resolved; a Rule
// runs on its own loop over a flat array, reported as EngineDirect.
func (s *Spec) Engine() Engine {
	if s.s != nil {
		return Engine(s.s.ResolvedEngine())
	}
	return EngineDirect
}

// EngineReason says why EngineAuto chose the engine ("" when Config named
// it, or for a Rule).
func (s *Spec) EngineReason() string {
	if s.s != nil {
		return s.s.EngineReason()
	}
	return ""
}

// Params are the parameters the process runs with, defaults included, as
// results show them (`balloc run`'s JSON "params"); nil for a Rule.
func (s *Spec) Params() map[string]any {
	if s.s == nil {
		return nil
	}
	return maps.Clone(s.s.ParamsMap())
}

// Trial runs trial k (0 ≤ k < Trials) alone: it is the k-th element of
// Run's result. When ctx is done before the trial ends it stops at the
// next chunk of balls and returns ctx.Err().
func (s *Spec) Trial(ctx context.Context, k int) (Result, error) {
	if k < 0 || k >= s.c.Trials {
		return Result{}, fmt.Errorf("balloc: trial %d: want 0 ≤ k < Trials (%d)", k, s.c.Trials)
	}
	progress := s.progress(k)
	if s.rule != nil {
		return s.runRule(ctx, k, progress)
	}
	r, err := engine.RunTrialContext(ctx, s.s, uint64(k), progress)
	if err != nil {
		return Result{}, err
	}
	return s.resultOf(r), nil
}

// progress is Config.Progress for trial k as the engines call it (the
// balls of each chunk), or nil.
func (s *Spec) progress(k int) func(uint64) {
	f := s.c.Progress
	if f == nil {
		return nil
	}
	done := uint64(0)
	return func(c uint64) {
		done += c
		f(k, done)
	}
}

// Run runs the trials one after another. When ctx is done it stops within
// a chunk of balls and returns the trials finished before, with
// ctx.Err().
func (s *Spec) Run(ctx context.Context) ([]Result, error) { return s.RunParallel(ctx, 1) }

// RunParallel runs the trials on `workers` goroutines (all CPUs when
// workers ≤ 0) and returns Run's results, in trial order: a trial depends
// only on (Seed, its number). When ctx is done the running trials stop
// within a chunk of balls, and it returns the results of the trials
// before the first unfinished one, with ctx.Err().
func (s *Spec) RunParallel(ctx context.Context, workers int) ([]Result, error) {
	type outcome struct {
		r   Result
		err error
	}
	out := make([]Result, 0, s.c.Trials)
	var err error
	concurrency.Ordered(s.c.Trials, concurrency.Workers(workers),
		func(k int) outcome {
			r, err := s.Trial(ctx, k)
			return outcome{r, err}
		},
		func(k int, o outcome) bool {
			if o.err != nil {
				err = o.err
				return false
			}
			out = append(out, o.r)
			return true
		})
	return out, err // every trial's result when err is nil
}

// Fluid is the spec's fluid limit: the predicted fraction of bins with
// load ≥ i after its balls (core/theory's mean-field ODE), or, for the
// supermarket model, the fixed point π_i of its mean field. It errs where
// balloc has none: a process without one, random weights, an Initial
// start, deletions, balls of several dimensions, a Rule.
func (s *Spec) Fluid() (Profile, error) {
	switch {
	case s.s == nil:
		return Profile{}, errors.New("no fluid limit for a Rule of one's own")
	case s.s.Dims() > 1:
		return Profile{}, errors.New("no fluid limit for balls of several dimensions")
	case s.s.Dynamic.Supermarket():
		pi, model := core.SupermarketTheory(s.s)
		if pi == nil {
			return Profile{}, errors.New(model)
		}
		return Profile{Model: model, p: theory.Profile{Base: 1, S: pi, Model: model}}, nil
	case s.s.Dynamic.Deletions():
		return Profile{}, errors.New("no fluid limit with deletions")
	}
	p, err := core.FluidOf(s.s)
	if err != nil {
		return Profile{}, errors.New(strings.TrimSpace(err.Error())) // "for threshold " when it shows no parameter
	}
	return Profile{Model: cmp.Or(p.Model, "fluid limit (mean-field ODE)"), p: p}, nil
}

// Profile is a predicted load profile: the fraction of bins with load ≥ i.
type Profile struct {
	Model string // what the prediction is, in words
	p     theory.Profile
}

// AtLeast is the predicted fraction of bins with load ≥ i.
func (p Profile) AtLeast(i int) float64 { return p.p.At(i) }

// Top is the highest load with a positive prediction.
func (p Profile) Top() int { return p.p.Top() }

// theoryOf sets the spec's prediction beside trial r, as `balloc run
// --theory --format json` does for each trial.
func (s *Spec) theoryOf(r *result.Result) {
	switch {
	case s.fluid == nil:
	case s.s.Dynamic.Supermarket():
		r.Dynamic.FixedPoint = s.fluid.p.S
	default:
		r.Theory = result.CompareTheory(s.fluid.p, s.s.Bins, []result.Histogram{r.Histogram})
	}
}
