package engine

import (
	"testing"

	"github.com/balloc/balloc/core"
)

// A snapshot at a log-spaced checkpoint is the state of a run stopped there:
// the same trial run to each target alone ends with the same gap and maximum.
// Catches targets computed for the wrong m or n, or a stream that restarts
// between checkpoints. Direct (two-choice, graphical greedy on a cycle) and
// histogram engines.
func TestLogCheckpointsAreStopsOfOneRun(t *testing.T) {
	for _, c := range []struct {
		process string
		params  map[string]string
		engine  core.Engine
		n, m    uint64
	}{
		{"two-choice", nil, core.EngineDirect, 100, 200000},
		{"two-choice", nil, core.EngineHistogram, 100, 200000},
		{"graphical", map[string]string{"graph": "cycle:64", "strategy": "greedy"}, core.EngineDirect, 64, 100000},
	} {
		long := mustSpec(t, c.process, c.params, core.Common{Bins: c.n, Balls: c.m, Seed: 5, Engine: c.engine, Checkpoints: 12, CheckpointsLog: true})
		res := RunTrial(long, 3, nil)
		want := core.LogCheckpoints(c.n, c.m, 12)
		if len(res.Checkpoints) != len(want) {
			t.Fatalf("%s %s: %d checkpoints, want %d", c.process, c.engine, len(res.Checkpoints), len(want))
		}
		for i, cp := range res.Checkpoints {
			if cp.Balls != want[i] {
				t.Fatalf("%s %s: checkpoint %d at %d balls, want %d", c.process, c.engine, i, cp.Balls, want[i])
			}
			short := mustSpec(t, c.process, c.params, core.Common{Bins: c.n, Balls: cp.Balls, Seed: 5, Engine: c.engine})
			end := RunTrial(short, 3, nil)
			if end.Gap != cp.Gap || end.MaxLoad != cp.MaxLoad {
				t.Fatalf("%s %s: at %d balls the long run has gap %v, max %v; a run stopped there %v, %v",
					c.process, c.engine, cp.Balls, cp.Gap, cp.MaxLoad, end.Gap, end.MaxLoad)
			}
		}
	}
}
