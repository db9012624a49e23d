package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/internal/stattest"
)

// The sampling and tie options of d-choice, two-choice and one-plus-beta
// (core/process/sampling.go) against their exact laws for tiny n, each with
// a power check: the same test fails the neighbouring rule.

// indexTies is d-choice of d uniform samples with ties to the lowest bin
// index: every tuple's mass to its least loaded sample of lowest index.
func indexTies(n, d int) transition {
	return func(loads []int, _ int) []float64 {
		p := make([]float64, n)
		var rec func(k, best int, mass float64)
		rec = func(k, best int, mass float64) {
			if k == d {
				p[best] += mass
				return
			}
			for b := range n {
				nb := b
				if k > 0 && (loads[best] < loads[b] || loads[best] == loads[b] && best < b) {
					nb = best
				}
				rec(k+1, nb, mass/float64(n))
			}
		}
		rec(0, 0, 1)
		return p
	}
}

// batchedLaw is the exact law of the load vector after m balls when every
// ball of a batch of b decides by tr on the loads at the batch's start: the
// chain on (loads, frozen loads).
func batchedLaw(n, m int, b int, tr transition) map[vec]float64 {
	type state struct{ loads, frozen vec }
	zero := vec(make([]byte, n))
	law := map[state]float64{{zero, zero}: 1}
	for t := range m {
		next := map[state]float64{}
		for st, ps := range law {
			frozen := make([]int, n)
			for i := range frozen {
				frozen[i] = int(st.frozen[i])
			}
			for bin, pb := range tr(frozen, t) {
				if pb == 0 {
					continue
				}
				w := []byte(st.loads)
				w[bin]++
				f := st.frozen
				if (t+1)%b == 0 {
					f = vec(w)
				}
				next[state{vec(w), f}] += ps * pb
			}
		}
		law = next
	}
	out := map[vec]float64{}
	for st, p := range law {
		out[st.loads] += p
	}
	return out
}

type tiesCase struct {
	process string
	params  map[string]string
	n, m, b int
	law     transition // the process's transition on the loads it sees
	wrong   transition // a neighbour the test must reject
}

func tiesCases() []tiesCase {
	return []tiesCase{
		{"two-choice", map[string]string{"ties": "index"}, 2, 6, 1, indexTies(2, 2), dChoiceExact(2, 2)},
		{"two-choice", map[string]string{"ties": "index"}, 3, 5, 1, indexTies(3, 2), dChoiceExact(3, 2)},
		{"d-choice", map[string]string{"d": "3", "ties": "index"}, 3, 5, 1, indexTies(3, 3), dChoiceExact(3, 3)},
		{"one-plus-beta", map[string]string{"beta": "0.5", "ties": "index"}, 2, 6, 1,
			mix(0.5, uniformChoice(2), indexTies(2, 2)), mix(0.5, uniformChoice(2), dChoiceExact(2, 2))},
		{"d-choice", map[string]string{"d": "2", "batch": "3", "ties": "index"}, 2, 6, 3, indexTies(2, 2), dChoiceExact(2, 2)},
		{"d-choice", map[string]string{"d": "2", "batch": "3"}, 2, 6, 3, dChoiceExact(2, 2), indexTies(2, 2)},
		{"d-choice", map[string]string{"d": "3", "batch": "2", "ties": "index"}, 3, 5, 2, indexTies(3, 3), dChoiceExact(3, 3)},
		{"one-plus-beta", map[string]string{"beta": "0.7", "batch": "2", "ties": "index"}, 3, 5, 2,
			mix(0.7, uniformChoice(3), indexTies(3, 2)), mix(0.7, uniformChoice(3), dChoiceExact(3, 2))},
	}
}

func (c tiesCase) name() string {
	var kv []string
	for k, v := range c.params {
		kv = append(kv, k+"="+v)
	}
	slices.Sort(kv)
	return fmt.Sprintf("%s[%s]/n=%d,m=%d", c.process, strings.Join(kv, ","), c.n, c.m)
}

// The direct engine's labelled load vectors against the exact law of the
// rule, and against the neighbouring tie rule, which must fail: index ties
// on n = 2 put a ball into bin 0 with probability 3/4 from (0, 0), random
// ties with 1/2.
func TestTiesExactLaw(t *testing.T) {
	const trials = 40000
	for i, c := range tiesCases() {
		t.Run(c.name(), func(t *testing.T) {
			obs := simulateVectors(t, exactCase{c.process, c.params, c.n, c.m, nil}, trials, uint64(7000+i))
			stat, limit, df := stattest.Law(batchedLaw(c.n, c.m, c.b, c.law), obs, trials)
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
			}
			ws, wl, _ := stattest.Law(batchedLaw(c.n, c.m, c.b, c.wrong), obs, trials)
			if ws <= wl {
				t.Errorf("passed as the other tie rule: χ² = %.1f ≤ %.1f", ws, wl)
			}
			t.Logf("χ² = %.1f on %d df (limit %.1f); against the other tie rule %.1f", stat, df, limit, ws)
		})
	}
}

// Batches are where the tie rule reaches the gap (SPAA'22 Fig. 8.4): on the
// sorted vector, which the histogram engine and every measure see, index
// and random ties have the same law without batches and different laws in
// them. The exact laws say so; the simulation is tested against them above.
func TestTiesSortedLawDiffersOnlyInBatches(t *testing.T) {
	sorted := func(law map[vec]float64) map[string]float64 {
		out := map[string]float64{}
		for v, p := range law {
			b := []byte(v)
			slices.Sort(b)
			out[string(b)] += p
		}
		return out
	}
	dist := func(a, b map[string]float64) float64 {
		d := 0.0
		for k, p := range a {
			d += math.Abs(p - b[k])
		}
		for k, p := range b {
			if _, ok := a[k]; !ok {
				d += p
			}
		}
		return d
	}
	for _, b := range []int{1, 2, 3} {
		d := dist(sorted(batchedLaw(3, 6, b, indexTies(3, 2))), sorted(batchedLaw(3, 6, b, dChoiceExact(3, 2))))
		if b == 1 && d > 1e-12 || b > 1 && d < 1e-3 {
			t.Errorf("b = %d: sorted laws of index and random ties differ by %.3g in total variation ×2", b, d)
		}
	}
}

// --ties first is the default loop's rule by name: the same results, bit
// for bit, on both engines.
func TestTiesFirstIsRandomBitForBit(t *testing.T) {
	for _, c := range []struct {
		process string
		params  map[string]string
	}{{"two-choice", nil}, {"d-choice", map[string]string{"d": "3", "batch": "50"}}, {"one-plus-beta", map[string]string{"beta": "0.5"}}} {
		for _, eng := range []core.Engine{core.EngineDirect, core.EngineHistogram} {
			run := func(ties string) string {
				p := map[string]string{}
				for k, v := range c.params {
					p[k] = v
				}
				if ties != "" {
					p["ties"] = ties
				}
				s, err := core.NewSpec(c.process, p, core.Common{Bins: 100, Balls: 5000, Trials: 1, Seed: 3, Alpha: 1, Engine: eng})
				if err != nil {
					t.Fatal(err)
				}
				r := RunTrial(s, 0, nil)
				return fmt.Sprint(r.Gap, r.MaxGap, r.Histogram)
			}
			if a, b := run(""), run("first"); a != b {
				t.Errorf("%s %v on %v: --ties first gave %v, the default %v", c.process, c.params, eng, b, a)
			}
		}
	}
}

// --ties index is refused on the histogram engine, in one line naming the
// flag, and auto picks direct.
func TestTiesIndexDirectOnly(t *testing.T) {
	_, err := core.NewSpec("two-choice", map[string]string{"ties": "index"}, core.Common{Bins: 1e6, Balls: 1e9, Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineHistogram})
	if err == nil || !strings.Contains(err.Error(), "--ties index") || strings.Contains(err.Error(), "\n") {
		t.Errorf("--engine histogram --ties index: err %v", err)
	}
	s, err := core.NewSpec("two-choice", map[string]string{"ties": "index"}, core.Common{Bins: 1e6, Balls: 1e9, Trials: 1, Seed: 1, Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.ResolvedEngine() != core.EngineDirect {
		t.Errorf("auto picked %v for --ties index", s.ResolvedEngine())
	}
}

// distinctExact is d-choice of d samples without replacement: every ordered
// tuple of distinct bins, each of mass 1/(n(n−1)…(n−d+1)), its mass split
// among its least loaded samples (index: all to the lowest index).
func distinctExact(n, d int, index bool) transition {
	return func(loads []int, _ int) []float64 {
		p := make([]float64, n)
		var rec func(tuple []int, mass float64)
		rec = func(tuple []int, mass float64) {
			if len(tuple) == d {
				lo := math.MaxInt
				for _, b := range tuple {
					lo = min(lo, loads[b])
				}
				var tied []int
				for _, b := range tuple {
					if loads[b] == lo {
						tied = append(tied, b)
					}
				}
				if index {
					tied = []int{slices.Min(tied)}
				}
				for _, b := range tied {
					p[b] += mass / float64(len(tied))
				}
				return
			}
			for b := range n {
				if !slices.Contains(tuple, b) {
					rec(append(slices.Clone(tuple), b), mass/float64(n-len(tuple)))
				}
			}
		}
		rec(nil, 1)
		return p
	}
}

func distinctCases() []tiesCase {
	return []tiesCase{
		{"two-choice", map[string]string{"distinct": "true"}, 3, 6, 1, distinctExact(3, 2, false), dChoiceExact(3, 2)},
		{"d-choice", map[string]string{"d": "3", "distinct": "true"}, 4, 5, 1, distinctExact(4, 3, false), dChoiceExact(4, 3)},
		{"d-choice", map[string]string{"d": "2", "distinct": "true"}, 2, 7, 1, distinctExact(2, 2, false), dChoiceExact(2, 2)},
		{"two-choice", map[string]string{"distinct": "true", "ties": "index"}, 3, 5, 1, distinctExact(3, 2, true), distinctExact(3, 2, false)},
		{"one-plus-beta", map[string]string{"beta": "0.5", "distinct": "true"}, 3, 6, 1,
			mix(0.5, uniformChoice(3), distinctExact(3, 2, false)), mix(0.5, uniformChoice(3), dChoiceExact(3, 2))},
		{"d-choice", map[string]string{"d": "2", "batch": "2", "distinct": "true"}, 3, 6, 2, distinctExact(3, 2, false), dChoiceExact(3, 2)},
		{"one-plus-beta", map[string]string{"beta": "0.7", "batch": "3", "distinct": "true"}, 3, 6, 3,
			mix(0.7, uniformChoice(3), distinctExact(3, 2, false)), mix(0.7, uniformChoice(3), dChoiceExact(3, 2))},
	}
}

// --distinct on the direct engine: the labelled vectors against the exact
// law without replacement, and against the law with replacement, which must
// fail.
func TestDistinctExactLaw(t *testing.T) {
	const trials = 40000
	for i, c := range distinctCases() {
		t.Run(c.name(), func(t *testing.T) {
			obs := simulateVectors(t, exactCase{c.process, c.params, c.n, c.m, nil}, trials, uint64(8000+i))
			stat, limit, df := stattest.Law(batchedLaw(c.n, c.m, c.b, c.law), obs, trials)
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
			}
			ws, wl, _ := stattest.Law(batchedLaw(c.n, c.m, c.b, c.wrong), obs, trials)
			if ws <= wl {
				t.Errorf("passed as the neighbouring rule: χ² = %.1f ≤ %.1f", ws, wl)
			}
			t.Logf("χ² = %.1f on %d df (limit %.1f); against the neighbour %.1f", stat, df, limit, ws)
		})
	}
}

// --distinct on the histogram engine (unbatched, random ties): the sorted
// vectors against the exact sorted law, and against sampling with
// replacement, which must fail.
func TestDistinctHistogramExactLaw(t *testing.T) {
	const trials = 40000
	for i, c := range distinctCases() {
		if c.b > 1 || c.params["ties"] == "index" {
			continue
		}
		t.Run(c.name(), func(t *testing.T) {
			obs := histogramVectors(t, c.process, c.params, c.n, c.m, trials, uint64(9000+i), 0)
			stat, limit, df := stattest.Law(sortedLaw(exactLaw(c.n, c.m, c.law)), obs, trials)
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
			}
			ws, wl, _ := stattest.Law(sortedLaw(exactLaw(c.n, c.m, c.wrong)), obs, trials)
			if ws <= wl {
				t.Errorf("passed as sampling with replacement: χ² = %.1f ≤ %.1f", ws, wl)
			}
			t.Logf("χ² = %.1f on %d df (limit %.1f); with replacement %.1f", stat, df, limit, ws)
		})
	}
}

// --distinct: more samples than bins is one line naming the flag; in
// batches it runs on the direct engine, and auto picks it.
func TestDistinctRefusals(t *testing.T) {
	_, err := core.NewSpec("one-plus-beta", map[string]string{"beta": "0.5", "distinct": "true"}, core.Common{Bins: 1, Balls: 10, Trials: 1, Seed: 1, Alpha: 1})
	if err == nil || !strings.HasPrefix(err.Error(), "--distinct") {
		t.Errorf("one-plus-beta --distinct on 1 bin: err %v", err)
	}
	_, err = core.NewSpec("d-choice", map[string]string{"d": "2", "batch": "10", "distinct": "true"}, core.Common{Bins: 100, Balls: 1000, Trials: 1, Seed: 1, Alpha: 1, Engine: core.EngineHistogram})
	if err == nil || !strings.Contains(err.Error(), "--distinct in batches") {
		t.Errorf("--distinct --batch on the histogram engine: err %v", err)
	}
}

// --distinct: the histogram engine agrees with the direct engine in
// distribution at a size past enumeration.
func TestDistinctHistogramAgreesWithDirect(t *testing.T) {
	compareEngines(t, "d-choice", map[string]string{"d": "3", "distinct": "true"}, 8, 400, 4000, 0, 11, 12)
	compareEngines(t, "one-plus-beta", map[string]string{"beta": "0.5", "distinct": "true"}, 8, 400, 4000, 0, 13, 14)
}
