package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/core/adversary"
	"github.com/balloc/balloc/core/units"
)

// adversaryFlags are balloc adversary's flags, as typed.
type adversaryFlags struct {
	sequence, builtin, bins, rules, width, trials, seed, checkpoints, workers string
}

// adversaryPlan is the flags checked: everything refused before any work.
type adversaryPlan struct {
	seq        *adversary.Seq
	n          int
	rules      []adversary.Rule
	trials     int
	seed       uint64
	at         []int
	workers    int
	widthGiven bool
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

Printed for each rule, mean ± standard error over the trials: the gap
(max load − balls present/n) at the end and its largest value over the
sequence, the overload (largest max load − peak present/n), and with
--checkpoints K the gap at K points of the sequence.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			pl, err := checkAdversary(c, f)
			if err != nil {
				return err
			}
			return runAdversary(stdout, pl)
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
func checkAdversary(c *cobra.Command, f adversaryFlags) (*adversaryPlan, error) {
	pl := &adversaryPlan{}
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
		{"bins", f.bins, &pl.n, 1, 1 << 31},
		{"trials", f.trials, &pl.trials, 1, 1 << 31},
		{"checkpoints", f.checkpoints, &k, 0, 1 << 20},
		{"workers", f.workers, &pl.workers, 0, 1 << 16},
	}
	for _, x := range counts {
		v, err := units.ParseCount(x.v)
		if err != nil || v < x.lo || v > x.hi {
			return nil, fmt.Errorf("--%s %q: want an integer in [%d, %d]", x.name, x.v, x.lo, x.hi)
		}
		*x.dst = int(v)
	}
	if pl.workers == 0 {
		pl.workers = runtime.GOMAXPROCS(0)
	}
	seed, err := units.ParseCount(f.seed)
	if err != nil {
		return nil, fmt.Errorf("--seed %q: want a non-negative integer", f.seed)
	}
	pl.seed = seed
	var width uint64
	if pl.widthGiven = given("width"); pl.widthGiven {
		width, err = units.ParseCount(f.width)
		if err != nil || width < 1 || width > adversary.MaxWidth {
			return nil, fmt.Errorf("--width %q: want an integer in [1, %d]", f.width, adversary.MaxWidth)
		}
	}
	seen := map[string]bool{}
	for _, r := range strings.Split(f.rules, ",") {
		if seen[r] {
			return nil, fmt.Errorf("--rules %q: %s twice", f.rules, r)
		}
		seen[r] = true
		switch r {
		case "greedy", "modulated", "one-choice":
		default:
			return nil, fmt.Errorf("--rules %q: %q is not a rule; want greedy, modulated or one-choice", f.rules, r)
		}
	}
	if pl.widthGiven && !seen["modulated"] {
		return nil, fmt.Errorf("--width is the modulated rule's; --rules %q does not run it", f.rules)
	}
	if given("builtin") {
		pl.seq, err = adversary.Builtin(f.builtin)
	} else {
		pl.seq, err = readSequence(f.sequence)
	}
	if err != nil {
		return nil, err
	}
	if seen["greedy"] {
		pl.rules = append(pl.rules, adversary.Greedy)
	}
	if seen["modulated"] {
		if !pl.widthGiven {
			width = uint64(adversary.DefaultWidth(pl.seq.Peak))
		}
		pl.rules = append(pl.rules, adversary.Modulated(uint32(width)))
	}
	if seen["one-choice"] {
		pl.rules = append(pl.rules, adversary.OneChoice)
	}
	pl.at = adversary.CheckpointOps(len(pl.seq.Ops), k)
	if k == 0 {
		pl.at = nil
	}
	pl.workers = min(pl.workers, pl.trials)
	need := units.Mul(adversary.Bytes(pl.seq, pl.n), uint64(pl.workers))
	if have := units.AvailableMemory(); need > have {
		return nil, fmt.Errorf("--bins %d with %d workers needs about %s for the trials' state, more than the %s available",
			pl.n, pl.workers, units.FormatBytes(float64(need)), units.FormatBytes(float64(have)))
	}
	return pl, nil
}

// readSequence reads a sequence file, refusing what is not a regular file.
func readSequence(name string) (*adversary.Seq, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("--sequence: %v", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("--sequence %s: not a regular file", name)
	}
	fh, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("--sequence: %v", err)
	}
	defer fh.Close()
	seq, err := adversary.Parse(fh, name)
	if err != nil {
		return nil, fmt.Errorf("--sequence %v", err)
	}
	return seq, nil
}

// runAdversary runs each rule's trials and prints them.
func runAdversary(w io.Writer, pl *adversaryPlan) error {
	s := pl.seq
	fmt.Fprintf(w, "sequence   %s on n = %d bins: %d operations, %d insertions, peak %d balls present, %d at the end\n",
		s.Name, pl.n, len(s.Ops), s.Inserts, s.Peak, s.End)
	fmt.Fprintf(w, "trials     %d a rule, seed %d (the rules see the same pairs in each trial)\n", pl.trials, pl.seed)
	var sums []adversary.Summary
	for _, r := range pl.rules {
		t0 := time.Now()
		sum := adversary.Run(s, pl.n, r, pl.seed, pl.trials, pl.workers, pl.at)
		sums = append(sums, sum)
		fmt.Fprintf(w, "%-22s gap at end %s   largest gap %s   overload %s   (%.3g s)\n", r.String(),
			pm(sum.FinalGap, sum.FinalGapSE), pm(sum.MaxGap, sum.MaxGapSE), pm(sum.Overload, sum.OverloadSE), time.Since(t0).Seconds())
	}
	if len(pl.at) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n%12s", "operations")
	for _, r := range pl.rules {
		fmt.Fprintf(w, "  %22s", "gap, "+r.String())
	}
	fmt.Fprintln(w)
	for i, c := range pl.at {
		fmt.Fprintf(w, "%12d", c)
		for _, sum := range sums {
			fmt.Fprintf(w, "  %22s", pm(sum.At[i], sum.AtSE[i]))
		}
		fmt.Fprintln(w)
	}
	return nil
}

// pm is mean ± standard error; one trial has no standard error.
func pm(mean, se float64) string {
	if math.IsNaN(se) {
		return fmt.Sprintf("%.3f ± –", mean)
	}
	return fmt.Sprintf("%.3f ± %.3f", mean, se)
}
