package optimal

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/internal/stats"
)

// Study is what balloc optimal computes: for Process ("two-thinning" or
// "k-thinning", K samples at most) on N bins and M balls, the optimum by
// dynamic programming, the best fixed thresholds of each of Rules
// (ThetaMax, when not NaN, bounds the relative grid), and Trials runs of
// the optimal policy from Seed. Size is Fits' estimate, checked before.
type Study struct {
	Process  string
	N, M, K  int
	Rules    []Rule
	ThetaMax float64
	Trials   int
	Seed     uint64
	Size     Size
}

// Run solves the study, searches the fixed thresholds, simulates the
// optimal policy and writes what balloc optimal prints to w, with the
// time each step took.
func (pl *Study) Run(w io.Writer) error {
	start := time.Now()
	sp, err := NewSpace(pl.N, pl.M)
	if err != nil {
		return err
	}
	built := time.Since(start)
	opt, pol, err := Solve(sp, pl.K, pl.Trials > 0)
	if err != nil {
		return err
	}
	solved := time.Since(start) - built
	name := pl.Process
	if pl.Process == "k-thinning" {
		name += fmt.Sprintf(", K = %d", pl.K)
	}
	fmt.Fprintf(w, "process    %s on n = %d bins, m = %d balls\n", name, pl.N, pl.M)
	fmt.Fprintf(w, "states     %s sorted load vectors over %d levels (largest %s), %s moves; about %s\n",
		units.FormatCount(pl.Size.States), pl.M+1, units.FormatCount(pl.Size.MaxLevel), units.FormatCount(pl.Size.Moves),
		units.FormatBytes(float64(pl.Size.Bytes(pl.Trials > 0))))
	fmt.Fprintf(w, "optimum    E[max load] = %.10f (exact DP; states %.3g s, values %.3g s)\n", opt, built.Seconds(), solved.Seconds())
	if pl.Trials > 0 {
		t0 := time.Now()
		mean, se := pol.Simulate(pl.Seed, pl.Trials)
		fmt.Fprintf(w, "simulated  %.4f ± %.4f (95%% CI) over %d runs of the optimal policy, seed %d (%.3g s)\n",
			mean, stats.T975(pl.Trials-1)*se, pl.Trials, pl.Seed, time.Since(t0).Seconds())
	}
	for _, rule := range pl.Rules {
		printBestFixed(w, sp, pl, rule, opt)
	}
	fmt.Fprintf(w, "time       %.3g s in all\n", time.Since(start).Seconds())
	return nil
}

// printBestFixed searches one rule's grid and prints its best policy.
func printBestFixed(w io.Writer, sp *Space, pl *Study, rule Rule, opt float64) {
	r := DefaultRange(rule, pl.N, pl.M)
	if rule == Relative && !math.IsNaN(pl.ThetaMax) {
		full := FullRange(rule, pl.N, pl.M)
		r.Hi = max(r.Lo, min(full.Hi, int(math.Floor(pl.ThetaMax*float64(pl.N)))))
	}
	t0 := time.Now()
	best, evals := BestFixed(sp, pl.K, rule, r)
	how := "every policy of the grid"
	if pl.K > 2 {
		how = "descent from the best common threshold (a local optimum: no threshold moved alone by 1 or 2 classes does better)"
	}
	gap := fmt.Sprintf("%+.4f over the optimum", best.Value-opt)
	if rule == Absolute {
		fmt.Fprintf(w, "absolute   keep load < L: best L = %s, E[max load] = %.10f (%s); L ∈ [%d, %d], %d policies, %s, %.3g s\n",
			best, best.Value, gap, r.Lo, r.Hi, evals, how, time.Since(t0).Seconds())
		return
	}
	fmt.Fprintf(w, "relative   keep load < t/n + θ: best θ = %s (θ in %s), E[max load] = %.10f (%s); θ = a/%d, a ∈ [%d, %d], %d policies, %s, %.3g s\n",
		best, best.Class(), best.Value, gap, pl.N, r.Lo, r.Hi, evals, how, time.Since(t0).Seconds())
}
