package balloc

import (
	"fmt"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
)

// Config describes an experiment: a process of the catalogue and its
// parameters, as `balloc run` takes them, or a Rule of your own.
type Config struct {
	Rule    Rule              // a rule of your own instead of Process (see Rule)
	Process string            // e.g. "two-choice", "d-choice", "g-myopic-comp"
	Params  map[string]string // by flag name without dashes, e.g. {"d": "3"}; values as on the command line
	Bins    uint64            // n
	Balls   uint64            // m
	Trials  int               // independent trials; 0 means 1
	Seed    uint64
}

// Spec is a validated experiment.
type Spec struct {
	s    *core.Spec // a built-in process
	rule Rule       // or a user's rule, with its Config
	c    Config
}

// NewSpec validates c. Errors name the parameter at fault, as the command
// line's do.
func NewSpec(c Config) (*Spec, error) {
	if c.Trials == 0 {
		c.Trials = 1
	}
	if c.Rule != nil {
		return newRuleSpec(c)
	}
	if c.Trials < 0 {
		return nil, fmt.Errorf("balloc: Trials %d is negative", c.Trials)
	}
	s, err := core.NewSpec(c.Process, c.Params, core.Common{
		Bins: c.Bins, Balls: c.Balls, Trials: c.Trials, Seed: c.Seed,
		Engine: core.EngineAuto, Alpha: 1,
	})
	if err != nil {
		return nil, err
	}
	return &Spec{s: s, c: c}, nil
}

// Trials is the number of trials Run makes.
func (s *Spec) Trials() int { return s.c.Trials }

// Trial runs trial k alone; it is the k-th element of Run's result.
func (s *Spec) Trial(k int) Result {
	if s.rule != nil {
		return s.runRule(k)
	}
	return resultOf(engine.RunTrial(s.s, uint64(k), nil))
}

// Run runs the trials one after another.
func (s *Spec) Run() []Result { return s.RunParallel(1) }

// RunParallel runs the trials on `workers` goroutines (all CPUs when
// workers ≤ 0); the results are Run's, in trial order.
func (s *Spec) RunParallel(workers int) []Result {
	out := make([]Result, s.c.Trials)
	concurrency.Ordered(s.c.Trials, concurrency.Workers(workers),
		func(k int) Result { return s.Trial(k) },
		func(k int, r Result) bool { out[k] = r; return true })
	return out
}

// Result is one trial's outcome.
type Result struct {
	Trial     int
	Gap       float64 // max load − m/n
	MaxLoad   float64
	MinLoad   float64
	Histogram []Level // bins per load, ascending (unit weights)
}

// Level is one entry of the load histogram: Count bins hold Load.
type Level struct {
	Load  float64
	Count uint64
}

func resultOf(r *result.Result) Result {
	out := Result{Trial: int(r.Trial), Gap: r.Gap, MaxLoad: r.MaxLoad, MinLoad: r.MinLoad}
	for _, l := range r.Histogram {
		out.Histogram = append(out.Histogram, Level{Load: l.Load, Count: l.Count})
	}
	return out
}

// Process is a catalogue entry.
type Process struct {
	Name, Summary, Source string
	Params                []string // the parameter names it takes
}

// Processes lists the built-in processes.
func Processes() []Process {
	var out []Process
	for _, p := range process.Entries() {
		out = append(out, Process{Name: p.Name, Summary: p.Summary, Source: p.Source, Params: p.Params()})
	}
	return out
}
