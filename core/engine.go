package core

import "time"

// RunTrial runs trial `trial` (0-based) of s on its engine and returns the
// Result. progress, which may be nil, is called from the trial's goroutine
// after each chunk of balls with the chunk's size, never per ball.
func RunTrial(s *Spec, trial uint64, progress func(balls uint64)) *Result {
	if progress == nil {
		progress = func(uint64) {}
	}
	start := time.Now()
	var res *Result
	switch s.engine {
	case EngineDirect:
		res = runDirect(s, trial, progress)
	case EngineHistogram:
		res = runHistogram(s, trial, progress)
	default:
		panic("core: unresolved engine " + string(s.engine))
	}
	res.Process = s.Process.Name
	res.Params = s.ParamsMap()
	res.Bins, res.Balls, res.Trial, res.Seed = s.Bins, s.Balls, trial, s.Seed
	res.Engine = string(s.engine)
	res.ElapsedS = time.Since(start).Seconds()
	if res.ElapsedS > 0 {
		res.BallsPerS = float64(s.Balls) / res.ElapsedS
	}
	return res
}
