package compare

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/internal/stats"
	"github.com/balloc/balloc/output"
)

// Setting is how the runs of a table were made, as its header says.
type Setting struct {
	Spec     *core.Spec
	Mode     concurrency.Mode
	Layout   concurrency.Layout
	Measure  uint64 // staleness measured every Measure-th ball of each worker
	Emulated bool   // virtual workers in one goroutine (concurrency.Config.Emulate)
	Traced   bool   // every ball stamped (concurrency.Config.TraceAges)
}

// Progress, when not nil, is told before a trial's sequential runs the
// balls they will place, and returns the callback the engine reports its
// balls to and the function called when they are done.
type Progress func(total uint64) (report func(uint64), done func())

// z975 turns a standard error of batch means (many, close to normal) into
// the half-width of a 95% interval: every ± in balloc's tables is one.
const z975 = 1.959963984540054

// g formats a figure for a table (result.Figure).
func g(x float64) string { return result.Figure(x) }

// Row is one concurrent run and the sequential runs set beside it:
// one JSON object per run, its headline figures at the top level.
type Row struct {
	Workers   int     `json:"workers"`
	Trial     uint64  `json:"trial"`
	Gap       float64 `json:"gap"`
	BallsPerS float64 `json:"balls_per_s"`
	// Ages: of every ball (emulated runs) or of every measure-every-th
	// ball of each worker (goroutines), in balls.
	AgesOf  string  `json:"ages_of"`
	AgeMean float64 `json:"age_mean"`
	AgeP50  uint64  `json:"age_p50"`
	AgeP90  uint64  `json:"age_p90"`
	AgeP99  uint64  `json:"age_p99"`
	AgeP999 uint64  `json:"age_p999"`
	AgeMax  uint64  `json:"age_max"`
	// Descheduled: measured balls of a goroutine run (racy, cas) whose
	// read-to-add took over 20 µs, and their largest age.
	Descheduled       uint64 `json:"descheduled"`
	DescheduledAgeMax uint64 `json:"descheduled_age_max"`
	// ReplayGap: the delayed model with --delay replay on the run's own age
	// sequence (emulated and --trace-ages runs only); IIDGap: with --delay
	// empirical, ages drawn independently from the run's law of ages.
	ReplayGap *float64 `json:"replay_gap"`
	IIDGap    *float64 `json:"iid_ages_gap"`
	// FreshGap: the rule on fresh loads (process.Models.Fresh). The JSON
	// keys of the three models' runs and gaps are those of the first rule
	// compared, the least of two samples (two-choice, tau-delay, b-batch):
	// kept, so that files read before read the same.
	FreshGap *float64 `json:"two_choice_gap"`
	// With --trace-ages: the balls whose traced age exceeds 1000·W (their
	// worker was descheduled), and the same trial's untraced run just
	// before, for what tracing costs.
	TracedPreempted   *uint64  `json:"traced_preempted,omitempty"`
	UntracedBallsPerS *float64 `json:"untraced_balls_per_s,omitempty"`
	UntracedGap       *float64 `json:"untraced_gap,omitempty"`
	// Tau is the age quantile the theory rows use (p99), Regime what the
	// paper's text says for it; DelayedGap and BatchedGap the sequential
	// delayed model's --delay fixed --tau τ and batched model's --batch
	// max(τ, 1) runs.
	// Sharded mode: the bound backpressure keeps every ball's age below
	// (concurrency.ShardedAgeBound) and the times a worker waited for it.
	AgeBound          uint64  `json:"age_bound,omitempty"`
	BackpressureWaits *uint64 `json:"backpressure_waits,omitempty"`

	Tau        uint64   `json:"tau_p99"`
	Regime     string   `json:"regime,omitempty"`
	DelayedGap *float64 `json:"tau_delay_gap"`
	BatchedGap *float64 `json:"b_batch_gap"`

	// With balls that leave (Departures), its figures at the
	// top level; nil otherwise, and then none of its fields appear.
	*DeparturesRow

	Concurrent Result         `json:"concurrent"`
	Replay     *result.Result `json:"replay,omitempty"`
	Model      *result.Result `json:"delay_model,omitempty"`
	Fresh      *result.Result `json:"two_choice,omitempty"`
	Delayed    *result.Result `json:"tau_delay,omitempty"`
	Batched    *result.Result `json:"b_batch,omitempty"`
}

// Result is a concurrent run's result as the JSON gives it: its
// shard totals (64 ranges of bins, most of them empty when n is small) as
// {"shard": balls} of the shards that got balls.
type Result struct {
	*concurrency.Result
	ShardTotals shardTotals `json:"shard_totals"`
}

// shardTotals are the balls in each shard, written as a JSON object of the
// non-zero ones, keyed by shard index in ascending order ({"0": 1601, ...}).
type shardTotals []uint64

func (st shardTotals) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, x := range st {
		if x == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "%q:%d", strconv.Itoa(i), x)
	}
	return append(b, '}'), nil
}

// NewRow is a run's row without comparisons: its gap, speed and
// law of ages (exact where every ball's age was kept, else the measured
// balls').
func NewRow(res *concurrency.Result, tr uint64) (Row, concurrency.Dist) {
	law, of := res.GlobalStaleness, fmt.Sprintf("every %d-th ball of each worker", res.MeasureEvery)
	if res.AgeLaw != nil {
		law, of = *res.AgeLaw, "every ball"
		if res.Traced {
			of = "every ball, from its TSC stamps"
		}
	}
	row := Row{Workers: res.Workers, Trial: tr, Gap: res.Gap, BallsPerS: res.BallsPerS, AgesOf: of,
		AgeMean: law.Mean, AgeP50: law.P50, AgeP90: law.P90, AgeP99: law.P99, AgeP999: law.P999, AgeMax: law.Max,
		Tau: law.P99, Descheduled: res.Descheduled.Count, DescheduledAgeMax: res.Descheduled.Max,
		Concurrent: Result{res, shardTotals(res.ShardTotals)}}
	if res.Mode == concurrency.Sharded.String() {
		row.AgeBound, row.BackpressureWaits = res.AgeBound, &res.BackpressureWaits
	}
	return row, law
}

// Run sets the rule's sequential models beside a concurrent run
// (models nil: none): the delayed model replaying its ages and with i.i.d.
// ages of their law, the rule on fresh loads, and the delayed and batched
// models at the ages' p99. The sequential runs use trial numbers 2^20 and
// up, so their choices are independent of the run's.
func Run(res *concurrency.Result, spec *core.Spec, com core.Common, tr uint64, models *process.Models, progress Progress) (Row, error) {
	row, law := NewRow(res, tr)
	if models == nil || law.Count == 0 {
		return row, nil
	}
	seq := tr + 1<<20
	runs := uint64(4) // i.i.d. ages, fresh, delayed, batched
	if res.Ages != nil {
		runs++ // the replay
	}
	var report func(uint64)
	if progress != nil {
		var done func()
		report, done = progress(runs * spec.Balls)
		defer done()
	}
	run := func(m process.Model, set map[string]string, opts ...core.SpecOption) (*result.Result, *float64, error) {
		s, err := core.NewSpec(m.Process, m.With(set), com, opts...)
		if err != nil {
			return nil, nil, err
		}
		r := engine.RunTrial(s, seq, report)
		return r, &r.Gap, nil
	}
	var err error
	if res.Ages != nil {
		source := "emulated"
		if res.Traced {
			source = "traced"
		}
		if row.Replay, row.ReplayGap, err = run(models.Delayed, map[string]string{"delay": "replay"},
			core.WithReplay(res.Ages, fmt.Sprintf("%s run (%d workers, trial %d)", source, res.Workers, tr))); err != nil {
			return row, err
		}
	}
	if row.Model, row.IIDGap, err = run(models.Delayed, map[string]string{"delay": "empirical"},
		core.WithAges(law.Weights(), fmt.Sprintf("measured (%d workers)", res.Workers))); err != nil {
		return row, err
	}
	if row.Fresh, row.FreshGap, err = run(models.Fresh, nil); err != nil {
		return row, err
	}
	row.Regime = regime(row.Tau, spec.Bins)
	if row.Delayed, row.DelayedGap, err = run(models.Delayed, map[string]string{"delay": "fixed", "tau": fmt.Sprint(row.Tau)}); err != nil {
		return row, err
	}
	if row.Batched, row.BatchedGap, err = run(models.Batched, map[string]string{"batch": fmt.Sprint(max(row.Tau, 1))}); err != nil {
		return row, err
	}
	return row, nil
}

// ModelText is a model as the tables name it: the process and the values
// that make it the rule ("one-plus-beta beta=0.5").
func ModelText(m process.Model) string {
	parts := []string{m.Process}
	keys := make([]string, 0, len(m.Set))
	for k := range m.Set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+m.Set[k])
	}
	return strings.Join(parts, " ")
}

// regime says which of the bounds of Los and Sauerwald, "Balanced
// Allocations with the Choice of Noise" (PODC 2022), §1, covers delay τ or
// batch b = τ on n bins: for b ≥ n log n the b-Batch gap is Θ(b/n) (§1,
// related work, from the authors' batching results); for τ and b "around
// n" the τ-Delay and b-Batch bounds are tight (§1, our results; proved in
// §10–11), Θ(log n / log log n) for b = n. The paper gives "around n" no
// range; it is taken here as n/ln n ≤ τ < n ln n.
func regime(tau, n uint64) string {
	ln := math.Log(float64(max(n, 2)))
	t := float64(tau)
	switch {
	case tau == 0:
		return "τ = 0: no delay, Two-Choice"
	case t >= float64(n)*ln:
		return "τ ≥ n ln n: b-Batch gap Θ(b/n) (§1, related work); no τ-Delay bound quoted"
	case t >= float64(n)/ln:
		return "τ around n: tight τ-Delay and b-Batch bounds (§1, our results; §10–11); b = n: Θ(log n / log log n)"
	}
	return "τ < n/ln n: no bound quoted"
}

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

// ModelsText says which processes, at their defaults, have sequential
// models and which, for the command's help: "d-choice (two-choice,
// tau-delay, b-batch); ...".
func ModelsText() string {
	var parts []string
	for _, e := range process.ConcurrentProcesses() {
		p := e.New()
		var w process.Weights
		if process.Apply(p, nil, &w) != nil {
			continue // a required parameter: no defaults to read
		}
		if m := p.(process.Concurrent).Concurrent().Models; m != nil {
			parts = append(parts, fmt.Sprintf("%s (%s, %s, %s)", e.Name, m.Fresh.Process, m.Delayed.Process, m.Batched.Process))
		}
	}
	return strings.Join(parts, "; ")
}
