package engine

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/internal/stattest"
)

// The memory process's exact law. For tiny n the Markov chain of (loads,
// cache) is enumerated from the definition of Mitzenmacher, Prabhakar and
// Shah (core/process/memory.go) with every tie broken by an explicit uniform
// choice — the ball's bin among the least loaded candidates, the cache among
// the K-sets that are "the K least loaded" — and the law of the load vector
// (the cache summed out) is compared with the direct engine's final vectors
// by a χ² test (stattest.Law, false alarm 1e-4). Candidates are distinct
// bins; the initial cache is a uniform K-subset.

// cacheRule picks the next cache from the candidates (distinct bins),
// their loads after the ball and the bin that took it: each returned set
// with the probability beside it.
type cacheRule func(cands []int, loads []int, took int, k int) map[string]float64

func setKey(bins []int) string {
	s := slices.Clone(bins)
	slices.Sort(s)
	b := make([]byte, len(s))
	for i, x := range s {
		b[i] = byte(x)
	}
	return string(b)
}

// subsets calls f with every k-subset of xs.
func subsets(xs []int, k int, f func([]int)) {
	var rec func(from int, cur []int)
	rec = func(from int, cur []int) {
		if len(cur) == k {
			f(cur)
			return
		}
		for i := from; i < len(xs); i++ {
			rec(i+1, append(cur, xs[i]))
		}
	}
	rec(0, nil)
}

// extremeK keeps, uniformly among the ties, the min(k, |cands|) candidates
// of least load (light) or of most load.
func extremeK(light bool) cacheRule {
	return func(cands, loads []int, _ int, k int) map[string]float64 {
		k = min(k, len(cands))
		var ok [][]int
		subsets(cands, k, func(set []int) {
			for _, a := range set {
				for _, b := range cands {
					if slices.Contains(set, b) {
						continue
					}
					if (light && loads[b] < loads[a]) || (!light && loads[b] > loads[a]) {
						return // an outside candidate beats a kept one
					}
				}
			}
			ok = append(ok, slices.Clone(set))
		})
		out := map[string]float64{}
		for _, set := range ok {
			out[setKey(set)] += 1 / float64(len(ok))
		}
		return out
	}
}

// lastUsed keeps the bin that took the ball.
func lastUsed(_, _ []int, took, _ int) map[string]float64 {
	return map[string]float64{setKey([]int{took}): 1}
}

// memoryExact is the law of the load vector after m balls of the memory
// process with d samples and k cached bins, starting from a uniform k-subset
// (or, empty, from no cache: the first balls see their samples only).
func memoryExact(n, m, d, k int, rule cacheRule, empty bool) map[vec]float64 {
	return memoryExactFrom(make([]int, n), m, d, k, rule, empty)
}

// memoryExactFrom is memoryExact from the load vector start (--initial).
func memoryExactFrom(start []int, m, d, k int, rule cacheRule, empty bool) map[vec]float64 {
	type state struct {
		loads vec
		cache string
	}
	n := len(start)
	law := map[state]float64{}
	zero := make([]byte, n)
	for i, x := range start {
		zero[i] = byte(x)
	}
	if empty {
		law[state{vec(zero), ""}] = 1
	} else {
		var all [][]int
		subsets(allBins(n), k, func(s []int) { all = append(all, slices.Clone(s)) })
		for _, s := range all {
			law[state{vec(zero), setKey(s)}] = 1 / float64(len(all))
		}
	}
	for range m {
		next := map[state]float64{}
		for st, p := range law {
			loads := make([]int, n)
			for i := range loads {
				loads[i] = int(st.loads[i])
			}
			memoryBall(loads, st.cache, d, k, rule, func(w vec, cache string, pw float64) {
				next[state{w, cache}] += p * pw
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

type memoryCase struct {
	n, m, d, k int
	rule       string // --cache-rule
}

func (c memoryCase) params() map[string]string {
	return map[string]string{"d": strconv.Itoa(c.d), "k": strconv.Itoa(c.k), "cache-rule": c.rule}
}

func (c memoryCase) law() map[vec]float64 {
	rule := extremeK(true)
	if c.rule == "last-used" {
		rule = lastUsed
	}
	return memoryExact(c.n, c.m, c.d, c.k, rule, false)
}

func (c memoryCase) simulate(t *testing.T, trials int, seed uint64) map[vec]int {
	return simulateVectors(t, exactCase{"memory", c.params(), c.n, c.m, nil}, trials, seed)
}

// memoryTrials is the memory exact-law tests' trials: lawTrials(40000).
func memoryTrials() int { return lawTrials(40000) }

func TestMemoryMatchesExactLaw(t *testing.T) {
	t.Parallel()
	for i, c := range []memoryCase{
		{3, 6, 1, 1, "least-loaded"},
		{4, 6, 1, 1, "least-loaded"},
		{3, 5, 2, 1, "least-loaded"},
		{4, 6, 1, 2, "least-loaded"},
		{4, 5, 2, 2, "least-loaded"},
		{3, 5, 3, 1, "least-loaded"},
		{3, 5, 1, 3, "least-loaded"}, // the cache is every bin: perfectly balanced
		{3, 6, 1, 1, "last-used"},
		{4, 5, 2, 1, "last-used"},
	} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			law := c.law()
			stat, limit, df := stattest.Law(law, c.simulate(t, memoryTrials(), uint64(2000+i)), memoryTrials())
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
			}
			t.Logf("χ² = %.1f on %d df (limit %.1f)", stat, df, limit)
		})
	}
}

// The test tells Memory from its neighbours: the engine's least-loaded
// vectors fail against a cache that keeps the most loaded candidate, the
// last-used rule, an empty initial cache, and Two-Choice; its last-used
// vectors fail against the least-loaded law.
func TestMemoryExactLawHasPower(t *testing.T) {
	c := memoryCase{4, 6, 1, 1, "least-loaded"}
	obs := c.simulate(t, memoryTrials(), 7)
	wrong := map[string]map[vec]float64{
		"most-loaded cache": memoryExact(4, 6, 1, 1, extremeK(false), false),
		"last-used cache":   memoryExact(4, 6, 1, 1, lastUsed, false),
		"empty first cache": memoryExact(4, 6, 1, 1, extremeK(true), true),
		"two-choice":        exactLaw(4, 6, dChoiceExact(4, 2)),
	}
	for _, name := range slices.Sorted(maps.Keys(wrong)) {
		stat, limit, df := stattest.Law(wrong[name], obs, memoryTrials())
		if stat <= limit {
			t.Errorf("memory passed as %s: χ² = %.1f ≤ %.1f", name, stat, limit)
		}
		t.Logf("against %s: χ² = %.1f on %d df (limit %.1f)", name, stat, df, limit)
	}
	lu := memoryCase{4, 6, 1, 1, "last-used"}
	stat, limit, df := stattest.Law(c.law(), lu.simulate(t, memoryTrials(), 8), memoryTrials())
	if stat <= limit {
		t.Errorf("last-used passed as least-loaded: χ² = %.1f ≤ %.1f", stat, limit)
	}
	t.Logf("last-used against least-loaded: χ² = %.1f on %d df (limit %.1f)", stat, df, limit)
}

// K = 0 is d-Choice ball for ball: the same seed gives the same loads.
func TestMemoryKZeroIsDChoice(t *testing.T) {
	for _, d := range []string{"1", "2", "3"} {
		for _, n := range []uint64{7, 1000} {
			common := core.Common{Bins: n, Balls: 20 * n, Seed: 11, KeepLoads: true}
			mem := mustSpec(t, "memory", map[string]string{"d": d, "k": "0"}, common)
			dc := mustSpec(t, "d-choice", map[string]string{"d": d}, common)
			for k := range uint64(3) {
				a, b := RunTrial(mem, k, nil), RunTrial(dc, k, nil)
				if !slices.Equal(a.Loads, b.Loads) {
					t.Fatalf("d=%s n=%d trial %d: memory --k 0 differs from d-choice", d, n, k)
				}
			}
		}
	}
}

// The histogram engine against the exact law of the sorted load vector
// (all it can see), for the same cases as the direct engine.
func TestMemoryHistogramMatchesExactLaw(t *testing.T) {
	t.Parallel()
	for i, c := range []memoryCase{
		{3, 6, 1, 1, "least-loaded"},
		{4, 6, 1, 1, "least-loaded"},
		{3, 5, 2, 1, "least-loaded"},
		{4, 6, 1, 2, "least-loaded"},
		{4, 5, 2, 2, "least-loaded"},
		{3, 5, 3, 1, "least-loaded"},
		{3, 5, 1, 3, "least-loaded"},
		{3, 6, 1, 1, "last-used"},
		{4, 5, 2, 1, "last-used"},
	} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			obs := histogramVectors(t, "memory", c.params(), c.n, c.m, memoryTrials(), uint64(3000+i), 0)
			stat, limit, df := stattest.Law(sortedLaw(c.law()), obs, memoryTrials())
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
			}
			t.Logf("χ² = %.1f on %d df (limit %.1f)", stat, df, limit)
		})
	}
}

// The sorted test has power too: the histogram engine's least-loaded
// vectors fail against the most-loaded and last-used laws, and its
// last-used vectors against the least-loaded law.
func TestMemoryHistogramExactLawHasPower(t *testing.T) {
	c := memoryCase{4, 6, 1, 1, "least-loaded"}
	obs := histogramVectors(t, "memory", c.params(), c.n, c.m, memoryTrials(), 9, 0)
	lu := memoryCase{4, 6, 1, 1, "last-used"}
	for name, pair := range map[string]struct {
		law map[vec]float64
		obs map[vec]int
	}{
		"least-loaded as most-loaded": {memoryExact(4, 6, 1, 1, extremeK(false), false), obs},
		"least-loaded as last-used":   {lu.law(), obs},
		"last-used as least-loaded":   {c.law(), histogramVectors(t, "memory", lu.params(), lu.n, lu.m, memoryTrials(), 10, 0)},
	} {
		stat, limit, df := stattest.Law(sortedLaw(pair.law), pair.obs, memoryTrials())
		if stat <= limit {
			t.Errorf("%s passed: χ² = %.1f ≤ %.1f", name, stat, limit)
		}
		t.Logf("%s: χ² = %.1f on %d df (limit %.1f)", name, stat, df, limit)
	}
}

// Histogram against direct in distribution at sizes the exact law cannot
// reach: the gap's law and the mean fraction of bins at each load, over
// 400 trials an engine, and under -short over the trials that still fail
// a histogram engine running a neighbouring memory process (same seeds;
// largest Welch |t| against the limit 4.5, the right engine's in
// brackets): k = 2 for the default k = 1, |t| = 53.5 at 400 trials and
// 24.3 at 100 [1.1]; d = 2, k = 1 for k = 2, 15.9 and 8.7 [1.1];
// k = 2 for k = 3, 9.9 at 400 but 4.8 at 100, so that case keeps 400;
// least-loaded for last-used, 60.0 and 28.4 [1.4]. |t| grows as √trials.
func TestMemoryHistogramAgreesWithDirect(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		params map[string]string
		n, m   uint64
		short  int // trials under -short
	}{
		{map[string]string{}, 1000, 100_000, 100},
		{map[string]string{"d": "2", "k": "2"}, 500, 50_000, 100},
		{map[string]string{"k": "3"}, 200, 20_000, 400},
		{map[string]string{"cache-rule": "last-used"}, 1000, 100_000, 100},
	} {
		t.Run(fmt.Sprint(c.params), func(t *testing.T) {
			trials := 400
			if testing.Short() {
				trials = c.short
			}
			compareEngines(t, "memory", c.params, c.n, c.m, trials, 0, 21, 22)
		})
	}
}

// memoryBall is one memory ball from loads and cache (a setKey of bins):
// every tuple of d samples, the least loaded candidate with random ties,
// the next cache by rule; emit gets each outcome with its probability.
func memoryBall(loads []int, cache string, d, k int, rule cacheRule, emit func(w vec, cache string, p float64)) {
	n := len(loads)
	tuples := int(math.Pow(float64(n), float64(d)))
	for tu := range tuples {
		cands := []int{}
		for _, c := range []byte(cache) {
			cands = append(cands, int(c))
		}
		for x, j := tu, 0; j < d; j, x = j+1, x/n {
			if b := x % n; !slices.Contains(cands, b) {
				cands = append(cands, b)
			}
		}
		lo := math.MaxInt
		for _, b := range cands {
			lo = min(lo, loads[b])
		}
		var tied []int
		for _, b := range cands {
			if loads[b] == lo {
				tied = append(tied, b)
			}
		}
		for _, b := range tied {
			after := slices.Clone(loads)
			after[b]++
			w := make([]byte, n)
			for i, x := range after {
				w[i] = byte(x)
			}
			pb := 1 / float64(tuples) / float64(len(tied))
			for c, pc := range rule(cands, after, b, k) {
				emit(vec(w), c, pb*pc)
			}
		}
	}
}
