package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/units"
)

// printConcurrent prints runs without departures: the header, a line per
// run, and with models (--compare) their notes and the means over trials.
func printConcurrent(stdout io.Writer, rows []concurrentRow, spec *core.Spec, mode concurrency.Mode, layout concurrency.Layout, measure uint64, emulated, traced bool, models *process.Models) {
	what := "workers"
	if emulated {
		what = "emulated workers"
	}
	printConcurrentHeader(stdout, rows, spec, mode, layout, measure, emulated, traced)
	printConcurrentRuns(stdout, rows, mode, emulated, what, models != nil)
	if traced {
		printTraceNote(stdout, rows)
	}
	if models == nil {
		return
	}
	delayed := modelText(models.Delayed)
	fmt.Fprintf(stdout, "\nreplay: %s --delay replay, each ball reading its samples at its own age, in ball order\n", delayed)
	switch {
	case traced:
		fmt.Fprintln(stdout, "(of the ages and commit order the stamps give: see the note above). i.i.d. ages:")
	default:
		fmt.Fprintln(stdout, "(exact for emulated racy runs; goroutine runs record no per-ball order without --trace-ages, so none). i.i.d. ages:")
	}
	fmt.Fprintf(stdout, "%s --delay empirical with the run's law of ages, a model that drops their joint law.\n", delayed)
	printConcurrentMeans(stdout, rows, what, models)
}

// printConcurrentHeader says what was run and how the ages were measured.
func printConcurrentHeader(stdout io.Writer, rows []concurrentRow, spec *core.Spec, mode concurrency.Mode, layout concurrency.Layout, measure uint64, emulated, traced bool) {
	fmt.Fprintf(stdout, "%s %s: n = %s bins, m = %s balls, mode %s, layout %s, seed %d, %d CPU(s)\n",
		spec.Process.Name, spec.ParamsText(), units.FormatCount(spec.Bins), units.FormatCount(spec.Balls), mode, layout, spec.Seed, runtime.NumCPU())
	if mode == concurrency.Sharded {
		var bounds []string
		for _, r := range rows {
			if b := fmt.Sprintf("%d with W = %d", r.AgeBound, r.Workers); !slices.Contains(bounds, b) {
				bounds = append(bounds, b)
			}
		}
		fmt.Fprintf(stdout, "sharded: backpressure keeps every ball's age below %s balls (%s); waits: the times a worker stopped deciding to keep it\n",
			concurrency.ShardedAgeBoundText, strings.Join(bounds, ", "))
	}
	switch {
	case emulated:
		fmt.Fprintf(stdout, "ages: of every ball, exact; bin staleness of every %d-th ball of each worker\n\n", measure)
	case traced:
		fmt.Fprintf(stdout, "ages: of every ball, from its time-stamp-counter stamps (--trace-ages, see the note below); bin staleness and descheduled: of every %d-th ball of each worker\n\n", measure)
	default:
		fmt.Fprintf(stdout, "ages (global staleness) and bin staleness: of every %d-th ball of each worker; descheduled: those of them whose read-to-add took over 20 µs\n", measure)
		W := 0
		for _, r := range rows {
			W = max(W, r.Workers)
		}
		if mode == concurrency.Sharded && W > runtime.NumCPU() {
			fmt.Fprintf(stdout, "note: %d sharded workers on %d CPU(s): an owner off the CPU holds up every ball for its shard, so ages count time slices\n", W, runtime.NumCPU())
		}
		fmt.Fprintln(stdout)
	}
}

// printConcurrentRuns is the table of runs, a line each, with the
// untraced twin and, compared, the replay's and i.i.d. ages' gaps.
func printConcurrentRuns(stdout io.Writer, rows []concurrentRow, mode concurrency.Mode, emulated bool, what string, compare bool) {
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	head := what + "\ttrial\trun\tballs/s\tbin staleness mean/p50/p99/max\tage mean/p50/p90/p99/max\tgap"
	if mode == concurrency.CAS {
		head += "\tCAS retries"
	}
	if mode == concurrency.Sharded {
		head += "\tage bound\twaits"
	}
	desched := !emulated && (mode == concurrency.Racy || mode == concurrency.CAS)
	if desched {
		head += "\tdescheduled: balls/age p50/max"
	}
	fmt.Fprintln(tw, head)
	run := "concurrent"
	if emulated {
		run = "emulated"
	}
	for _, r := range rows {
		cr := r.Concurrent
		line := fmt.Sprintf("%d\t%d\t%s\t%.3g\t%s\t%s\t%s", r.Workers, r.Trial, run, r.BallsPerS, distText(cr.BinStaleness),
			fmt.Sprintf("%.3g/%d/%d/%d/%d", r.AgeMean, r.AgeP50, r.AgeP90, r.AgeP99, r.AgeMax), g(r.Gap))
		if mode == concurrency.CAS {
			line += fmt.Sprintf("\t%d", cr.Retries)
		}
		if mode == concurrency.Sharded {
			line += fmt.Sprintf("\t%d\t%d", cr.AgeBound, cr.BackpressureWaits)
		}
		if d := cr.Descheduled; desched {
			line += fmt.Sprintf("\t%d/%d/%d", d.Count, d.P50, d.Max)
		}
		fmt.Fprintln(tw, line)
		if r.UntracedBallsPerS != nil {
			fmt.Fprintf(tw, "\t\tuntraced, just before\t%.3g\t\t\t%s\n", *r.UntracedBallsPerS, g(*r.UntracedGap))
		}
		if !compare {
			continue
		}
		if r.ReplayGap != nil {
			fmt.Fprintf(tw, "\t\treplay of its ages\t\t\t\t%s\n", g(*r.ReplayGap))
		}
		if r.IIDGap != nil {
			fmt.Fprintf(tw, "\t\ti.i.d. ages, same law\t\t\t\t%s\n", g(*r.IIDGap))
		}
	}
	tw.Flush()
}

// printConcurrentMeans is the table of means over trials per worker count
// beside the models at τ = the ages' p99, and the regime's note.
func printConcurrentMeans(stdout io.Writer, rows []concurrentRow, what string, models *process.Models) {
	fmt.Fprintf(stdout, "\nmeans over trials, ± 1.96 standard errors; τ = p99 of the ages, the sequential runs at that τ\n")
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\ttrials\tgap\treplay gap\ti.i.d.-ages gap\t%s gap\tτ (p99)\t%s fixed τ gap\t%s b = τ gap\tregime (Los and Sauerwald 2022)\n",
		what, modelText(models.Fresh), modelText(models.Delayed), modelText(models.Batched))
	for lo := 0; lo < len(rows); {
		hi := lo
		for hi < len(rows) && rows[hi].Workers == rows[lo].Workers {
			hi++
		}
		grp := rows[lo:hi]
		col := func(get func(concurrentRow) *float64) string {
			var xs []float64
			for _, r := range grp {
				if p := get(r); p != nil {
					xs = append(xs, *p)
				}
			}
			return meanText(xs)
		}
		taus := col(func(r concurrentRow) *float64 { t := float64(r.Tau); return &t })
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", grp[0].Workers, len(grp),
			col(func(r concurrentRow) *float64 { return &r.Gap }), col(func(r concurrentRow) *float64 { return r.ReplayGap }),
			col(func(r concurrentRow) *float64 { return r.IIDGap }), col(func(r concurrentRow) *float64 { return r.FreshGap }),
			taus, col(func(r concurrentRow) *float64 { return r.DelayedGap }), col(func(r concurrentRow) *float64 { return r.BatchedGap }),
			grp[0].Regime)
		lo = hi
	}
	tw.Flush()
	fmt.Fprintln(stdout, "\nregime: what Los and Sauerwald, \"Balanced Allocations with the Choice of Noise\" (PODC 2022), §1, states for")
	fmt.Fprintln(stdout, "delay τ / batch b = τ on n bins (\"around n\" read as n/ln n ≤ τ < n ln n). No bound is computed: the sequential runs are the comparison.")
}

// meanText is "mean ± 1.96 SE" of xs, the mean alone for one value, – for none.
func meanText(xs []float64) string {
	switch len(xs) {
	case 0:
		return "–"
	case 1:
		return g(xs[0])
	}
	m, sd := stat.MeanStdDev(xs, nil)
	return fmt.Sprintf("%.3g ± %.2g", m, 1.96*sd/math.Sqrt(float64(len(xs))))
}

func distText(d concurrency.Dist) string {
	if d.Count == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3g/%d/%d/%d", d.Mean, d.P50, d.P99, d.Max)
}
