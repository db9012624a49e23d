package compare

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/output"
)

// DeparturesRow is a departures run's figures, at the top level of its
// JSON object (Row embeds it): the concurrent run's and, with
// --compare, the sequential supermarket run's at the same λ (trial 2^20 +
// trial, the direct engine) and the fixed point, up to the largest level
// either run reached.
type DeparturesRow struct {
	ArrivalRate float64 `json:"arrival_rate"`
	Events      uint64  `json:"events"`
	Time        float64 `json:"time"`
	Warmup      float64 `json:"warmup"`
	Arrivals    uint64  `json:"arrivals"`
	Departures  uint64  `json:"departures"`
	EventsPerS  float64 `json:"events_per_s"`
	// MeanQueue and AtLeast are the sampled time averages after the
	// warmup (of TimeSamples bin reads), with batch-means standard errors;
	// FinalMeanQueue is the balls present / n at the end, MaxQueue the
	// largest final load, MaxEver the largest load held.
	MeanQueue        float64   `json:"mean_queue"`
	MeanQueueSE      float64   `json:"mean_queue_se"`
	Sojourn          float64   `json:"sojourn"`
	FinalMeanQueue   float64   `json:"final_mean_queue"`
	MaxQueue         float64   `json:"max_queue"`
	MaxEver          float64   `json:"max_ever"`
	FinalAtLeast     []float64 `json:"final_at_least"`
	AtLeast          []float64 `json:"at_least"`
	AtLeastSE        []float64 `json:"at_least_se"`
	TimeSamples      uint64    `json:"time_samples"`
	DepartureRetries uint64    `json:"departure_cas_retries"`

	SeqGap            *float64  `json:"sequential_gap,omitempty"`
	SeqMeanQueue      *float64  `json:"sequential_mean_queue,omitempty"`
	SeqMeanQueueSE    *float64  `json:"sequential_mean_queue_se,omitempty"`
	SeqFinalMeanQueue *float64  `json:"sequential_final_mean_queue,omitempty"`
	SeqMaxQueue       *float64  `json:"sequential_max_queue,omitempty"`
	SeqEventsPerS     *float64  `json:"sequential_events_per_s,omitempty"`
	SeqFinalAtLeast   []float64 `json:"sequential_final_at_least,omitempty"`
	SeqAtLeast        []float64 `json:"sequential_at_least,omitempty"`
	SeqAtLeastSE      []float64 `json:"sequential_at_least_se,omitempty"`
	FixedPoint        []float64 `json:"fixed_point,omitempty"`
	FixedPointModel   string    `json:"fixed_point_model,omitempty"`

	Sequential *result.Result `json:"sequential,omitempty"`
}

// Departures fills a departures run's row, and with compare runs
// the sequential supermarket and sets the fixed point beside it.
func Departures(row *Row, res *concurrency.Result, spec *core.Spec, tr uint64, compare bool) {
	dy := res.Dynamic
	d := &DeparturesRow{ArrivalRate: dy.ArrivalRate, Events: dy.Events, Time: dy.Time, Warmup: dy.Warmup,
		Arrivals: dy.Arrivals, Departures: dy.Departures, EventsPerS: res.BallsPerS,
		MeanQueue: dy.MeanQueue, MeanQueueSE: dy.MeanQueueSE, Sojourn: dy.Sojourn,
		FinalMeanQueue: float64(dy.Arrivals-dy.Departures) / float64(spec.Bins), MaxQueue: res.MaxLoad, MaxEver: dy.MaxEver,
		FinalAtLeast: dy.FinalAtLeast, AtLeast: dy.AtLeast, AtLeastSE: dy.AtLeastSE,
		TimeSamples: res.TimeSamples, DepartureRetries: res.DepartureRetries}
	row.DeparturesRow = d
	row.AgesOf = fmt.Sprintf("every %d-th event of each worker that is an arrival", res.MeasureEvery)
	if res.AgeLaw != nil {
		row.AgesOf = "every arrival"
	}
	if !compare {
		return
	}
	seq := engine.RunTrial(spec, tr+1<<20, nil)
	sd := seq.Dynamic
	fin := float64(sd.Arrivals-sd.Departures) / float64(spec.Bins)
	d.Sequential = seq
	d.SeqGap, d.SeqMeanQueue, d.SeqMeanQueueSE, d.SeqFinalMeanQueue, d.SeqMaxQueue, d.SeqEventsPerS =
		&seq.Gap, &sd.MeanQueue, &sd.MeanQueueSE, &fin, &seq.MaxLoad, &seq.BallsPerS
	d.SeqFinalAtLeast, d.SeqAtLeast, d.SeqAtLeastSE = sd.FinalAtLeast, sd.AtLeast, sd.AtLeastSE
	fp, model := core.SupermarketTheory(spec)
	levels := max(len(d.FinalAtLeast), len(d.AtLeast), len(d.SeqFinalAtLeast), len(d.SeqAtLeast))
	d.FixedPoint, d.FixedPointModel = fp[:min(len(fp), levels)], model
}

// PrintDepartures prints departures runs: a line per run (and its
// sequential run), then per worker count the fractions of bins with load
// ≥ i beside the sequential run's and the fixed point (compare: the
// sequential runs were made).
func PrintDepartures(stdout io.Writer, rows []Row, set Setting, compare bool) {
	spec, mode, layout, measure, emulated := set.Spec, set.Mode, set.Layout, set.Measure, set.Emulated
	printDeparturesHeader(stdout, spec, mode, layout, measure, emulated)
	fmt.Fprintln(stdout)
	what := "workers"
	if emulated {
		what = "emulated workers"
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	head := what + "\ttrial\trun\tevents/s\tarrivals\tdepartures\tmean queue (time avg)\tfinal mean queue\tmax queue\tmax ever\tgap\tage mean/p50/p90/p99/max"
	// Emulated departures are one step each (their CAS loop is atomic):
	// only goroutine runs have departure retries to show.
	switch {
	case mode == concurrency.CAS && emulated:
		head += "\tCAS retries"
	case mode == concurrency.CAS:
		head += "\tCAS retries arrivals/departures"
	case !emulated:
		head += "\tdeparture CAS retries"
	}
	fmt.Fprintln(tw, head)
	run := "concurrent"
	if emulated {
		run = "emulated"
	}
	for _, r := range rows {
		x := r.DeparturesRow
		avg := "– (--measure-every 0)"
		if x.TimeSamples > 0 {
			avg = fmt.Sprintf("%s ± %.2g", g(x.MeanQueue), z975*x.MeanQueueSE)
		}
		line := fmt.Sprintf("%d\t%d\t%s\t%.3g\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s", r.Workers, r.Trial, run, x.EventsPerS, x.Arrivals, x.Departures,
			avg, g(x.FinalMeanQueue), g(x.MaxQueue), g(x.MaxEver), g(r.Gap),
			fmt.Sprintf("%.3g/%d/%d/%d/%d", r.AgeMean, r.AgeP50, r.AgeP90, r.AgeP99, r.AgeMax))
		switch {
		case mode == concurrency.CAS && emulated:
			line += fmt.Sprintf("\t%d", r.Concurrent.Retries)
		case mode == concurrency.CAS:
			line += fmt.Sprintf("\t%d/%d", r.Concurrent.Retries, x.DepartureRetries)
		case !emulated:
			line += fmt.Sprintf("\t%d", x.DepartureRetries)
		}
		fmt.Fprintln(tw, line)
		if x.Sequential != nil {
			sd := x.Sequential.Dynamic
			seq := fmt.Sprintf("\t\tsequential\t%.3g\t%d\t%d\t%s ± %.2g\t%s\t%s\t%s\t%s\t–", *x.SeqEventsPerS, sd.Arrivals, sd.Departures,
				g(*x.SeqMeanQueue), z975**x.SeqMeanQueueSE, g(*x.SeqFinalMeanQueue), g(*x.SeqMaxQueue), g(sd.MaxEver), g(*x.SeqGap))
			if mode == concurrency.CAS || !emulated {
				seq += "\t–"
			}
			fmt.Fprintln(tw, seq)
		}
	}
	tw.Flush()
	for _, r := range rows {
		dy := r.Concurrent.Result.Result.Dynamic
		if limit := 2 / math.Sqrt(float64(dy.Batches)); dy.Batches > 1 && dy.BatchLag1 > limit {
			fmt.Fprintf(stdout, "warning: the batch means are correlated (lag-1 autocorrelation %.2f > 2/√%d in trial %d): the batches are shorter than the relaxation time and the standard errors understated; lengthen --time\n", dy.BatchLag1, dy.Batches, r.Trial)
			break
		}
	}
	if compare {
		fmt.Fprintln(stdout, "\nsequential: balloc run's supermarket model at the same λ and events (direct engine, exact time averages; its own trials' streams)")
	}
	for lo := 0; lo < len(rows); {
		hi := lo
		for hi < len(rows) && rows[hi].Workers == rows[lo].Workers {
			hi++
		}
		printDepartureLevels(stdout, rows[lo:hi], spec, what, compare)
		lo = hi
	}
}

// printDepartureLevels is one worker count's table of fractions of bins
// with load ≥ i: means over its trials, the time averages' errors the
// trials' batch-means errors combined (√Σse² / trials).
func printDepartureLevels(stdout io.Writer, grp []Row, spec *core.Spec, what string, compare bool) {
	fp, model := core.SupermarketTheory(spec)
	levels := 0
	for _, r := range grp {
		x := r.DeparturesRow
		levels = max(levels, len(x.FinalAtLeast), len(x.AtLeast), len(x.SeqFinalAtLeast), len(x.SeqAtLeast))
	}
	fmt.Fprintf(stdout, "\n%d %s: fractions of bins with load ≥ i, means over %d trial(s)\n", grp[0].Workers, what, len(grp))
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "  i\tfinal ≥ i\ttime-averaged ≥ i\t± 95% CI\t"
	if compare {
		head += "sequential final\tsequential time-averaged\t± 95% CI\tfixed point π_i\t"
	}
	fmt.Fprintln(tw, head)
	at := func(xs []float64, k int) float64 {
		if k < len(xs) {
			return xs[k]
		}
		return 0
	}
	mean := func(k int, get func(*DeparturesRow) []float64) float64 {
		m := 0.0
		for _, r := range grp {
			m += at(get(r.DeparturesRow), k) / float64(len(grp))
		}
		return m
	}
	se := func(k int, get func(*DeparturesRow) []float64) float64 {
		ss := 0.0
		for _, r := range grp {
			ss += at(get(r.DeparturesRow), k) * at(get(r.DeparturesRow), k)
		}
		return z975 * math.Sqrt(ss) / float64(len(grp)) // the half-width of a 95% interval
	}
	for k := range levels {
		line := fmt.Sprintf("  %d\t%s\t%s\t%.2g\t", k+1, output.Fraction(mean(k, func(x *DeparturesRow) []float64 { return x.FinalAtLeast })),
			output.Fraction(mean(k, func(x *DeparturesRow) []float64 { return x.AtLeast })), se(k, func(x *DeparturesRow) []float64 { return x.AtLeastSE }))
		if compare {
			line += fmt.Sprintf("%s\t%s\t%.2g\t%s\t", output.Fraction(mean(k, func(x *DeparturesRow) []float64 { return x.SeqFinalAtLeast })),
				output.Fraction(mean(k, func(x *DeparturesRow) []float64 { return x.SeqAtLeast })), se(k, func(x *DeparturesRow) []float64 { return x.SeqAtLeastSE }),
				output.Fraction(at(fp, k)))
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	if compare {
		fmt.Fprintf(stdout, "  fixed point: %s\n", model)
	}
}

// printDeparturesHeader says what was run and how its events and time
// averages were drawn.
func printDeparturesHeader(stdout io.Writer, spec *core.Spec, mode concurrency.Mode, layout concurrency.Layout, measure uint64, emulated bool) {
	d := spec.Dynamic
	fmt.Fprintf(stdout, "%s: supermarket model, λ = %s, n = %s bins, %s events (time %s, warmup %s), mode %s, layout %s, seed %d, %d CPU(s)\n",
		strings.TrimSpace(spec.Process.Name+" "+spec.ParamsText()), g(d.ArrivalRate), units.FormatCount(spec.Bins), units.FormatCount(d.Events),
		g(float64(d.Events)/d.EventRate(spec.Bins)), g(d.Warmup), mode, layout, spec.Seed, runtime.NumCPU())
	fmt.Fprintln(stdout, "events: each worker draws its own share, an arrival with probability λ/(1+λ) (decided on racy reads, committed by an atomic add, or --mode cas a compare-and-swap),")
	fmt.Fprintln(stdout, "else a departure from a uniform bin, taken by compare-and-swap only if that bin is non-empty")
	fmt.Fprintf(stdout, "time averages: %d consecutive bins from a uniform start read before every %d-th event of each worker after its share of the warmup, ± 95%% CI (1.96 standard errors of batch means)\n", concurrency.SampleBins, measure)
	if emulated {
		fmt.Fprintln(stdout, "ages: of every arrival, exact: load changes (arrivals and departures) committed between its reads and its commit")
	} else {
		fmt.Fprintf(stdout, "ages: of every %d-th event of each worker that is an arrival: load changes (arrivals and departures) committed between its reads and its commit\n", measure)
	}
}
