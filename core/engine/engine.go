package engine

import (
	"time"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/result"
)

// RunTrial runs trial `trial` (0-based) of s on its engine and returns the
// Result. progress, which may be nil, is called from the trial's goroutine
// after each chunk of balls with the chunk's size, never per ball.
func RunTrial(s *core.Spec, trial uint64, progress func(balls uint64)) *result.Result {
	return runTrial(s, trial, progress, true)
}

// runTrial is RunTrial, with the Result's Params (the process's parameters
// for output) filled only when withParams: building them walks the
// process's parameter list and fills a map, which the statistical tests'
// tens of thousands of few-ball trials paid for on every trial and never
// read.
func runTrial(s *core.Spec, trial uint64, progress func(balls uint64), withParams bool) *result.Result {
	if progress == nil {
		progress = func(uint64) {}
	}
	start := time.Now()
	var res *result.Result
	switch {
	case s.Dynamic.On(): // balls that leave (dynamic.go)
		res = runDynamic(s, trial, progress)
	case s.ResolvedEngine() == core.EngineDirect:
		res = runDirect(s, trial, progress)
	case s.ResolvedEngine() == core.EngineHistogram:
		res = runHistogram(s, trial, progress)
	default:
		panic("core: unresolved engine " + string(s.ResolvedEngine()))
	}
	res.Process = s.Process.Name
	if withParams {
		res.Params = s.ParamsMap()
	}
	res.Bins, res.Balls, res.Trial, res.Seed = s.Bins, s.Balls, trial, s.Seed
	if _, conserving := s.Proc.(core.Conserving); !conserving && res.InitialBalls == 0 {
		res.InitialBalls = s.InitialBalls() // a supermarket trial set its own (fixed-point draws it)
	}
	if d := res.Dynamic; d != nil {
		res.Balls = res.InitialBalls + d.Arrivals - d.Departures // the balls present; s.Balls counts events or steps
	}
	res.Engine = string(s.ResolvedEngine())
	res.ElapsedS = time.Since(start).Seconds()
	if res.ElapsedS > 0 {
		res.BallsPerS = float64(s.Balls) / res.ElapsedS
		for _, x := range res.Extras {
			if t, ok := x.(result.Timed); ok { // rbb: balls re-allocated a second
				res.BallsPerS = t.Timed(res.ElapsedS)
			}
		}
	}
	return res
}

// NewResult is the Result of trial `trial` of s from a final snapshot made
// outside this package (the concurrent engine), with its engine's name.
func NewResult(s *core.Spec, trial uint64, engine string, snap result.Snapshot, elapsedS float64) *result.Result {
	r := &result.Result{}
	r.Fill(snap, s.Alpha)
	r.Process, r.Params = s.Process.Name, s.ParamsMap()
	r.Bins, r.Balls, r.Trial, r.Seed, r.Engine = s.Bins, s.Balls, trial, s.Seed, engine
	r.ElapsedS = elapsedS
	if elapsedS > 0 {
		r.BallsPerS = float64(s.Balls) / elapsedS
	}
	return r
}
