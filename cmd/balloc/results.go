package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/report"
)

func newMergeCommand(stdout, stderr io.Writer) *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "merge DIR... --out DIR",
		Short: "Combine the folders of a sharded sweep; report missing and duplicated trials",
		Long: "Combine the folders of a sharded sweep; report missing and duplicated trials. A DIR that\n" +
			"is no path but holds *, ? or [ is a pattern balloc expands itself ('out/shard-*'), so\n" +
			"that any number of shards fits on one command line.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, dirs []string) error {
			if out == "" {
				return fmt.Errorf("--out is required")
			}
			return runMerge(dirs, out, stdout, stderr)
		},
	}
	c.Flags().StringVar(&out, "out", "", "the merged folder (required)")
	return c
}

// runMerge merges sweep folders (sweep.OpenMerge) and reports the trials
// found, duplicated and missing; missing trials make it fail (exit 1).
func runMerge(args []string, out string, stdout, stderr io.Writer) error {
	m, err := sweep.OpenMerge(args, out)
	if err != nil {
		return err
	}
	defer m.Close()
	printNotes(stderr, m.Notes)
	if err := m.Write(); err != nil {
		return failure{err}
	}
	fmt.Fprintf(stdout, "%s: %d of %d trials from %d folders; %d duplicated (identical, kept once); %d grid points with missing trials\n",
		out, m.Kept, m.Total, m.Inputs, m.Dups, len(m.Missing))
	for _, s := range m.Missing {
		fmt.Fprintf(stdout, "  missing: %s\n", s)
	}
	if len(m.Missing) > 0 {
		return failure{fmt.Errorf("%d trials missing from the merge", m.Total-m.Kept)}
	}
	return nil
}

func newSummarizeCommand(stdout io.Writer) *cobra.Command {
	var format, compare, gapFrom, cross string
	c := &cobra.Command{
		Use:   "summarize DIR [--format table|csv|jsonl|markdown|latex] [--compare REF.toml] [--gap-from F] [--crossover KEY=A,B]",
		Short: "Per grid point: trials, mean gap with a 95% interval, gap distribution, max_gap, balls/s",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			switch format {
			case "table", "csv", "jsonl", "markdown", "latex":
			default:
				return fmt.Errorf("--format %q: want table, csv, jsonl, markdown or latex", format)
			}
			from := math.NaN()
			if c.Flags().Changed("gap-from") {
				f, err := strconv.ParseFloat(strings.TrimSpace(gapFrom), 64)
				if err != nil || !(f >= 0 && f < 1) {
					return fmt.Errorf("--gap-from %q: want a fraction F, 0 ≤ F < 1 (each trial's gap is then the mean of its checkpoints' gaps at t ≥ F·m)", gapFrom)
				}
				from = f
			}
			var xo *report.Crossover
			if c.Flags().Changed("crossover") {
				var err error
				if xo, err = report.ParseCrossover(cross); err != nil {
					return reportFlagError(err)
				}
				if c.Flags().Changed("compare") || (format != "table" && format != "markdown") {
					return fmt.Errorf("--crossover prints a table (--format table or markdown), without --compare")
				}
			}
			var ref *report.Reference
			if c.Flags().Changed("compare") {
				var err error
				if ref, err = report.ReadReference(compare); err != nil {
					return reportFlagError(err)
				}
			}
			var notes []string
			sums, err := report.Read(args[0], from, &notes)
			if err != nil {
				return reportFlagError(err)
			}
			switch {
			case xo != nil:
				err = report.WriteCrossover(xo, sums, format, stdout)
			case ref != nil:
				var rows []report.CompareRow
				if rows, err = ref.Compare(args[0], sums); err == nil {
					err = report.WriteCompare(ref, rows, format, stdout)
				}
			default:
				err = report.Write(sums, format, stdout)
			}
			if err == nil {
				printNotes(c.ErrOrStderr(), notes)
			}
			return reportFlagError(err)
		},
	}
	c.Flags().StringVar(&format, "format", "table", "table, csv, jsonl (numbers, one row per gap value in csv), markdown or latex")
	c.Flags().StringVar(&gapFrom, "gap-from", "", "F: each trial's gap is the mean of its checkpoints' gaps at t ≥ F·m (a stationary level; needs checkpoints), and max_gap their largest")
	c.Flags().StringVar(&cross, "crossover", "", "KEY=A,B: per n, the gap of the points with KEY = A beside those with KEY = B (a parameter or process; their balls may differ), and where the difference changes sign, with a 95% interval")
	c.Flags().StringVar(&compare, "compare", "", "a TOML file of reference values (published figures) to set beside the simulation, with a z-score or χ² per cell")
	return c
}

// reportFlagError names the flag of a report's bad argument (report.ArgError):
// --compare, --crossover or --gap-from.
func reportFlagError(err error) error {
	var ae *report.ArgError
	if errors.As(err, &ae) {
		return errors.New(ae.Text("--" + ae.Arg))
	}
	return err
}
