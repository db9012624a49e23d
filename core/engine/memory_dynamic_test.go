package engine

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/internal/stattest"
)

// Memory in the deletions model (core/process/memory.go, Memory's
// DeletionsWhy): the exact law of the load vector after a few steps for
// n ≤ 4, from the chain of (loads, cache) with random ties — memory_test.go's
// memoryExactFrom with a removal step beside each insertion — on the
// direct engine, with a power check.

// memoryDynamicLaw: each step inserts by memory (d samples, k cached, rule)
// with probability a, else removes a ball by dep; the cache keeps its bins
// through removals. The cache starts as a uniform k-subset.
func memoryDynamicLaw(n, steps, d, k int, rule cacheRule, a float64, dep departure) map[vec]float64 {
	type state struct {
		loads vec
		cache string
	}
	law := map[state]float64{}
	var all [][]int
	subsets(allBins(n), k, func(s []int) { all = append(all, slices.Clone(s)) })
	for _, s := range all {
		law[state{vec(make([]byte, n)), setKey(s)}] = 1 / float64(len(all))
	}
	for range steps {
		next := map[state]float64{}
		for st, p := range law {
			loads := make([]int, n)
			for i := range loads {
				loads[i] = int(st.loads[i])
			}
			stay := 1.0
			for b, pb := range dep(loads) {
				if pb > 0 {
					w := []byte(st.loads)
					w[b]--
					next[state{vec(w), st.cache}] += p * (1 - a) * pb
					stay -= pb
				}
			}
			if stay > 1e-12 {
				next[st] += p * (1 - a) * stay
			}
			memoryBall(loads, st.cache, d, k, rule, func(w vec, cache string, pw float64) {
				next[state{w, cache}] += p * a * pw
			})
		}
		law = next
	}
	out := map[vec]float64{}
	for st, p := range law {
		out[st.loads] += p
	}
	return out
}

type memoryDeletionCase struct {
	n, steps, d, k int
	rule, mode     string
	p              float64
}

func (c memoryDeletionCase) dc() dynamicCase {
	return deletionCase("memory", map[string]string{"d": strconv.Itoa(c.d), "k": strconv.Itoa(c.k), "cache-rule": c.rule}, c.n, c.steps, c.p, c.mode, nil)
}

func (c memoryDeletionCase) law(rule cacheRule) map[vec]float64 {
	dep := uniformBall
	if c.mode == "bin" {
		dep = uniformBusyBin
	}
	return memoryDynamicLaw(c.n, c.steps, c.d, c.k, rule, 1-c.p, dep)
}

func TestMemoryDeletionsMatchExactLaw(t *testing.T) {
	for i, c := range []memoryDeletionCase{
		{3, 8, 1, 1, "least-loaded", "ball", 0.3},
		{3, 8, 1, 1, "last-used", "bin", 0.35},
		{3, 7, 2, 1, "least-loaded", "bin", 0.3},
		{4, 7, 1, 2, "least-loaded", "ball", 0.25},
	} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			rule := extremeK(true)
			if c.rule == "last-used" {
				rule = lastUsed
			}
			obs := simulateDynamic(t, c.dc(), core.EngineDirect, memoryTrials(), uint64(6000+i))
			stat, limit, df := stattest.Law(c.law(rule), obs, memoryTrials())
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
			}
		})
	}
}

// Power: the cache rule swapped (last-used for least-loaded) and the
// heaviest kept instead of the lightest are told apart with deletions.
func TestMemoryDeletionsExactLawHasPower(t *testing.T) {
	c := memoryDeletionCase{3, 8, 1, 1, "least-loaded", "ball", 0.3}
	obs := simulateDynamic(t, c.dc(), core.EngineDirect, memoryTrials(), 81)
	for name, rule := range map[string]cacheRule{"last-used": lastUsed, "heaviest": extremeK(false)} {
		if stat, limit, _ := stattest.Law(c.law(rule), obs, memoryTrials()); stat <= limit {
			t.Errorf("%s passed: χ² = %.1f ≤ %.1f", name, stat, limit)
		}
	}
}

// Memory's deletions run on the direct engine only, and not in the
// supermarket: one line each; auto picks direct.
func TestMemoryDeletionsEngine(t *testing.T) {
	com := core.Common{Bins: 100, Balls: 1000, Trials: 1, Alpha: 1, Dynamic: core.Dynamic{DeleteProb: 0.3}}
	s, err := core.NewSpec("memory", nil, com)
	if err != nil {
		t.Fatal(err)
	}
	if s.ResolvedEngine() != core.EngineDirect {
		t.Errorf("auto chose %s", s.ResolvedEngine())
	}
	com.Engine = core.EngineHistogram
	if _, err := core.NewSpec("memory", nil, com); err == nil {
		t.Error("memory's deletions ran on the histogram engine")
	}
	com = core.Common{Bins: 100, Trials: 1, Alpha: 1, Dynamic: core.Dynamic{ArrivalRate: 0.5, Time: 1}}
	if _, err := core.NewSpec("memory", nil, com); err == nil {
		t.Error("memory ran in the supermarket model")
	}
}

// At p = 0 memory's deletions are its static run field for field.
func TestMemoryDeletionsAtZeroAreStatic(t *testing.T) {
	params := map[string]string{"d": "2", "k": "2"}
	com := core.Common{Bins: 1000, Balls: 40000, Trials: 1, Seed: 9, Alpha: 0.5, Engine: core.EngineDirect, Checkpoints: 7}
	static, err := core.NewSpec("memory", params, com)
	if err != nil {
		t.Fatal(err)
	}
	com.Dynamic = core.Dynamic{DeleteProb: 0, Delete: "bin"}
	dyn, err := core.NewSpec("memory", params, com)
	if err != nil {
		t.Fatal(err)
	}
	a, b := RunTrial(static, 2, nil), RunTrial(dyn, 2, nil)
	a.ElapsedS, a.BallsPerS, b.ElapsedS, b.BallsPerS = 0, 0, 0, 0
	b.Dynamic, a.Params, b.Params = nil, nil, nil
	if fmt.Sprintf("%+v", *a) != fmt.Sprintf("%+v", *b) {
		t.Errorf("static and p = 0 differ:\n%+v\n%+v", *a, *b)
	}
}
