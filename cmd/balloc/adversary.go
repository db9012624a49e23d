package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/core/adversary"
	"github.com/balloc/balloc/core/units"
)

// adversaryFlags are balloc adversary's flags, as typed.
type adversaryFlags struct {
	sequence, builtin, bins, rules, width, trials, seed, checkpoints, workers string
}

// balloc adversary runs Greedy, the modulated rule and the one-choice
// baseline under insertions and deletions named by an oblivious sequence
// (core/adversary).
func newAdversaryCommand(stdout io.Writer) *cobra.Command {
	var f adversaryFlags
	c := &cobra.Command{
		Use:   "adversary (--sequence FILE | --builtin NAME:ARGS) --bins N [--rules greedy,modulated,one-choice] [--width W] [--trials T] [--checkpoints K]",
		Short: "Two-choice under insertions and deletions named by an oblivious sequence: Greedy, the modulated rule, one-choice",
		Long: `balloc adversary runs an oblivious sequence of insertions and deletions
(Bansal and Kuszmaul, "Balanced allocations: the heavily loaded case with
deletions", FOCS 2022): each inserted ball draws two bins uniformly with
replacement and a rule places it; a deletion names a ball by its insertion
number and removes it from the bin the rule chose. Greedy takes the less
loaded bin; the modulated rule of width w goes to bin i with probability
clamp(1/2 + (load j − load i)/(2w), 0, 1) (balloc's reading of the paper's
ModulatedGreedy, whose text could not be read: see core/adversary);
one-choice, the baseline, always takes the first of the two. All rules
see the same pairs in each trial.

A sequence file holds one operation a line: "+" or "+ C" inserts one or C
balls, "- K" deletes ball K, "- A..B" balls A to B, "- A..B/S" every S-th
of them; # starts a comment. Built-ins: ` + adversary.Builtins + `.

Printed for each rule, mean ± 95% CI over the trials: the gap
(max load − balls present/n) at the end and its largest value over the
sequence, the overload (largest max load − peak present/n), and with
--checkpoints K the gap at K points of the sequence.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			pl, err := checkAdversary(c, f)
			if err != nil {
				return err
			}
			return pl.Run(stdout)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.sequence, "sequence", "", "a sequence file (one operation a line: + C, - K, - A..B, - A..B/S)")
	fl.StringVar(&f.builtin, "builtin", "", "a built-in sequence: "+adversary.Builtins)
	fl.StringVar(&f.bins, "bins", "", "n, the bins")
	fl.StringVar(&f.rules, "rules", "greedy,modulated,one-choice", "the rules to run, a list of greedy, modulated and one-choice (each ball to the first of its two bins: the baseline that ignores loads)")
	fl.StringVar(&f.width, "width", "", "the modulated rule's width w, 1 ≤ w ≤ 2^30 (default ⌈log₂ P⌉, P the sequence's peak of balls present)")
	fl.StringVar(&f.trials, "trials", "100", "trials of each rule")
	fl.StringVar(&f.seed, "seed", "1", "the run's seed")
	fl.StringVar(&f.checkpoints, "checkpoints", "0", "K: also read the gap after ⌊k·T/K⌋ of the T operations, k = 1 … K")
	fl.StringVar(&f.workers, "workers", "0", "trials run at once (0: one per CPU)")
	return c
}

// checkAdversary refuses bad flags in one line, then reads the sequence
// (a bad file is one line with its line number) and refuses a run that
// would not fit in memory.
func checkAdversary(c *cobra.Command, f adversaryFlags) (*adversary.Study, error) {
	pl := &adversary.Study{}
	given := func(name string) bool { return c.Flags().Changed(name) }
	if given("sequence") == given("builtin") {
		return nil, fmt.Errorf("give one of --sequence FILE or --builtin NAME:ARGS (%s)", adversary.Builtins)
	}
	if !given("bins") {
		return nil, fmt.Errorf("--bins is required")
	}
	var k int
	counts := []struct {
		name, v string
		dst     *int
		lo, hi  uint64
	}{
		{"bins", f.bins, &pl.N, 1, 1 << 31},
		{"trials", f.trials, &pl.Trials, 1, 1 << 31},
		{"checkpoints", f.checkpoints, &k, 0, 1 << 20},
		{"workers", f.workers, &pl.Workers, 0, 1 << 16},
	}
	for _, x := range counts {
		v, err := units.ParseCount(x.v)
		if err != nil || v < x.lo || v > x.hi {
			return nil, fmt.Errorf("--%s %q: want an integer in [%d, %d]", x.name, x.v, x.lo, x.hi)
		}
		*x.dst = int(v)
	}
	if pl.Workers == 0 {
		pl.Workers = runtime.GOMAXPROCS(0)
	}
	seed, err := units.ParseCount(f.seed)
	if err != nil {
		return nil, fmt.Errorf("--seed %q: want a non-negative integer", f.seed)
	}
	pl.Seed = seed
	var width uint64
	if given("width") {
		width, err = units.ParseCount(f.width)
		if err != nil || width < 1 || width > adversary.MaxWidth {
			return nil, fmt.Errorf("--width %q: want an integer in [1, %d]", f.width, adversary.MaxWidth)
		}
	}
	// The rules are checked first, with the default width for a peak of 0
	// (their width is set once the sequence's peak is known).
	pl.Rules, err = adversary.ParseRules(f.rules, uint32(width), 0)
	if errors.Is(err, adversary.ErrWidthUnused) {
		return nil, fmt.Errorf("--width is the modulated rule's; --rules %q does not run it", f.rules)
	} else if err != nil {
		return nil, fmt.Errorf("--rules %q: %v", f.rules, err)
	}
	if given("builtin") {
		pl.Seq, err = adversary.Builtin(f.builtin)
	} else {
		pl.Seq, err = adversary.ReadFile(f.sequence)
		if err != nil {
			err = fmt.Errorf("--sequence %v", err)
		}
	}
	if err != nil {
		return nil, err
	}
	if pl.Rules, err = adversary.ParseRules(f.rules, uint32(width), pl.Seq.Peak); err != nil {
		return nil, err // checked above
	}
	pl.At = adversary.CheckpointOps(len(pl.Seq.Ops), k)
	if k == 0 {
		pl.At = nil
	}
	pl.Workers = min(pl.Workers, pl.Trials)
	need := units.Mul(adversary.Bytes(pl.Seq, pl.N), uint64(pl.Workers))
	if have := units.AvailableMemory(); need > have {
		return nil, fmt.Errorf("--bins %d with %d workers needs about %s for the trials' state, more than the %s available",
			pl.N, pl.Workers, units.FormatBytes(float64(need)), units.FormatBytes(float64(have)))
	}
	return pl, nil
}
