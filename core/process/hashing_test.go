package process_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/internal/proctable"
	"github.com/balloc/balloc/internal/stattest"
	"github.com/balloc/balloc/kernels"
)

// hashingLaw is the exact law of the load vector of bounded-hashing after m
// balls in n bins with v ring points each, on a continuous ring: the nv
// points are i.i.d. uniform, so their order is a uniform permutation of
// the nodes and, independently, the nv arcs (an arc ends at its node, the
// one a ball landing in it reaches first) are Dirichlet(1, …, 1). A
// sequence of arcs with k_i balls in arc i has probability
// E[∏ D_i^k_i] = (nv − 1)! ∏ k_i! / (m + nv − 1)!, and given the order and
// the arcs the walks are fixed. Enumerates (nv)! orders × (nv)^m arcs.
func hashingLaw(c string, n, v, m int) map[string]float64 {
	N := n * v
	fact := func(k int) float64 { return math.Gamma(float64(k) + 1) }
	law := map[string]float64{}
	perm := make([]int, N)
	for i := range perm {
		perm[i] = i
	}
	var orders [][]int // the bin of each ring position
	var permute func(k int)
	permute = func(k int) {
		if k == N {
			o := make([]int, N)
			for i, x := range perm {
				o[i] = x / v
			}
			orders = append(orders, o)
			return
		}
		for i := k; i < N; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			permute(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	permute(0)
	seq := make([]int, m)
	for {
		counts := make([]int, N)
		for _, s := range seq {
			counts[s]++
		}
		p := fact(N-1) / fact(m+N-1)
		for _, k := range counts {
			p *= fact(k)
		}
		p /= float64(len(orders))
		for _, o := range orders {
			loads := make([]uint64, n)
			for t, s := range seq {
				limit := hashCapacity(c, uint64(t+1), uint64(n))
				i := s
				for loads[o[i]] >= limit {
					i = (i + 1) % N
				}
				loads[o[i]]++
			}
			key := make([]byte, n)
			for b, x := range loads {
				key[b] = byte(x)
			}
			law[string(key)] += p
		}
		j := 0
		for j < m && seq[j] == N-1 {
			seq[j] = 0
			j++
		}
		if j == m {
			break
		}
		seq[j]++
	}
	return law
}

// TestHashingExactLaw: the direct engine's load vectors against the exact
// law over rings and balls, for tiny n. The ring's law (its uniform
// points, a fresh ring a trial) is part of what is tested: a ring fixed
// across trials, or capacities off by one ball, move the law.
func TestHashingExactLaw(t *testing.T) {
	trials := 40000
	if testing.Short() {
		trials = 12000
	}
	for i, tc := range []struct {
		c       string
		n, v, m int
	}{
		{"1.25", 3, 1, 5},
		{"1.5", 2, 2, 5},
		{"1.1", 4, 1, 4},
	} {
		t.Run(fmt.Sprintf("c=%s n=%d v=%d m=%d", tc.c, tc.n, tc.v, tc.m), func(t *testing.T) {
			law := hashingLaw(tc.c, tc.n, tc.v, tc.m)
			total := 0.0
			for _, p := range law {
				total += p
			}
			if math.Abs(total-1) > 1e-12 {
				t.Fatalf("the exact law sums to %v", total)
			}
			s, err := core.NewSpec("bounded-hashing", map[string]string{"c": tc.c, "vnodes": fmt.Sprint(tc.v)},
				core.Common{Bins: uint64(tc.n), Balls: uint64(tc.m), Trials: trials, Seed: uint64(70 + i), Alpha: 1, Engine: core.EngineDirect, KeepLoads: true})
			if err != nil {
				t.Fatal(err)
			}
			obs := map[string]int{}
			for k := range trials {
				res := engine.RunTrial(s, uint64(k), nil)
				key := make([]byte, tc.n)
				for b, x := range res.Loads {
					key[b] = byte(x)
				}
				obs[string(key)]++
			}
			if stat, limit, df := stattest.Law(law, obs, trials); stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4) against the exact law (%d trials)", stat, df, limit, trials)
			}
		})
	}
}

// TestHashingBoundEveryBall: the paper's guarantee, max load ≤ ⌈c·t/n⌉
// after each ball t, on the direct engine with a checkpoint at every ball
// (each a call of the kernel), and at the end of runs thrown in one call.
func TestHashingBoundEveryBall(t *testing.T) {
	for _, tc := range []struct {
		c    string
		n, v uint64
	}{{"1.1", 40, 1}, {"1.25", 40, 4}, {"1.01", 7, 1}, {"2", 100, 2}} {
		m := uint64(2000)
		s, err := core.NewSpec("bounded-hashing", map[string]string{"c": tc.c, "vnodes": fmt.Sprint(tc.v)},
			core.Common{Bins: tc.n, Balls: m, Trials: 1, Seed: 9, Alpha: 1, Engine: core.EngineDirect, Checkpoints: m})
		if err != nil {
			t.Fatal(err)
		}
		res := engine.RunTrial(s, 0, nil)
		if len(res.Checkpoints) != int(m) {
			t.Fatalf("%d checkpoints, want %d", len(res.Checkpoints), m)
		}
		tight := 0
		for _, cp := range res.Checkpoints {
			bound := hashCapacity(tc.c, cp.Balls, tc.n)
			if cp.MaxLoad > float64(bound) {
				t.Fatalf("c = %s, n = %d, v = %d: after %d balls max load %v > ⌈c·t/n⌉ = %d", tc.c, tc.n, tc.v, cp.Balls, cp.MaxLoad, bound)
			}
			if cp.MaxLoad == float64(bound) {
				tight++
			}
		}
		if tight == 0 {
			t.Errorf("c = %s, n = %d: the bound was never reached in %d balls: the test cannot tell a looser capacity", tc.c, tc.n, m)
		}
		for _, big := range []uint64{12345, 100003} {
			s, err := core.NewSpec("bounded-hashing", map[string]string{"c": tc.c, "vnodes": fmt.Sprint(tc.v)},
				core.Common{Bins: tc.n, Balls: big, Trials: 1, Seed: 9, Alpha: 1, Engine: core.EngineDirect})
			if err != nil {
				t.Fatal(err)
			}
			if res := engine.RunTrial(s, 0, nil); res.MaxLoad > float64(hashCapacity(tc.c, big, tc.n)) {
				t.Errorf("c = %s, n = %d: max load %v after %d balls > %d", tc.c, tc.n, res.MaxLoad, big, hashCapacity(tc.c, big, tc.n))
			}
		}
	}
}

// TestHashingProbes: the probes the engine reports (mean and max per
// ball) are the nodes the slow loop visits, ball for ball, at n = 2000
// bins of 3 points (the ring's bucket table beyond a few buckets); with
// checkpoints too, which cut the run into calls of the kernel (each
// draws its balls' points and no more).
func TestHashingProbes(t *testing.T) {
	const n, v, m, seed, trial = 2000, 3, 50_000, 5, 2
	for _, tc := range []struct {
		c      string
		checks uint64
	}{{"1.05", 0}, {"1.5", 0}, {"1.25", 7}} {
		c := tc.c
		s, err := core.NewSpec("bounded-hashing", map[string]string{"c": c, "vnodes": "3"},
			core.Common{Bins: n, Balls: m, Trials: 1, Seed: seed, Alpha: 1, Engine: core.EngineDirect, KeepLoads: true, Checkpoints: tc.checks})
		if err != nil {
			t.Fatal(err)
		}
		res := engine.RunTrial(s, trial, nil)
		rng := kernels.TrialStream(seed, trial, kernels.LaneChoices)
		st := kernels.TrialStream(seed, trial, kernels.LaneStructure)
		tr := proctable.Trial{Choices: &rng, Structure: &st, Balls: m}
		var probes []uint64
		slow := slowHashing(c, v, &probes)
		loads := make([]uint64, n)
		for b := range uint64(m) {
			slow(loads, tr, b)
		}
		for i, x := range loads {
			if res.Loads[i] != float64(x) {
				t.Fatalf("c = %s: bin %d holds %v on the engine, %d by the slow loop", c, i, res.Loads[i], x)
			}
		}
		total, most := uint64(0), uint64(0)
		for _, k := range probes {
			total, most = total+k, max(most, k)
		}
		p := res.Probes()
		if p == nil || p.Max != most || p.Mean != float64(total)/m {
			t.Errorf("c = %s: probes %+v, the slow loop's mean %v max %d", c, p, float64(total)/m, most)
		}
		t.Logf("c = %s: probes mean %.4f, max %d", c, p.Mean, p.Max)
	}
}
