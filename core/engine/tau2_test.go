package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/internal/stattest"
	"github.com/balloc/balloc/kernels"
)

// --tau T --delay fixed for threshold, adaptive, twinning, packing and
// kd-choice (core/process/delay.go and each process's file): every load a decision reads τ balls
// old, every count exact. The engine against the literal rules ball for
// ball (batchany_test.go's rules, given the loads τ balls ago and the balls
// placed t), --tau 0 as the process, the refusals in one line, and the
// exact law of the load vector for n = 3 with a power check against the
// undelayed process (τ = 0 in the same enumeration).

// literalDelayed runs rule ball by ball: a step is decided, when no ball is
// owed, on the loads after the first t − min(t, τ) balls and t.
func literalDelayed(n int, tau, m uint64, r *kernels.PCG32, rule batchRule) []uint64 {
	loads := make([]uint64, n)
	var hist, owed []uint32
	for t := uint64(0); t < m; t++ {
		if len(owed) == 0 {
			old := make([]uint64, n)
			for _, b := range hist[:t-min(t, tau)] {
				old[b]++
			}
			owed = rule(old, t, r)
		}
		hist = append(hist, owed[0])
		loads[owed[0]]++
		owed = owed[1:]
	}
	return loads
}

type tau2Case struct {
	process string
	params  map[string]string
	rule    func(n int, m uint64) batchRule
}

func tau2Cases() []tau2Case {
	return []tau2Case{
		{"threshold", nil, func(n int, m uint64) batchRule { return retryRule(n, (m+uint64(n)-1)/uint64(n)+1, false) }},
		{"adaptive", nil, func(n int, _ uint64) batchRule { return retryRule(n, 0, true) }},
		{"twinning", nil, func(n int, _ uint64) batchRule { return twinningRule(n, false) }},
		{"packing", nil, func(n int, _ uint64) batchRule { return twinningRule(n, true) }},
		{"kd-choice", map[string]string{"k": "2", "d": "3"}, func(n int, _ uint64) batchRule { return kdRule(n, 2, 3) }},
		{"kd-choice", map[string]string{"k": "3", "d": "5"}, func(n int, _ uint64) batchRule { return kdRule(n, 3, 5) }},
		{"kd-choice", map[string]string{"k": "1", "d": "3"}, func(n int, _ uint64) batchRule { return kdRule(n, 1, 3) }},
	}
}

func TestTau2BallForBall(t *testing.T) {
	const n, m = 7, 600
	for _, c := range tau2Cases() {
		for _, tau := range []uint64{1, 5, 30, 1000} {
			s := mustSpec(t, c.process, withParams(c.params, "tau", fmt.Sprint(tau)), core.Common{Bins: n, Balls: m, Seed: 3, KeepLoads: true})
			got := RunTrial(s, 0, nil).Loads
			r := kernels.TrialStream(3, 0, kernels.LaneChoices)
			want := literalDelayed(n, tau, m, &r, c.rule(n, m))
			for i := range want {
				if got[i] != float64(want[i]) {
					t.Fatalf("%s%v τ=%d: bin %d holds %v, the literal rule %d", c.process, c.params, tau, i, got[i], want[i])
				}
			}
		}
		cm := core.Common{Bins: 9, Balls: 2000, Trials: 2, Seed: 4, KeepLoads: true, Checkpoints: 3}
		a := mustSpec(t, c.process, c.params, cm)
		b := mustSpec(t, c.process, withParams(c.params, "tau", "0"), cm)
		if !sameTrials(t, a, b, 2) {
			t.Errorf("%s%v: --tau 0 differs from the process", c.process, c.params)
		}
		for _, bad := range [][]string{
			{"tau", "3", "delay", "uniform"},
			{"tau", "3", "delay", "adversarial"},
			{"tau", "3", "batch", "4"},
			{"tau", "3", "initial", "spike:3"},
			{"tau", "3", "weights", "exp:1"},
		} {
			_, err := core.NewSpec(c.process, withParams(c.params, bad...), core.Common{Bins: 4, Balls: 10, Trials: 1, Alpha: 1})
			if err == nil || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s %v: %v", c.process, bad, err)
			}
		}
	}
}

// exactDelayed propagates the law of (loads, the last min(t, τ) balls'
// bins, balls owed) ball by ball: when no ball is owed a step's outcomes
// come from law on the loads τ balls ago (loads less the window) and t;
// the law of the final load vector.
func exactDelayed(n, m, tau int, law batchLaw) map[vec]float64 {
	type state struct{ loads, window, owed []int }
	key := func(s state) string { return fmt.Sprint(s.loads, s.window, s.owed) }
	cur := map[string]float64{}
	states := map[string]state{}
	s0 := state{make([]int, n), nil, nil}
	cur[key(s0)], states[key(s0)] = 1, s0
	for t := range m {
		next, nextStates := map[string]float64{}, map[string]state{}
		place := func(s state, b int, owed []int, p float64) {
			loads := slices.Clone(s.loads)
			loads[b]++
			window := append(slices.Clone(s.window), b)
			if len(window) > tau {
				window = window[1:]
			}
			ns := state{loads, window, slices.Clone(owed)}
			k := key(ns)
			next[k] += p
			nextStates[k] = ns
		}
		for k, p := range cur {
			s := states[k]
			if len(s.owed) > 0 {
				place(s, s.owed[0], s.owed[1:], p)
				continue
			}
			old := slices.Clone(s.loads)
			for _, b := range s.window {
				old[b]--
			}
			for _, o := range law(old, t) {
				place(s, o.bins[0], o.bins[1:], p*o.p)
			}
		}
		cur, states = next, nextStates
	}
	out := map[vec]float64{}
	for k, p := range cur {
		v := make([]byte, n)
		for i, x := range states[k].loads {
			v[i] = byte(x)
		}
		out[vec(v)] += p
	}
	return out
}

type tau2LawCase struct {
	process string
	params  map[string]string
	n, m    int
	tau     int
	law     batchLaw
}

func tau2LawCases() []tau2LawCase {
	adaptive := retryLaw(func(n, w, x int) bool { return n*x < w+1+n })
	return []tau2LawCase{
		{"threshold", nil, 3, 7, 2, retryLaw(func(n, _, x int) bool { return x < (7+n-1)/n+1 })},
		{"adaptive", nil, 3, 7, 1, adaptive},
		{"adaptive", nil, 3, 7, 2, adaptive},
		{"twinning", nil, 3, 7, 1, twinningLaw(false)},
		{"twinning", nil, 3, 8, 2, twinningLaw(false)},
		{"packing", nil, 3, 8, 2, twinningLaw(true)},
		{"kd-choice", map[string]string{"k": "2", "d": "3"}, 3, 6, 1, kdLaw(2, 3)},
		{"kd-choice", map[string]string{"k": "2", "d": "3"}, 3, 7, 2, kdLaw(2, 3)},
	}
}

func TestTau2MatchesExactLaw(t *testing.T) {
	trials := lawTrials(30000)
	for i, c := range tau2LawCases() {
		t.Run(fmt.Sprintf("%s%v/n=%d,m=%d,τ=%d", c.process, c.params, c.n, c.m, c.tau), func(t *testing.T) {
			obs := simulateVectors(t, exactCase{c.process, withParams(c.params, "tau", fmt.Sprint(c.tau)), c.n, c.m, nil}, trials, uint64(9100+i))
			exactCheck(t, exactDelayed(c.n, c.m, c.tau, c.law), obs, trials)
			stat, limit, df := stattest.Law(exactDelayed(c.n, c.m, 0, c.law), obs, trials)
			t.Logf("χ² = %.1f on %d df against --tau 0's law, limit %.1f", stat, df, limit)
			if stat <= limit {
				t.Errorf("passed as the undelayed process: χ² = %.1f ≤ %.1f", stat, limit)
			}
		})
	}
}

// kd-choice k = 1 --tau T is d-choice --tau T --delay fixed in law (each
// of the d samples read τ balls old); here ball for ball as well.
func TestTau2KDChoiceOneIsDChoice(t *testing.T) {
	c := core.Common{Bins: 9, Balls: 2000, Trials: 2, Seed: 5, KeepLoads: true, Checkpoints: 3}
	for _, tau := range []string{"1", "13", "500"} {
		a := mustSpec(t, "kd-choice", map[string]string{"k": "1", "d": "3", "tau": tau}, c)
		b := mustSpec(t, "d-choice", map[string]string{"d": "3", "tau": tau}, c)
		if !sameTrials(t, a, b, 2) {
			t.Errorf("τ=%s: kd-choice k=1 differs from d-choice", tau)
		}
	}
}
