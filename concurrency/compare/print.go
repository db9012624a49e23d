package compare

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/internal/stats"
)

// Print prints runs without departures: the header, a line per run, and
// with models (nil: not compared) their notes and the means over trials.
func Print(stdout io.Writer, rows []Row, set Setting, models *process.Models) {
	spec, mode, layout, measure, emulated, traced := set.Spec, set.Mode, set.Layout, set.Measure, set.Emulated, set.Traced
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
	delayed := ModelText(models.Delayed)
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
func printConcurrentHeader(stdout io.Writer, rows []Row, spec *core.Spec, mode concurrency.Mode, layout concurrency.Layout, measure uint64, emulated, traced bool) {
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
func printConcurrentRuns(stdout io.Writer, rows []Row, mode concurrency.Mode, emulated bool, what string, compare bool) {
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
func printConcurrentMeans(stdout io.Writer, rows []Row, what string, models *process.Models) {
	fmt.Fprintf(stdout, "\nmeans over trials ± 95%% CI (Student t); τ = p99 of the ages, the sequential runs at that τ\n")
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\ttrials\tgap\treplay gap\ti.i.d.-ages gap\t%s gap\tτ (p99)\t%s fixed τ gap\t%s b = τ gap\tregime (Los and Sauerwald 2022)\n",
		what, ModelText(models.Fresh), ModelText(models.Delayed), ModelText(models.Batched))
	for lo := 0; lo < len(rows); {
		hi := lo
		for hi < len(rows) && rows[hi].Workers == rows[lo].Workers {
			hi++
		}
		grp := rows[lo:hi]
		col := func(get func(Row) *float64) string {
			var xs []float64
			for _, r := range grp {
				if p := get(r); p != nil {
					xs = append(xs, *p)
				}
			}
			return meanText(xs)
		}
		taus := col(func(r Row) *float64 { t := float64(r.Tau); return &t })
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", grp[0].Workers, len(grp),
			col(func(r Row) *float64 { return &r.Gap }), col(func(r Row) *float64 { return r.ReplayGap }),
			col(func(r Row) *float64 { return r.IIDGap }), col(func(r Row) *float64 { return r.FreshGap }),
			taus, col(func(r Row) *float64 { return r.DelayedGap }), col(func(r Row) *float64 { return r.BatchedGap }),
			grp[0].Regime)
		lo = hi
	}
	tw.Flush()
	fmt.Fprintln(stdout, "\nregime: what Los and Sauerwald, \"Balanced Allocations with the Choice of Noise\" (PODC 2022), §1, states for")
	fmt.Fprintln(stdout, "delay τ / batch b = τ on n bins (\"around n\" read as n/ln n ≤ τ < n ln n). No bound is computed: the sequential runs are the comparison.")
}

// meanText is "mean ± 95% CI" of xs (Student t, stats.MeanCI), the mean
// alone for one value, – for none.
func meanText(xs []float64) string {
	switch len(xs) {
	case 0:
		return "–"
	case 1:
		return g(xs[0])
	}
	m, half := stats.MeanCI(xs)
	return fmt.Sprintf("%.3g ± %.2g", m, half)
}

func distText(d concurrency.Dist) string {
	if d.Count == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3g/%d/%d/%d", d.Mean, d.P50, d.P99, d.Max)
}

// printTraceNote says, under the table of a --trace-ages run, what the
// stamps cost (each traced run against the untraced run of the same trial
// just before it), what they cannot see, and the balls preempted apart.
func printTraceNote(stdout io.Writer, rows []Row) {
	var traced, untraced float64
	var preempted, disordered, balls uint64
	for _, r := range rows {
		if r.UntracedBallsPerS == nil {
			continue
		}
		traced += r.BallsPerS
		untraced += *r.UntracedBallsPerS
		preempted += *r.TracedPreempted
		disordered += r.Concurrent.TracedDisordered
		balls += r.Concurrent.Balls
	}
	fmt.Fprintf(stdout, "\ntraced: each ball stamped with the time-stamp counter (fenced RDTSC) before its first load and after its\n")
	fmt.Fprintf(stdout, "commit, into its worker's log; its age = the balls whose commit stamp lies strictly between its two stamps.\n")
	if untraced > 0 {
		fmt.Fprintf(stdout, "cost: %.3g balls/s traced against %.3g untraced (the same trials just before): %.2f×; %d bytes a ball.\n",
			traced/float64(len(rows)), untraced/float64(len(rows)), traced/untraced, concurrency.TraceBytesPerBall)
	}
	fmt.Fprintf(stdout, "preempted apart: %d of %d balls have an age over 1000·W (their worker was off the CPU between read and commit);\n", preempted, balls)
	fmt.Fprintf(stdout, "%d stamps were out of their worker's program order (counter skew between cores).\n", disordered)
	fmt.Fprintln(stdout, "the measured balls' ages (mean/p50/p99/max) by the striped total, which counts the commits made while the")
	fmt.Fprintln(stdout, "total is read, against the same balls' ages by their stamps:")
	for _, r := range rows {
		if tm := r.Concurrent.TracedMeasured; tm != nil {
			fmt.Fprintf(stdout, "  W = %d, trial %d: striped total %s; stamps %s\n", r.Workers, r.Trial, distText(r.Concurrent.GlobalStaleness), distText(*tm))
		}
	}
	fmt.Fprintln(stdout, "cannot see: the stamps order execution on each core, not when a store became visible to the others; a read")
	fmt.Fprintln(stdout, "stamp precedes its load by the load's latency, so commits made meanwhile count (ages are upper bounds at that")
	fmt.Fprintln(stdout, "resolution); commits on two cores closer than their counters' skew may be misordered; the stamping slows each")
	fmt.Fprintln(stdout, "ball and so changes the staleness it measures (compare the untraced gap).")
}
