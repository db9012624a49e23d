package engine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/balloc/balloc/core"
)

// graphicalGaps runs trials of graphical on spec with the given strategy
// parameters and returns the final gaps.
func graphicalGaps(t *testing.T, spec string, params map[string]string, c core.Common, trials int) []float64 {
	t.Helper()
	p := map[string]string{"graph": spec}
	for k, v := range params {
		p[k] = v
	}
	s := mustSpec(t, "graphical", p, c)
	gaps, _ := gapSample(s, trials)
	return gaps
}

// --stale 1 refreshes the set averages after every ball: the same trial as
// the fresh loop, ball for ball, whichever refresh path (replaying the
// pending balls or rebuilding from the loads) the state picks.
func TestHaarStaleOneIsFresh(t *testing.T) {
	c := core.Common{Balls: 300_000, Seed: 4, KeepLoads: true}
	for _, g := range []string{"cycle:1000", "torus:20,30", "random-regular:500,3"} {
		fresh := mustSpec(t, "graphical", map[string]string{"graph": g, "strategy": "haar"}, c)
		one := mustSpec(t, "graphical", map[string]string{"graph": g, "strategy": "haar", "stale": "1"}, c)
		for trial := range uint64(2) {
			if !slices.Equal(RunTrial(fresh, trial, nil).Loads, RunTrial(one, trial, nil).Loads) {
				t.Errorf("%s trial %d: --stale 1 differs from fresh averages", g, trial)
			}
		}
	}
}

// The Haar drift does balance: on every family, with fresh averages and with
// averages refreshed only every n balls (the paper's robustness claim, §3.5),
// its mean gap is below that of the same edges with a uniformly random
// endpoint (graphical --strategy one-plus-beta --beta 0, no load
// information) by more than 4.5 standard errors of the difference; and
// averages stale for 256·n balls are clearly worse than fresh ones (the
// power check: staleness must matter to the loop).
//
// What this test does not claim, because it does not hold at these sizes
// (bench/README.md, "Haar against greedy"): that haar beats greedy. Measured at
// m = 100·n it is several times greedy's gap on every family. The growth
// of the gap in n is kernels' TestHaarGapGrowsPolylogarithmically.
func TestHaarBalancesAndToleratesStaleAverages(t *testing.T) {
	t.Parallel()
	trials := 24
	if testing.Short() {
		trials = 12
	}
	for _, g := range []struct {
		spec string
		n    int
	}{{"cycle:1024", 1024}, {"torus:32,32", 1024}, {"random-regular:1024,3", 1024}, {"hypercube:10", 1024}} {
		c := core.Common{Balls: 300 * uint64(g.n), Seed: 8}
		blind := graphicalGaps(t, g.spec, map[string]string{"strategy": "one-plus-beta", "beta": "0"}, c, trials)
		fresh := graphicalGaps(t, g.spec, map[string]string{"strategy": "haar"}, c, trials)
		stale := graphicalGaps(t, g.spec, map[string]string{"strategy": "haar", "stale": fmt.Sprint(g.n)}, c, trials)
		old := graphicalGaps(t, g.spec, map[string]string{"strategy": "haar", "stale": fmt.Sprint(256 * g.n)}, c, trials)
		mb, _ := meanVar(blind)
		mf, _ := meanVar(fresh)
		ms, _ := meanVar(stale)
		mo, _ := meanVar(old)
		_, zf := zDiff(blind, fresh)
		_, zs := zDiff(blind, stale)
		_, zo := zDiff(old, fresh)
		t.Logf("%s: random endpoint %.2f, haar %.2f (z = %.1f), stale n %.2f (z = %.1f), stale 256n %.2f (z = %.1f above fresh)",
			g.spec, mb, mf, zf, ms, zs, mo, zo)
		if zf < 4.5 || zs < 4.5 {
			t.Errorf("%s: haar (%.2f, stale n %.2f) is not clearly below a random endpoint (%.2f)", g.spec, mf, ms, mb)
		}
		if zo < 4.5 {
			t.Errorf("power: %s: averages 256·n balls old (%.2f) are not clearly worse than fresh (%.2f)", g.spec, mo, mf)
		}
	}
}
