package engine

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/internal/stattest"
)

// Memory in batches (--batch b) and delayed (--tau T --delay fixed): the
// exact law of the load vector for tiny n, enumerated from the definition
// (core/process/memory.go, kernels/memory_stale.go) with every tie an
// explicit uniform choice. A state is the real loads, the view (the loads
// at the batch's start, or τ balls ago), the record of the last τ bins
// (delay) and the cache (a set of bins): a ball's candidates are its
// distinct samples and the cached bins; it goes to a uniform one of least
// view; it is published (a full batch makes the view the real loads, the
// delay's window moves on); the cache is a uniform one of the K-sets least
// by the view now (least-loaded) or the ball's bin (last-used).

type staleState struct {
	loads, view vec
	win         string // delay: the last min(t, τ) balls' bins
	cache       string
}

// staleView is the view after ball t (t balls placed, w the window) from
// the real loads: batches of b, or the delay τ.
type staleView func(loads []int, old vec, win string, t int) vec

func batchView(b int) staleView {
	return func(loads []int, old vec, _ string, t int) vec {
		if t%b == 0 {
			return toVec(loads)
		}
		return old
	}
}

func delayView(loads []int, _ vec, win string, _ int) vec {
	v := slices.Clone(loads)
	for _, c := range []byte(win) {
		v[c]--
	}
	return toVec(v)
}

func toVec(x []int) vec {
	w := make([]byte, len(x))
	for i, v := range x {
		w[i] = byte(v)
	}
	return vec(w)
}

func fromVec(v vec) []int {
	x := make([]int, len(v))
	for i := range x {
		x[i] = int(v[i])
	}
	return x
}

// staleMemoryExact is the law of the load vector after m balls (tau > 0:
// the delay's window length; else view is batchView). realCache makes the
// cache rule read the real loads (a wrong process, for the power check).
func staleMemoryExact(n, m, d, k, tau int, view staleView, rule cacheRule, realCache bool) map[vec]float64 {
	zero := toVec(make([]int, n))
	law := map[staleState]float64{}
	var all [][]int
	subsets(allBins(n), k, func(s []int) { all = append(all, slices.Clone(s)) })
	for _, s := range all {
		law[staleState{zero, zero, "", setKey(s)}] = 1 / float64(len(all))
	}
	tuples := int(math.Pow(float64(n), float64(d)))
	for t := range m {
		next := map[staleState]float64{}
		for st, p := range law {
			for tu := range tuples {
				cands := []int{}
				for _, c := range []byte(st.cache) {
					cands = append(cands, int(c))
				}
				for x, j := tu, 0; j < d; j, x = j+1, x/n {
					if b := x % n; !slices.Contains(cands, b) {
						cands = append(cands, b)
					}
				}
				lo := math.MaxInt
				for _, b := range cands {
					lo = min(lo, int(st.view[b]))
				}
				var tied []int
				for _, b := range cands {
					if int(st.view[b]) == lo {
						tied = append(tied, b)
					}
				}
				for _, b := range tied {
					after := fromVec(st.loads)
					after[b]++
					win := st.win
					if tau > 0 {
						win += string([]byte{byte(b)})
						if len(win) > tau {
							win = win[1:]
						}
					}
					v := view(after, st.view, win, t+1)
					seen := fromVec(v)
					if realCache {
						seen = after
					}
					pb := p / float64(tuples) / float64(len(tied))
					for c, pc := range rule(cands, seen, b, k) {
						next[staleState{toVec(after), v, win, c}] += pb * pc
					}
				}
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

type staleCase struct {
	n, m, d, k int
	b, tau     int // one of them
	rule       string
}

func (c staleCase) params() map[string]string {
	p := map[string]string{"d": strconv.Itoa(c.d), "k": strconv.Itoa(c.k), "cache-rule": c.rule}
	if c.b > 0 {
		p["batch"] = strconv.Itoa(c.b)
	} else {
		p["tau"] = strconv.Itoa(c.tau)
	}
	return p
}

func (c staleCase) law(realCache bool) map[vec]float64 {
	rule := extremeK(true)
	if c.rule == "last-used" {
		rule = lastUsed
	}
	view := delayView
	if c.b > 0 {
		view = batchView(c.b)
	}
	return staleMemoryExact(c.n, c.m, c.d, c.k, c.tau, view, rule, realCache)
}

func (c staleCase) simulate(t *testing.T, trials int, seed uint64) map[vec]int {
	return simulateVectors(t, exactCase{"memory", c.params(), c.n, c.m, nil}, trials, seed)
}

var staleCases = []staleCase{
	{3, 6, 1, 1, 2, 0, "least-loaded"},
	{3, 6, 1, 1, 3, 0, "least-loaded"},
	{4, 5, 1, 1, 4, 0, "least-loaded"},
	{3, 5, 2, 1, 2, 0, "least-loaded"},
	{4, 5, 1, 2, 3, 0, "least-loaded"},
	{3, 5, 2, 2, 3, 0, "least-loaded"},
	{3, 6, 1, 1, 3, 0, "last-used"},
	{3, 6, 1, 1, 0, 1, "least-loaded"},
	{3, 6, 1, 1, 0, 2, "least-loaded"},
	{4, 5, 1, 1, 0, 3, "least-loaded"},
	{3, 5, 2, 1, 0, 2, "least-loaded"},
	{4, 5, 1, 2, 0, 2, "least-loaded"},
	{3, 5, 2, 2, 0, 1, "least-loaded"},
	{3, 6, 1, 1, 0, 2, "last-used"},
}

func TestStaleMemoryMatchesExactLaw(t *testing.T) {
	t.Parallel()
	for i, c := range staleCases {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			stat, limit, df := stattest.Law(c.law(false), c.simulate(t, memoryTrials(), uint64(5000+i)), memoryTrials())
			if stat > limit {
				t.Errorf("χ² = %.1f on %d df exceeds %.1f (p < 1e-4)", stat, df, limit)
			}
			t.Logf("χ² = %.1f on %d df (limit %.1f)", stat, df, limit)
		})
	}
}

// The test has power: the engine's vectors fail against the law of a cache
// rule that reads the real loads instead of the view, and against the
// undelayed memory's law.
func TestStaleMemoryExactLawHasPower(t *testing.T) {
	for i, c := range []staleCase{
		{3, 6, 1, 1, 3, 0, "least-loaded"},
		{3, 6, 1, 1, 0, 2, "least-loaded"},
		{4, 5, 1, 2, 3, 0, "least-loaded"},
	} {
		obs := c.simulate(t, memoryTrials(), uint64(6000+i))
		for name, law := range map[string]map[vec]float64{
			"cache reading real loads": c.law(true),
			"undelayed memory":         memoryExact(c.n, c.m, c.d, c.k, extremeK(true), false),
		} {
			stat, limit, df := stattest.Law(law, obs, memoryTrials())
			if stat <= limit {
				t.Errorf("%+v passed as %s: χ² = %.1f ≤ %.1f", c, name, stat, limit)
			}
			t.Logf("%+v against %s: χ² = %.1f on %d df (limit %.1f)", c, name, stat, df, limit)
		}
	}
}

// --batch 1 and --tau 0 are memory, ball for ball; K = 0 is d-choice in the
// same setting, ball for ball (batches, and every delay d-choice takes).
func TestStaleMemoryReductions(t *testing.T) {
	common := core.Common{Bins: 50, Balls: 5000, Seed: 13, KeepLoads: true}
	same := func(name string, a, b *core.Spec) {
		t.Helper()
		for k := range uint64(3) {
			ra, rb := RunTrial(a, k, nil), RunTrial(b, k, nil)
			if !slices.Equal(ra.Loads, rb.Loads) || ra.MaxGap != rb.MaxGap {
				t.Fatalf("%s, trial %d: the runs differ", name, k)
			}
		}
	}
	for _, dk := range [][2]string{{"1", "1"}, {"2", "1"}, {"1", "3"}, {"2", "2"}} {
		base := map[string]string{"d": dk[0], "k": dk[1]}
		with := func(k, v string) map[string]string {
			p := map[string]string{"d": dk[0], "k": dk[1], k: v}
			return p
		}
		plain := mustSpec(t, "memory", base, common)
		same(fmt.Sprintf("d=%s k=%s --batch 1", dk[0], dk[1]), mustSpec(t, "memory", with("batch", "1"), common), plain)
		same(fmt.Sprintf("d=%s k=%s --tau 0", dk[0], dk[1]), mustSpec(t, "memory", with("tau", "0"), common), plain)
	}
	for _, d := range []string{"1", "2", "3"} {
		for _, set := range []map[string]string{
			{"batch": "7"}, {"batch": "50"}, {"batch": "200"},
			{"tau": "10"}, {"tau": "10", "delay": "uniform"}, {"tau": "10", "delay": "adversarial"},
		} {
			mp := map[string]string{"d": d, "k": "0"}
			dp := map[string]string{"d": d}
			for k, v := range set {
				mp[k], dp[k] = v, v
			}
			same(fmt.Sprintf("d=%s %v: memory --k 0 against d-choice", d, set), mustSpec(t, "memory", mp, common), mustSpec(t, "d-choice", dp, common))
		}
	}
}
