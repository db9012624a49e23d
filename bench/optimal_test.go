package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/optimal"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/kernels"
)

// The optimal policy (two-thinning --threshold optimal, k-thinning
// --thresholds optimal) through engine.RunTrial on both engines, trials of
// m balls in n bins until b.N balls, beside a naive loop written the obvious
// way: each ball sorts a copy of the loads and looks the sorted vector up in
// a map to the DP's state, then reads the decision per sample. The table is
// built once, outside the timer (balloc's in the spec's Check; the naive
// loop's map from the same Space; at n = m = 50 the map and the table hold
// about 770 MB):
//
//	go test ./bench/ -run '^$' -bench 'Optimal' -benchtime 500000x -count 3

var optimalCases = []struct {
	name    string
	process string
	params  map[string]string
	n, m, k int
}{
	{"two-thinning-optimal", "two-thinning", map[string]string{"threshold": "optimal"}, 20, 20, 2},
	{"k-thinning-3-optimal", "k-thinning", map[string]string{"k": "3", "thresholds": "optimal"}, 20, 20, 3},
	{"two-thinning-optimal", "two-thinning", map[string]string{"threshold": "optimal"}, 50, 50, 2},
}

func BenchmarkOptimal(b *testing.B) {
	for _, c := range optimalCases {
		for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			b.Run(fmt.Sprintf("%s/n=%d,m=%d/%s", c.name, c.n, c.m, eng), func(b *testing.B) {
				trials := max(1, b.N/c.m)
				s, err := core.NewSpec(c.process, c.params, core.Common{Bins: uint64(c.n), Balls: uint64(c.m), Trials: trials, Seed: 1, Alpha: 1, Engine: eng})
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				start := cpuTime()
				for i := range trials {
					engine.RunTrial(s, uint64(i), nil)
				}
				b.StopTimer()
				reportOptimal(b, start, trials*c.m)
			})
		}
	}
}

// BenchmarkOptimalLoop is the direct engine's loop alone (the process's
// stepper on a load array, trial after trial), without engine.RunTrial's
// per-trial work (the result, its summaries), which at m = 20 balls a
// trial outweighs the balls.
func BenchmarkOptimalLoop(b *testing.B) {
	for _, c := range optimalCases {
		b.Run(fmt.Sprintf("%s/n=%d,m=%d", c.name, c.n, c.m), func(b *testing.B) {
			s, err := core.NewSpec(c.process, c.params, core.Common{Bins: uint64(c.n), Balls: uint64(c.m), Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineDirect})
			if err != nil {
				b.Fatal(err)
			}
			trials := max(1, b.N/c.m)
			loads := make([]uint32, c.n)
			b.ResetTimer()
			start := cpuTime()
			for i := range trials {
				r := kernels.TrialStream(1, uint64(i), kernels.LaneChoices)
				st := s.Proc.(process.Direct).Direct32(&process.Trial{Seed: 1, Index: uint64(i), Bins: uint64(c.n), Balls: uint64(c.m), Choices: &r})
				clear(loads)
				var top uint32
				for done := uint64(0); done < uint64(c.m); {
					k, mx := st.Step(loads, done, uint64(c.m)-done, top)
					done, top = done+k, mx
				}
			}
			b.StopTimer()
			reportOptimal(b, start, trials*c.m)
		})
	}
}

func BenchmarkOptimalNaive(b *testing.B) {
	for _, c := range optimalCases {
		b.Run(fmt.Sprintf("%s/n=%d,m=%d", c.name, c.n, c.m), func(b *testing.B) {
			sp, err := optimal.NewSpace(c.n, c.m)
			if err != nil {
				b.Fatal(err)
			}
			_, pol, _ := optimal.Solve(sp, c.k, true)
			states := naiveStates(sp)
			trials := max(1, b.N/c.m)
			loads := make([]int, c.n)
			b.ResetTimer()
			start := cpuTime()
			for range trials {
				clear(loads)
				naiveOptimal(loads, c.m, c.k, sp, pol, states)
			}
			b.StopTimer()
			reportOptimal(b, start, trials*c.m)
		})
	}
}

// reportOptimal reports balls per second and per CPU second for the balls
// the trials placed (b.N rounded down to whole trials).
func reportOptimal(b *testing.B, start time.Duration, balls int) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(balls)/s, "balls/s")
	}
	if cpu := cpuTime() - start; cpu > 0 {
		b.ReportMetric(float64(balls)/cpu.Seconds(), "balls/cpu-s")
	}
}

// naiveStates maps each state's sorted load vector (descending, as a
// string of one byte a bin) to its rank in its level, by walking the
// moves from the empty bins.
func naiveStates(sp *optimal.Space) map[string]int {
	states := map[string]int{}
	level := map[string]int{string(make([]byte, sp.N)): 0}
	for t := 0; t <= sp.M; t++ {
		next := map[string]int{}
		for v, s := range level {
			states[v] = s
			if t == sp.M {
				continue
			}
			for _, mv := range sp.MovesOf(t, s) {
				w := []byte(v)
				i := slices.Index(w, byte(mv.Load))
				w[i]++ // the first bin of that load: the vector stays descending
				next[string(w)] = int(mv.Next)
			}
		}
		level = next
	}
	return states
}

// naiveOptimal places m balls by the policy: per ball the sorted loads'
// state from the map, then up to K uniform samples (math/rand/v2), sample
// kept when the table keeps its load's move, the K-th kept.
func naiveOptimal(loads []int, m, k int, sp *optimal.Space, pol *optimal.Policy, states map[string]int) {
	n := len(loads)
	for t := range m {
		sorted := slices.Clone(loads)
		slices.SortFunc(sorted, func(a, b int) int { return b - a })
		key := make([]byte, n)
		for i, x := range sorted {
			key[i] = byte(x)
		}
		s := states[string(key)]
		moves := sp.MovesOf(t, s)
		i := rand.IntN(n)
		for c := k; c >= 2; c-- {
			mv := slices.IndexFunc(moves, func(mv optimal.Move) bool { return int(mv.Load) == loads[i] })
			if pol.Keep(t, s, mv, c) {
				break
			}
			i = rand.IntN(n)
		}
		loads[i]++
	}
}
