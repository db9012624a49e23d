package balloc

import (
	"slices"

	"github.com/balloc/balloc/core/result"
)

// Result is one trial's outcome: the fields of `balloc run --format json`
// under their Go names (README, Output), with the same values.
type Result struct {
	Trial  int
	Engine Engine // the engine that ran it
	// Balls is the balls present at the end: the balls thrown (and an
	// Initial start's), or with balls that leave, those still in the bins.
	Balls uint64

	Gap       float64 // max load − average
	MaxLoad   float64
	MinLoad   float64
	Average   float64 // balls present / n (total weight / n)
	Underload float64 // average − min load
	// MaxGap is the largest gap the trial saw: at the end, at each
	// checkpoint, and (b-batch and processes in batches) at each batch end.
	MaxGap float64
	// Quadratic is Σᵢ (xᵢ − average)², LogExpPotential ln Φ_α with Φ_α =
	// Σᵢ exp(α(xᵢ − average)) (Config.Alpha); +Inf where they overflow.
	Quadratic       float64
	LogExpPotential float64

	Histogram   []Level      // bins per load, ascending (integer loads of scalar balls)
	Checkpoints []Checkpoint // with Config.Checkpoints: the state along the run, the last at the end
	Loads       []float64    // with Config.KeepLoads: every bin's final load
	Theory      *Theory      // with Config.Theory: the fluid limit beside this trial's histogram
	Dynamic     *Dynamic     // with balls that leave (Config.Supermarket, Config.Deletions)
}

// Level is one entry of the load histogram: Count bins hold Load.
type Level struct {
	Load  float64
	Count uint64
}

// Checkpoint is the state after Balls balls (steps, events) of a trial.
type Checkpoint struct {
	Balls     uint64
	Gap       float64
	MaxLoad   float64
	MinLoad   float64
	Underload float64
	// Quadratic and LogExpPotential as in Result.
	Quadratic       float64
	LogExpPotential float64
	Round           uint64 // rbb: the state after this round
}

// Theory sets a prediction beside a trial, load by load.
type Theory struct {
	Model  string
	Levels []TheoryLevel
	// FirstMomentMax is the largest load i with n·s_i ≥ 1: where the
	// expected number of bins at load ≥ i, by the prediction, drops below
	// one.
	FirstMomentMax int
}

// TheoryLevel is the fraction of bins with load ≥ Load, simulated and
// predicted.
type TheoryLevel struct {
	Load      float64
	Simulated float64
	Fluid     float64
}

// Dynamic is what a run where balls leave reports beside the final state.
type Dynamic struct {
	Model      string // "supermarket" or "deletions"
	Events     uint64 // events (supermarket) or steps (deletions) run
	Arrivals   uint64 // balls placed
	Departures uint64 // balls removed
	// The supermarket only: AtLeast[i−1] is the time-averaged fraction of
	// bins with load ≥ i after the warmup, AtLeastSE its standard error
	// from Batches batch means (valid while BatchLag1, the lag-1
	// autocorrelation of the batch means, is within about 2/√Batches of
	// 0), FinalAtLeast the fraction at the end.
	AtLeast, AtLeastSE, FinalAtLeast []float64
	Batches                          int
	BatchLag1                        float64
	// MeanQueue is the time-averaged balls per bin, Sojourn the mean time
	// in the system by Little's law (MeanQueue/λ); each with its standard
	// error.
	MeanQueue, MeanQueueSE float64
	Sojourn, SojournSE     float64
	MaxEver                float64   // the largest load any bin held during the run
	FixedPoint             []float64 // with Config.Theory: the mean field's π_i, i = 1, 2, …, beside AtLeast
}

// resultOf is the engine's Result in this package's terms, with the
// prediction set beside it when asked for.
func (s *Spec) resultOf(r *result.Result) Result {
	s.theoryOf(r)
	out := Result{
		Trial: int(r.Trial), Engine: Engine(r.Engine), Balls: r.Balls,
		Gap: r.Gap, MaxLoad: r.MaxLoad, MinLoad: r.MinLoad, Average: r.Average, Underload: r.Underload,
		MaxGap: r.MaxGap, Quadratic: float64(r.Quadratic), LogExpPotential: r.LogExpPot,
		Histogram: levelsOf(r.Histogram), Loads: r.Loads,
	}
	for _, c := range r.Checkpoints {
		out.Checkpoints = append(out.Checkpoints, Checkpoint{
			Balls: c.Balls, Gap: c.Gap, MaxLoad: c.MaxLoad, MinLoad: c.MinLoad, Underload: c.Underload,
			Quadratic: float64(c.Quadratic), LogExpPotential: c.LogExpPot, Round: c.Round,
		})
	}
	if t := r.Theory; t != nil {
		out.Theory = &Theory{Model: t.Model, FirstMomentMax: t.FirstMomentMax}
		for _, l := range t.Levels {
			out.Theory.Levels = append(out.Theory.Levels, TheoryLevel(l))
		}
	}
	if d := r.Dynamic; d != nil {
		out.Dynamic = &Dynamic{
			Model: d.Model, Events: d.Events, Arrivals: d.Arrivals, Departures: d.Departures,
			AtLeast: d.AtLeast, AtLeastSE: d.AtLeastSE, FinalAtLeast: d.FinalAtLeast,
			Batches: d.Batches, BatchLag1: d.BatchLag1, MeanQueue: d.MeanQueue, MeanQueueSE: d.MeanQueueSE,
			Sojourn: d.Sojourn, SojournSE: d.SojournSE, MaxEver: d.MaxEver, FixedPoint: slices.Clone(d.FixedPoint),
		}
	}
	return out
}

// levelsOf is a histogram in this package's terms.
func levelsOf(h []result.Level) []Level {
	if len(h) == 0 {
		return nil
	}
	out := make([]Level, len(h))
	for i, l := range h {
		out[i] = Level(l)
	}
	return out
}
