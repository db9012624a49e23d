package engine

import (
	"reflect"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/result"
)

// lawTrial is RunTrial for the statistical loops, which run up to tens of
// thousands of trials of a few balls each and read only loads, gaps and
// counters: it leaves the Result's Params nil. Building that map was 13%
// of the supermarket tests' CPU time; every other field is RunTrial's
// (TestLawTrialIsRunTrial).
func lawTrial(s *core.Spec, trial uint64) *result.Result { return runTrial(s, trial, nil, false) }

// lawTrial's Result is RunTrial's but for Params (and the timings), on a
// static and a dynamic spec of each engine: a lawTrial that skipped more
// than the map, or a RunTrial that lost it, fails here.
func TestLawTrialIsRunTrial(t *testing.T) {
	for _, engine := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
		for _, c := range []core.Common{{Balls: 100}, {Dynamic: core.Dynamic{ArrivalRate: 0.8, Events: 200}}} {
			c.Bins, c.Seed, c.Engine = 20, 4, engine
			s := mustSpec(t, "two-choice", nil, c)
			dyn := c.Dynamic
			a, b := RunTrial(s, 3, nil), lawTrial(s, 3)
			if len(a.Params) == 0 || b.Params != nil {
				t.Errorf("%s %+v: RunTrial's Params %v, lawTrial's %v", engine, dyn, a.Params, b.Params)
			}
			a.Params, a.ElapsedS, a.BallsPerS, b.ElapsedS, b.BallsPerS = nil, 0, 0, 0, 0
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s %+v: lawTrial %+v, RunTrial %+v", engine, dyn, b, a)
			}
		}
	}
}
