package main

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/core/optimal"
	"github.com/balloc/balloc/core/units"
)

// optimalFlags are balloc optimal's flags, as typed.
type optimalFlags struct {
	process, bins, balls, k, rule, thetaMax, trials, seed string
}

// optimalPlan is the flags checked: everything refused before any work.
type optimalPlan = optimal.Study

// balloc optimal computes, by exact dynamic programming (core/optimal), the
// policy of two-thinning or k-thinning that minimises the expected maximum
// load given the whole load vector, its exact value, the best fixed
// thresholds' exact values beside it, and the optimal policy's simulated
// mean.
func newOptimalCommand(stdout io.Writer) *cobra.Command {
	var f optimalFlags
	c := &cobra.Command{
		Use:   "optimal --process two-thinning|k-thinning --bins N --balls M [--k K] [--rule relative|absolute|both] [--trials T]",
		Short: "Exact optimal two-/k-thinning by dynamic programming: the optimum, the best fixed thresholds, states and time",
		Long: `balloc optimal solves two-thinning and k-thinning exactly for small n and m:
the policy that minimises E[max load after m balls] seeing the whole load
vector, by backward induction over the sorted load vectors (core/optimal),
its exact value, and the exact value of the best fixed-threshold policy:
relative (balloc's --threshold θ / --thresholds θ1,…: keep a sample whose
load is < t/n + θ, searched on the grid θ = a/n, which holds every distinct
policy) and absolute (keep a load < L). For k-thinning the thresholds are
searched from the best common θ by a descent that moves one threshold by
±1 or ±2 classes, or the improving ones together, in shared passes: a
local optimum of the grid, not proven global.
The optimal policy is also simulated ball by ball (--trials). Sizes whose
states do not fit in memory are refused with the estimate.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			pl, err := checkOptimal(c, f)
			if err != nil {
				return err
			}
			if err := pl.Run(stdout); err != nil {
				return failure{err}
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.process, "process", "", "two-thinning or k-thinning")
	fl.StringVar(&f.bins, "bins", "", "n, the bins")
	fl.StringVar(&f.balls, "balls", "", "m, the balls (default n)")
	fl.StringVar(&f.k, "k", "2", "k-thinning: K, the most samples a ball takes (the K-th kept), 2 ≤ K ≤ 64")
	fl.StringVar(&f.rule, "rule", "both", "fixed thresholds to compare: relative (load < t/n + θ), absolute (load < L) or both")
	fl.StringVar(&f.thetaMax, "theta-max", "", "relative thresholds searched up to this θ (default ⌈m/n⌉ + 2; from −(m − 1)/n, below which all are alike)")
	fl.StringVar(&f.trials, "trials", "10000", "runs of the optimal policy to simulate (0: none)")
	fl.StringVar(&f.seed, "seed", "1", "the simulation's seed")
	return c
}

// checkOptimal refuses bad flags in one line, and a size that does not fit.
func checkOptimal(c *cobra.Command, f optimalFlags) (*optimalPlan, error) {
	pl := &optimalPlan{Process: f.process, K: 2, ThetaMax: math.NaN()}
	switch f.process {
	case "two-thinning":
		if c.Flags().Changed("k") {
			return nil, fmt.Errorf("--k is for k-thinning; two-thinning is K = 2")
		}
	case "k-thinning":
	case "":
		return nil, fmt.Errorf("--process is required: two-thinning or k-thinning")
	default:
		return nil, fmt.Errorf("--process %q: balloc optimal solves two-thinning or k-thinning", f.process)
	}
	if !c.Flags().Changed("bins") {
		return nil, fmt.Errorf("--bins is required")
	}
	counts := []struct {
		name, v string
		dst     *int
		lo, hi  uint64
	}{
		{"bins", f.bins, &pl.N, 1, math.MaxUint32},
		{"balls", f.balls, &pl.M, 0, 1 << 16},
		{"k", f.k, &pl.K, 2, 64},
		{"trials", f.trials, &pl.Trials, 0, 1 << 40},
	}
	for _, x := range counts {
		if x.name == "balls" && !c.Flags().Changed("balls") {
			pl.M = pl.N
			if pl.N > 1<<16 {
				return nil, fmt.Errorf("--balls defaults to --bins %d, more than %d: give --balls", pl.N, 1<<16)
			}
			continue
		}
		v, err := units.ParseCount(x.v)
		if err != nil || v < x.lo || v > x.hi {
			return nil, fmt.Errorf("--%s %q: want an integer in [%d, %d]", x.name, x.v, x.lo, x.hi)
		}
		*x.dst = int(v)
	}
	seed, err := units.ParseCount(f.seed)
	if err != nil {
		return nil, fmt.Errorf("--seed %q: want a non-negative integer", f.seed)
	}
	pl.Seed = seed
	switch f.rule {
	case "relative":
		pl.Rules = []optimal.Rule{optimal.Relative}
	case "absolute":
		pl.Rules = []optimal.Rule{optimal.Absolute}
	case "both":
		pl.Rules = []optimal.Rule{optimal.Relative, optimal.Absolute}
	default:
		return nil, fmt.Errorf("--rule %q: want relative, absolute or both", f.rule)
	}
	if c.Flags().Changed("theta-max") {
		x, err := strconv.ParseFloat(f.thetaMax, 64)
		if err != nil || math.IsNaN(x) || math.Abs(x) > 1e6 {
			return nil, fmt.Errorf("--theta-max %q: want a real number with |θ| ≤ 1e6", f.thetaMax)
		}
		pl.ThetaMax = x
	}
	pl.Size, err = optimal.Fits(pl.N, pl.M, pl.K, pl.Trials > 0)
	return pl, err
}
