package concurrency

import (
	"fmt"
	"runtime"
	"testing"
)

// The bound is the formula the header prints.
func TestShardedAgeBoundFormula(t *testing.T) {
	for _, W := range []int{1, 2, 16, 256} {
		if got, want := ShardedAgeBound(W), uint64(W)*(1024+1024+2*256); got != want {
			t.Errorf("W = %d: bound %d, want %d (%s)", W, got, want, ShardedAgeBoundText)
		}
	}
}

// Emulated, with one worker slowed 300-fold (a step the schedule
// gives it is taken once in 300): the others must wait for it, every
// ball's exact age stays under ShardedAgeBound, and the waits are counted.
// Without backpressure the same seeded run exceeds the bound
// (2-4 times here), so the test catches a check that is missing or never
// fails.
func TestEmulatedBackpressureBoundsAges(t *testing.T) {
	for _, c := range []struct {
		proc   string
		params map[string]string
		n, m   uint64
		W      int
		every  uint64
	}{
		{"two-choice", nil, 16, 40000, 4, 256}, // the staged loop's sends
		{"two-choice", nil, 1000, 40000, 2, 1}, // every ball measured: 4 entries each
		{"one-plus-beta", map[string]string{"beta": "0.5"}, 64, 40000, 8, 7},
	} {
		t.Run(fmt.Sprintf("%s/n=%d/W=%d", c.proc, c.n, c.W), func(t *testing.T) {
			run := func(off bool) *Result {
				res, err := Run(Config{Spec: spec(t, c.proc, c.params, c.n, c.m, 31), Workers: c.W, Mode: Sharded,
					MeasureEvery: c.every, Emulate: true, RecordAges: true, noBackpressure: off, stall: stall{worker: 0, odds: 300}})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			on, off := run(false), run(true)
			bound := ShardedAgeBound(c.W)
			t.Logf("bound %d: max age %d with %d waits, %d without backpressure", bound, on.AgeLaw.Max, on.BackpressureWaits, off.AgeLaw.Max)
			if on.AgeBound != bound {
				t.Errorf("Result.AgeBound %d, want %d", on.AgeBound, bound)
			}
			if on.AgeLaw.Max >= bound || on.GlobalStaleness.Max >= bound {
				t.Errorf("max age %d (measured %d), bound %d", on.AgeLaw.Max, on.GlobalStaleness.Max, bound)
			}
			if on.BackpressureWaits == 0 {
				t.Errorf("a worker slowed 300-fold made no one wait")
			}
			if off.AgeLaw.Max < bound || off.BackpressureWaits != 0 {
				t.Errorf("without backpressure the max age is %d (%d waits): the stall does not test the bound", off.AgeLaw.Max, off.BackpressureWaits)
			}
		})
	}
}

// Under the uniform schedule the check never stops a worker (its
// constants leave room for a run's own delays): emulated runs, and so their
// seeded outputs, are those of the rules without backpressure.
func TestEmulatedBackpressureIdleUnstalled(t *testing.T) {
	for _, W := range []int{2, 64, 1024} {
		cfg := Config{Spec: spec(t, "two-choice", nil, 1000, 300000, 9), Workers: W, Mode: Sharded, MeasureEvery: 256, Emulate: true}
		on, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.noBackpressure = true
		off, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if on.BackpressureWaits != 0 || fmt.Sprint(on.Histogram, on.GlobalStaleness) != fmt.Sprint(off.Histogram, off.GlobalStaleness) {
			t.Errorf("W = %d: %d waits; the run differs from the one without backpressure", W, on.BackpressureWaits)
		}
	}
}

// Goroutines under real contention: more workers than cores (8 of them
// on GOMAXPROCS max(4, CPUs) threads) on few bins, so owners are
// descheduled with balls for them in flight. No measured age reaches the
// bound, and every run ends: a worker waiting on the others drains its
// own rings, so they cannot all wait on one another. With every ball
// measured the whole law is checked; measuring every 61st lets the staged
// two-choice loop run between.
func TestGoroutineBackpressureBoundsAges(t *testing.T) {
	m := uint64(1 << 20)
	if raceOn {
		m = 1 << 16
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(4, runtime.NumCPU())))
	for _, c := range []struct {
		n     uint64
		W     int
		every uint64
	}{{2, 8, 1}, {8, 8, 61}, {1000, 3, 1}, {64, 64, 5}} {
		t.Run(fmt.Sprintf("n=%d/W=%d/every=%d", c.n, c.W, c.every), func(t *testing.T) {
			res, err := Run(Config{Spec: spec(t, "two-choice", nil, c.n, m, 41), Workers: c.W, Mode: Sharded, MeasureEvery: c.every})
			if err != nil {
				t.Fatal(err)
			}
			bound := ShardedAgeBound(c.W)
			t.Logf("bound %d: ages p99 %d max %d over %d balls, %d backpressure waits", bound, res.GlobalStaleness.P99,
				res.GlobalStaleness.Max, res.GlobalStaleness.Count, res.BackpressureWaits)
			if res.GlobalStaleness.Max >= bound {
				t.Errorf("max measured age %d, bound %d", res.GlobalStaleness.Max, bound)
			}
		})
	}
}
