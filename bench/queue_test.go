package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/units"
)

// The queueing policies beside JSQ(d) (jiq, redundancy; events a second in
// the supermarket model, time averages kept) and leaky bins (rounds a
// second), through engine.RunTrial, each beside the loop one writes first:
// math/rand/v2's top-level generator, []int loads, a count of bins per level
// kept per event and summed over the levels at every event (as
// naiveSupermarket); JIQ's idle bins in a slice with positions (swap
// removal), Redundancy-d's queues as slices of job numbers (a finished job
// taken out of each of its d queues by a scan), leaky bins' batch as n
// coins and a copy of the loads a round.

// levelSums adds the bins at or above each level to sums (the naive time
// averages).
func levelSums(atLeast []int, sums []float64) []float64 {
	for k := 1; k < len(atLeast); k++ {
		if k > len(sums) {
			sums = append(sums, 0)
		}
		sums[k-1] += float64(atLeast[k])
	}
	return sums
}

func naiveUp(atLeast []int, l int) []int {
	if l+1 == len(atLeast) {
		atLeast = append(atLeast, 0)
	}
	atLeast[l+1]++
	return atLeast
}

func naiveJIQ(n, events int, lambda float64) []float64 {
	loads := make([]int, n)
	idle, pos := make([]int, n), make([]int, n)
	for i := range idle {
		idle[i], pos[i] = i, i
	}
	atLeast := []int{n, 0}
	var sums []float64
	for range events {
		if rand.Float64() < lambda/(1+lambda) {
			var i int
			if len(idle) > 0 {
				j := rand.IntN(len(idle))
				i = idle[j]
				last := idle[len(idle)-1]
				idle[j], pos[last] = last, j
				idle = idle[:len(idle)-1]
			} else {
				i = rand.IntN(n)
			}
			atLeast = naiveUp(atLeast, loads[i])
			loads[i]++
		} else if i := rand.IntN(n); loads[i] > 0 {
			atLeast[loads[i]]--
			loads[i]--
			if loads[i] == 0 {
				pos[i] = len(idle)
				idle = append(idle, i)
			}
		}
		sums = levelSums(atLeast, sums)
	}
	return sums
}

func naiveRedundancy(n, events, d int, lambda float64) []float64 {
	queues := make([][]int, n)
	var servers [][]int
	atLeast := []int{n, 0}
	var sums []float64
	for range events {
		if rand.Float64() < lambda/(1+lambda) {
			var picked []int
			for len(picked) < d {
				if i := rand.IntN(n); !slices.Contains(picked, i) {
					picked = append(picked, i)
				}
			}
			job := len(servers)
			servers = append(servers, picked)
			for _, i := range picked {
				atLeast = naiveUp(atLeast, len(queues[i]))
				queues[i] = append(queues[i], job)
			}
		} else if i := rand.IntN(n); len(queues[i]) > 0 {
			job := queues[i][0]
			for _, k := range servers[job] {
				atLeast[len(queues[k])]--
				queues[k] = slices.DeleteFunc(queues[k], func(j int) bool { return j == job })
			}
		}
		sums = levelSums(atLeast, sums)
	}
	return sums
}

func BenchmarkQueues(b *testing.B) {
	const lambda = 0.9
	for _, n := range []uint64{1_000, 100_000} {
		for _, c := range []struct {
			process string
			params  map[string]string
			engines []core.Engine
		}{
			{"jiq", nil, []core.Engine{core.EngineDirect, core.EngineHistogram}},
			{"redundancy", map[string]string{"d": "2"}, []core.Engine{core.EngineDirect}},
		} {
			name := fmt.Sprintf("%s/lambda=%v/n=%s", c.process, lambda, units.FormatCount(n))
			for _, eng := range c.engines {
				b.Run(fmt.Sprintf("%s/%s", name, eng), func(b *testing.B) {
					s, err := core.NewSpec(c.process, c.params, core.Common{Bins: n, Trials: 1, Seed: 1, Alpha: 1, Engine: eng,
						Dynamic: core.Dynamic{ArrivalRate: lambda, Events: uint64(b.N)}})
					if err != nil {
						b.Fatal(err)
					}
					b.ResetTimer()
					cpu := cpuSeconds()
					engine.RunTrial(s, 0, nil)
					reportEvents(b, cpu)
				})
			}
			b.Run(name+"/naive", func(b *testing.B) {
				b.ResetTimer()
				cpu := cpuSeconds()
				if c.process == "jiq" {
					naiveJIQ(int(n), b.N, lambda)
				} else {
					naiveRedundancy(int(n), b.N, 2, lambda)
				}
				reportEvents(b, cpu)
			})
		}
	}
}

// naiveLeaky is leaky bins written first: n coins for the batch, a copy of
// the loads, d rand.IntN a ball, a release pass, and the maximum and the
// empty bins after each round.
func naiveLeaky(n, d, rounds int, lambda float64) (maxSum, emptySum int) {
	loads := make([]int, n)
	for range rounds {
		frozen := slices.Clone(loads)
		for range n {
			if rand.Float64() >= lambda {
				continue
			}
			best := rand.IntN(n)
			for k := 1; k < d; k++ {
				if j := rand.IntN(n); frozen[j] < frozen[best] {
					best = j
				}
			}
			loads[best]++
		}
		top, empty := 0, 0
		for i := range loads {
			if loads[i] > 0 {
				loads[i]--
			}
			top = max(top, loads[i])
			if loads[i] == 0 {
				empty++
			}
		}
		maxSum += top
		emptySum += empty
	}
	return maxSum, emptySum
}

// BenchmarkLeaky: one trial of b.N rounds at λ = 0.9 from empty, d = 1
// and 2, beside naiveLeaky.
func BenchmarkLeaky(b *testing.B) {
	for _, n := range []uint64{10_000, 1_000_000} {
		for _, d := range []int{1, 2} {
			name := fmt.Sprintf("d=%d/n=%s", d, units.FormatCount(n))
			b.Run(name+"/direct", func(b *testing.B) {
				s, err := core.NewSpec("leaky", map[string]string{"rounds": fmt.Sprint(b.N), "lambda": "0.9", "d": fmt.Sprint(d)},
					core.Common{Bins: n, Trials: 1, Seed: 1, Alpha: 1})
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				engine.RunTrial(s, 0, nil)
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rounds/s")
			})
			b.Run(name+"/naive", func(b *testing.B) {
				naiveLeaky(int(n), d, b.N, 0.9)
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rounds/s")
			})
		}
	}
}
