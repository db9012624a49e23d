package balloc

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
)

// DefaultSeed is the seed `balloc run` uses without --seed. Config.Seed is
// taken as given, so its zero value is seed 0 (`balloc run --seed 0`); set
// Seed: balloc.DefaultSeed to get the command's default run.
const DefaultSeed = 1

// Config describes an experiment: a process of the catalogue with its
// parameters, or a Rule of your own, and the settings `balloc run` shares
// between processes. Only Bins and Balls (or a departure model's length)
// must be set; every other field's zero value is the command's default,
// except Seed (see DefaultSeed).
type Config struct {
	Process string // a catalogue name (Processes), e.g. "d-choice"
	Params  Params // the process's parameters; those left out take their defaults
	Rule    Rule   // a rule of your own instead of Process (then Params is empty)

	Bins  uint64 // n; a process on a graph or hyperedge file may fix it
	Balls uint64 // m; with Deletions, the steps; 0 with Supermarket
	// Trials is the number of independent trials; 0 means 1.
	Trials int
	// Seed: trial k of a run draws from the stream (Seed, k), whatever the
	// number of workers, exactly as `balloc run --seed Seed` does. Used as
	// given: 0 is seed 0, not the command's default (DefaultSeed).
	Seed uint64

	// Engine runs the trials; "" (or EngineAuto) lets balloc choose from
	// the spec alone, as --engine auto does (Spec.Engine says which).
	Engine Engine
	// Checkpoints > 0 records the state at Checkpoints ball counts along
	// the run (Result.Checkpoints, the gap over time): evenly spaced,
	// ⌊k·m/K⌋ for k = 1 … K, or with LogCheckpoints geometrically spaced
	// from n to m balls (K ≥ 2; rounding may merge a few), as
	// `--checkpoints K` and `--checkpoints log:K`. The last is at m.
	Checkpoints    uint64
	LogCheckpoints bool
	// Alpha is α of the exponential potential Φ_α = Σ exp(α(xᵢ − m/n)); 0
	// means 1, the command's default (Φ_0 is the constant n).
	Alpha float64
	// Initial is the loads a trial starts from, as --initial takes them
	// (uniform:L, spike:L, file:PATH; the supermarket also fixed-point);
	// "" is empty bins.
	Initial string
	// KeepLoads returns every bin's final load in Result.Loads (n floats
	// per trial).
	KeepLoads bool
	// Theory sets the fluid limit beside each trial (Result.Theory, the
	// supermarket's fixed point in Result.Dynamic.FixedPoint), as `balloc
	// run --theory --format json` does; NewSpec refuses it for a spec
	// without one (Spec.Fluid says why).
	Theory bool

	// Balls that leave: at most one of the two models.
	Supermarket *Supermarket
	Deletions   *Deletions

	// Progress, if set, is called after each chunk of a trial's balls (a
	// few milliseconds of work, never per ball) with the trial and the
	// balls (steps, events) it has run so far, up to Spec.Balls. With
	// RunParallel it is called from several goroutines at once, one trial
	// each.
	Progress func(trial int, balls uint64)
}

// Engine names the engine that runs a trial (README, Engines).
type Engine string

// The engines. EngineAuto chooses from the spec alone (never from the
// machine), since the engine decides which random draws a trial makes.
const (
	EngineAuto      Engine = "auto"
	EngineDirect    Engine = "direct"    // a flat array of loads, one specialised loop per process
	EngineHistogram Engine = "histogram" // bins counted per load level, exact samplers (symmetric processes)
)

// Supermarket is the supermarket model (Mitzenmacher, "The Power of Two
// Choices in Randomized Load Balancing", IEEE TPDS 2001): n queues,
// arrivals at rate λn placed by the process, each non-empty queue serving
// at rate 1. Give Time or Events, not both; Config.Balls stays 0.
type Supermarket struct {
	ArrivalRate float64 // λ per bin, 0 < λ < 1 (--arrival-rate)
	Time        float64 // run length in time units (--time): round(n(1+λ)·T) events
	Events      uint64  // run length in events (--events)
	Warmup      float64 // time left out of the time averages (--warmup)
	// At most one stale-information model (direct engine): a board
	// refreshed every UpdatePeriod, loads exactly UpdateDelay old, or each
	// bin's entry refreshed at rate 1/UpdateIndividual.
	UpdatePeriod, UpdateDelay, UpdateIndividual float64
}

// Deletions is the heavily loaded case with balls removed: each of
// Config.Balls steps inserts a ball by the process with probability 1 −
// Prob, else removes one chosen by Mode; or, with Phases, a fixed sequence
// (+a inserts a balls, −b removes b; Config.Balls may stay 0).
type Deletions struct {
	Prob   float64 // 0 ≤ p < 1 (--delete-prob)
	Mode   string  // "ball" (a uniformly random ball, the default) or "bin" (one of a uniformly random non-empty bin)
	Phases []int64 // e.g. {+1e6, -5e5, +1e6} (--phases)
}

// commonOf is c's common settings as core takes them.
func commonOf(c Config) core.Common {
	com := core.Common{
		Bins: c.Bins, Balls: c.Balls, Trials: c.Trials, Seed: c.Seed,
		Engine: core.Engine(c.Engine), Checkpoints: c.Checkpoints, CheckpointsLog: c.LogCheckpoints,
		Alpha: c.Alpha, KeepLoads: c.KeepLoads,
	}
	if com.Engine == "" {
		com.Engine = core.EngineAuto
	}
	if com.Alpha == 0 {
		com.Alpha = 1
	}
	if sm := c.Supermarket; sm != nil {
		com.Dynamic.ArrivalRate, com.Dynamic.Time, com.Dynamic.Events, com.Dynamic.Warmup = sm.ArrivalRate, sm.Time, sm.Events, sm.Warmup
		com.Dynamic.UpdatePeriod, com.Dynamic.UpdateDelay, com.Dynamic.UpdateIndividual = sm.UpdatePeriod, sm.UpdateDelay, sm.UpdateIndividual
	}
	if d := c.Deletions; d != nil {
		com.Dynamic.DeleteProb, com.Dynamic.Delete, com.Dynamic.Phases = d.Prob, d.Mode, d.Phases
	}
	return com
}

// checkCommon refuses, in Go terms, the common settings core would refuse
// in the command's (those whose message would not read well translated).
func checkCommon(c *Config) error {
	if c.Trials == 0 {
		c.Trials = 1
	}
	switch {
	case c.Trials < 0 || core.TrialsRule(uint64(c.Trials)) != "":
		return fmt.Errorf("balloc: Trials = %d: want 1 to 2^31 trials (0 means 1)", c.Trials)
	case c.Engine != "" && c.Engine != EngineAuto && c.Engine != EngineDirect && c.Engine != EngineHistogram:
		return fmt.Errorf("balloc: Engine = %q: want EngineAuto, EngineDirect or EngineHistogram", c.Engine)
	case c.LogCheckpoints && c.Checkpoints < 2:
		return fmt.Errorf("balloc: Checkpoints = %d with LogCheckpoints: want at least 2 (the first at n balls, the last at m)", c.Checkpoints)
	case core.AlphaRule(c.Alpha) != "":
		return fmt.Errorf("balloc: Alpha = %v: %s", c.Alpha, core.AlphaRule(c.Alpha))
	case c.Supermarket != nil && c.Deletions != nil:
		return fmt.Errorf("balloc: Supermarket and Deletions are both set: the supermarket model has its own departures; give one")
	}
	if sm := c.Supermarket; sm != nil {
		if why := core.ArrivalRateRule(sm.ArrivalRate); why != "" {
			return fmt.Errorf("balloc: Supermarket.ArrivalRate = %v: %s", sm.ArrivalRate, why)
		}
	}
	if d := c.Deletions; d != nil && d.Mode != "" {
		if why := core.DeleteRule(d.Mode); why != "" {
			return fmt.Errorf("balloc: Deletions.Mode = %q: %s", d.Mode, why)
		}
	}
	return nil
}

// Params are a process's parameters by name (the names of `balloc run
// --help` without dashes, Process.Params): numbers as Go numbers, choices
// and files as strings, switches as bools, e.g. Params{"d": 3} or
// Params{"beta": 0.5, "batch": 1000}. A list is a study: run one Spec per
// value.
type Params map[string]any

// strings turns p into the text core parses, refusing a value of the wrong
// kind in Go terms.
func (p Params) strings() (map[string]string, error) {
	out := make(map[string]string, len(p))
	for name, v := range p {
		f := process.FlagOf(name)
		switch {
		case name == "initial":
			return nil, errors.New("balloc: parameter initial: the start is Config.Initial")
		case f == nil:
			return nil, fmt.Errorf("balloc: parameter %q: no process takes it (Processes lists each one's)", name)
		}
		s, err := paramText(v, f.Bool)
		if err != nil {
			return nil, fmt.Errorf("balloc: parameter %s = %#v: %v", name, v, err)
		}
		out[name] = s
	}
	return out, nil
}

// paramText writes one value as the command line would: integers in
// decimal, reals exactly (shortest form that reads back), strings as they
// are; a switch takes a bool and nothing else does.
func paramText(v any, isBool bool) (string, error) {
	if b, ok := v.(bool); ok != isBool {
		if isBool {
			return "", fmt.Errorf("want a bool")
		}
		return "", fmt.Errorf("want a number or a string, not a bool")
	} else if ok {
		return strconv.FormatBool(b), nil
	}
	switch x := reflect.ValueOf(v); x.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(x.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(x.Uint(), 10), nil
	case reflect.Float32, reflect.Float64:
		f := x.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "", fmt.Errorf("want a finite number")
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.FormatFloat(f, 'f', -1, 64), nil // 1e6 as 1000000: counts read it too
		}
		return strconv.FormatFloat(f, 'g', -1, x.Type().Bits()), nil
	case reflect.String:
		return x.String(), nil
	}
	return "", fmt.Errorf("want a number, a string or a bool, not %T (a list is one Spec per value)", v)
}
