package engine

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
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
	trials := lawTrials(40000)
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
	trials := lawTrials(40000)
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
	trials := lawTrials(40000)
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

// weightedExact is d-choice of d samples drawn with probabilities p, each
// independently, or with distinct sequentially without replacement (the
// next sample with probability p_b/(1 − the chosen mass)); every tuple's
// mass goes to its least loaded samples by ties: "random" split uniformly,
// "first" to the first drawn, "index" to the lowest index.
func weightedExact(p []float64, d int, distinct bool, ties string) transition {
	n := len(p)
	return func(loads []int, _ int) []float64 {
		out := make([]float64, n)
		var rec func(tuple []int, mass, left float64)
		rec = func(tuple []int, mass, left float64) {
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
				switch ties {
				case "first":
					tied = tied[:1]
				case "index":
					tied = []int{slices.Min(tied)}
				}
				for _, b := range tied {
					out[b] += mass / float64(len(tied))
				}
				return
			}
			for b := range n {
				if distinct && slices.Contains(tuple, b) || p[b] == 0 {
					continue
				}
				q, l := p[b], 1.0
				if distinct {
					q, l = p[b]/left, left-p[b]
				}
				rec(append(slices.Clone(tuple), b), mass*q, l)
			}
		}
		rec(nil, 1, 1)
		return out
	}
}

// probs normalises weights.
func probs(w ...float64) []float64 {
	t := 0.0
	for _, x := range w {
		t += x
	}
	out := make([]float64, len(w))
	for i, x := range w {
		out[i] = x / t
	}
	return out
}

func zipfProbs(n int, s float64) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = math.Pow(float64(i+1), -s)
	}
	return probs(w...)
}

// weightedOne is one sample by p (One-Choice with unequal probabilities).
func weightedOne(p []float64) transition {
	return func([]int, int) []float64 { return slices.Clone(p) }
}

func samplingCases(t *testing.T) []tiesCase {
	file := filepath.Join(t.TempDir(), "w.txt")
	if err := os.WriteFile(file, []byte("1\n2\n0\n5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	z1, z15, z2 := zipfProbs(3, 1), zipfProbs(3, 1.5), zipfProbs(3, 2)
	tc := probs(3, 3, 1, 1) // twoclass:0.5,3 on 4 bins
	fw := probs(1, 2, 0, 5)
	u3, u4 := probs(1, 1, 1), probs(1, 1, 1, 1)
	return []tiesCase{
		{"two-choice", map[string]string{"sampling": "zipf:1"}, 3, 6, 1, weightedExact(z1, 2, false, "random"), weightedExact(u3, 2, false, "random")},
		{"d-choice", map[string]string{"d": "3", "sampling": "twoclass:0.5,3"}, 4, 5, 1, weightedExact(tc, 3, false, "random"), weightedExact(u4, 3, false, "random")},
		{"two-choice", map[string]string{"sampling": "file:" + file}, 4, 5, 1, weightedExact(fw, 2, false, "random"), weightedExact(probs(1, 2, 1, 5), 2, false, "random")},
		{"one-plus-beta", map[string]string{"beta": "0.5", "sampling": "zipf:2"}, 3, 6, 1,
			mix(0.5, weightedOne(z2), weightedExact(z2, 2, false, "random")), mix(0.5, uniformChoice(3), weightedExact(z2, 2, false, "random"))},
		{"two-choice", map[string]string{"sampling": "zipf:1", "ties": "index"}, 3, 6, 1, weightedExact(z1, 2, false, "index"), weightedExact(z1, 2, false, "random")},
		// Without replacement from an unequal law the samples are not
		// exchangeable: first and random ties are different processes.
		{"two-choice", map[string]string{"sampling": "zipf:1.5", "distinct": "true"}, 3, 6, 1, weightedExact(z15, 2, true, "random"), weightedExact(z15, 2, true, "first")},
		{"two-choice", map[string]string{"sampling": "zipf:1.5", "distinct": "true", "ties": "first"}, 3, 6, 1, weightedExact(z15, 2, true, "first"), weightedExact(z15, 2, true, "random")},
		{"d-choice", map[string]string{"d": "3", "sampling": "twoclass:0.5,3", "distinct": "true"}, 4, 5, 1, weightedExact(tc, 3, true, "random"), weightedExact(tc, 3, false, "random")},
		{"d-choice", map[string]string{"d": "2", "batch": "2", "sampling": "zipf:1"}, 3, 6, 2, weightedExact(z1, 2, false, "random"), weightedExact(u3, 2, false, "random")},
	}
}

// --sampling on the direct engine: the labelled vectors against the exact
// law of the weighted samples, and against a neighbour that must fail.
func TestSamplingExactLaw(t *testing.T) {
	trials := lawTrials(40000)
	for i, c := range samplingCases(t) {
		t.Run(c.name(), func(t *testing.T) {
			obs := simulateVectors(t, exactCase{c.process, c.params, c.n, c.m, nil}, trials, uint64(9500+i))
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

// Wieder (SPAA 2007): under sufficiently unequal sampling Two-Choice's gap
// grows with m. With twoclass:1/2,c on n bins the rare half gets a ball
// whenever a sample is rare, 1 − (c/(c+1))²; once the rare bins are the
// lighter ones, the frequent half's mean load is 2(c/(c+1))²·m/n and the
// gap tends to (2(c/(c+1))² − 1)·m/n: 0.5802·m/n at c = 8. The balls the
// frequent half gets are binomial (sd 0.8 in mean load at n = 1000,
// m = 10^6) and two-choice within the half keeps its max a few balls above
// its mean, so the gap lies within [0.5802·m/n − 4, 0.5802·m/n + 10]. At
// c = 2, (2/3)² < 1/2: the rare half keeps up and the gap stays that of
// Two-Choice, a few balls at both m.
func TestSamplingWiederGapGrows(t *testing.T) {
	gap := func(law string, m uint64) float64 {
		s, err := core.NewSpec("two-choice", map[string]string{"sampling": law}, core.Common{Bins: 1000, Balls: m, Trials: 1, Seed: 5, Alpha: 1})
		if err != nil {
			t.Fatal(err)
		}
		return RunTrial(s, 0, nil).Gap
	}
	want := 2*math.Pow(8.0/9, 2) - 1
	for _, m := range []uint64{1e5, 1e6} {
		g := gap("twoclass:0.5,8", m)
		lim := want * float64(m) / 1000
		if g < lim-4 || g > lim+10 {
			t.Errorf("twoclass:0.5,8 at m = %d: gap %v, want %.1f (−4, +10)", m, g, lim)
		}
		if g2 := gap("twoclass:0.5,2", m); g2 > 8 {
			t.Errorf("twoclass:0.5,2 at m = %d: gap %v, want Two-Choice's few balls", m, g2)
		}
		t.Logf("m = %d: gap %v with c = 8 (limit law %.1f)", m, g, lim)
	}
}

// --sampling uniform is the default, bit for bit; a file's weights, not
// its name, are the spec's identity; bad input is one line naming the flag
// (and a file's line).
func TestSamplingSpec(t *testing.T) {
	run := func(p map[string]string) string {
		s, err := core.NewSpec("one-plus-beta", p, core.Common{Bins: 50, Balls: 2000, Trials: 1, Seed: 2, Alpha: 1})
		if err != nil {
			t.Fatal(err)
		}
		r := RunTrial(s, 0, nil)
		return fmt.Sprint(r.Gap, r.Histogram, r.Params)
	}
	if a, b := run(map[string]string{"beta": "0.5"}), run(map[string]string{"beta": "0.5", "sampling": "uniform"}); a != b {
		t.Errorf("--sampling uniform: %s, default %s", b, a)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "w.txt")
	hash := func(content string) string {
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := core.NewSpec("two-choice", map[string]string{"sampling": "file:" + file}, core.Common{Balls: 100, Trials: 1, Seed: 1, Alpha: 1})
		if err != nil {
			t.Fatal(err)
		}
		if s.Bins != uint64(strings.Count(content, "\n")) {
			t.Errorf("bins %d from a file of %q", s.Bins, content)
		}
		return s.Hash()
	}
	if hash("1\n2\n") == hash("1\n3\n") {
		t.Error("two weight files of one name give one spec hash")
	}
	for content, want := range map[string]string{"1\n-2\n": "w.txt:2:", "1\nabc\n": "w.txt:2:", "": "no weights", "0\n0\n": "sum to 0"} {
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := core.NewSpec("two-choice", map[string]string{"sampling": "file:" + file}, core.Common{Balls: 100, Trials: 1, Seed: 1, Alpha: 1})
		if err == nil || !strings.HasPrefix(err.Error(), "--sampling") || !strings.Contains(err.Error(), want) {
			t.Errorf("file %q: err %v, want --sampling … %s", content, err, want)
		}
	}
}

// quantileWeighted is Quantile(δ) (k = ⌈δn⌉ heaviest, boundary ties in a
// uniform order) with both samples drawn by p; with distinct the second is
// drawn by p among the other bins.
func quantileWeighted(p []float64, k int, distinct bool) transition {
	return func(loads []int, _ int) []float64 {
		n := len(loads)
		out := make([]float64, n)
		for i := range n {
			a, e := 0, 0
			for _, v := range loads {
				if v > loads[i] {
					a++
				} else if v == loads[i] {
					e++
				}
			}
			h := math.Min(1, math.Max(0, float64(k-a)/float64(e)))
			out[i] += p[i] * (1 - h)
			for j := range n {
				switch {
				case !distinct:
					out[j] += p[i] * h * p[j]
				case j != i:
					out[j] += p[i] * h * p[j] / (1 - p[i])
				}
			}
		}
		return out
	}
}

// quantile and mixed-quantile with --sampling and --distinct: the exact
// law on the direct engine, and for --distinct on the histogram engine,
// each against its neighbour.
func TestQuantileSamplingExactLaw(t *testing.T) {
	trials := lawTrials(40000)
	z3, z4, u3 := zipfProbs(3, 1), zipfProbs(4, 1), probs(1, 1, 1)
	cases := []tiesCase{
		{"quantile", map[string]string{"delta": "0.5", "sampling": "zipf:1"}, 3, 6, 1, quantileWeighted(z3, 2, false), quantileWeighted(u3, 2, false)},
		{"quantile", map[string]string{"delta": "0.5", "distinct": "true"}, 3, 6, 1, quantileWeighted(u3, 2, true), quantileWeighted(u3, 2, false)},
		{"mixed-quantile", map[string]string{"delta": "0.5", "eta": "0.4", "sampling": "zipf:1", "distinct": "true"}, 4, 5, 1,
			mix(0.4, weightedOne(z4), quantileWeighted(z4, 2, true)), mix(0.4, weightedOne(z4), quantileWeighted(z4, 2, false))},
	}
	for i, c := range cases {
		t.Run(c.name(), func(t *testing.T) {
			obs := simulateVectors(t, exactCase{c.process, c.params, c.n, c.m, nil}, trials, uint64(9900+i))
			stat, limit, df := stattest.Law(exactLaw(c.n, c.m, c.law), obs, trials)
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
			}
			ws, wl, _ := stattest.Law(exactLaw(c.n, c.m, c.wrong), obs, trials)
			if ws <= wl {
				t.Errorf("passed as the neighbour: χ² = %.1f ≤ %.1f", ws, wl)
			}
			t.Logf("χ² = %.1f on %d df (limit %.1f); against the neighbour %.1f", stat, df, limit, ws)
			if c.params["sampling"] != "" {
				return
			}
			hobs := histogramVectors(t, c.process, c.params, c.n, c.m, trials, uint64(9950+i), 0)
			hs, hl, hdf := stattest.Law(sortedLaw(exactLaw(c.n, c.m, c.law)), hobs, trials)
			if hs > hl {
				t.Errorf("histogram: χ² = %.1f on %d df exceeds %.1f", hs, hdf, hl)
			}
			if ws, wl, _ := stattest.Law(sortedLaw(exactLaw(c.n, c.m, c.wrong)), hobs, trials); ws <= wl {
				t.Errorf("histogram passed as the neighbour: χ² = %.1f ≤ %.1f", ws, wl)
			}
		})
	}
}

// SPAA'22 Fig. 8.4's mechanism at scale: in the first batch every load is
// 0, so under index ties a ball goes to bin i with probability
// (2(n−i) − 1)/n² (the lower of two uniform indices), under random ties
// uniformly; bin 0's load after one batch of b is Binomial(b, (2n−1)/n²)
// or Binomial(b, 1/n). Its mean over trials is tested within 4.5 standard
// errors of the one and must be far from the other.
func TestTiesIndexFirstBatch(t *testing.T) {
	const n, b, trials = 100, 2500, 400
	for _, ties := range []string{"random", "index"} {
		s, err := core.NewSpec("d-choice", map[string]string{"d": "2", "batch": fmt.Sprint(b), "ties": ties},
			core.Common{Bins: n, Balls: b, Trials: trials, Seed: 4, Alpha: 1, Engine: core.EngineDirect, KeepLoads: true})
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for k := range trials {
			sum += lawTrial(s, uint64(k)).Loads[0]
		}
		mean := sum / trials
		pIndex, pRandom := float64(2*n-1)/(n*n), 1.0/n
		p, q := pRandom, pIndex
		if ties == "index" {
			p, q = pIndex, pRandom
		}
		se := math.Sqrt(b * p * (1 - p) / trials)
		if math.Abs(mean-b*p) > 4.5*se || math.Abs(mean-b*q) < 10*se {
			t.Errorf("--ties %s: bin 0 holds %.2f on average after one batch, want %.2f ± %.2f (the other rule: %.2f)", ties, mean, b*p, 4.5*se, b*q)
		}
	}
}
