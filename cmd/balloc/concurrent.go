package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/stat"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/internal/files"
)

// concurrentParams are the process parameters balloc concurrent takes,
// with help that speaks of its own processes only (the catalogue's
// flags, shared by balloc run, name processes concurrent refuses).
var concurrentParams = []struct{ name, usage string }{
	{"d", "d-choice: samples per ball, the least loaded taken, 1 ≤ d ≤ 16 and d ≤ bins (default 2)"},
	{"beta", "one-plus-beta: probability β that a ball samples two bins and takes the less loaded (else one bin), 0 ≤ β ≤ 1"},
	{"threshold", "two-thinning: θ; a ball keeps its first bin if that bin's load < t/n + θ, t the balls placed so far as the workers' striped counts give it, else takes a second (any real)"},
	{"g", "g-myopic-comp: two loads differing by at most g are compared by a fair coin, else the lighter is taken, g ≥ 0"},
}

type concurrentFlags struct {
	process, bins, balls, seed, trials string
	workers, scaling, emulate          string
	mode, batch, layout, measureEvery  string
	format                             string
	compare, traceAges                 bool
	progress                           string
	cpuprofile, memprofile, trace      string
	force                              bool
	saveAges                           string
	params                             map[string]*string
	dyn                                dynamicFlags // --arrival-rate, --time, --events, --warmup (concurrentdepartures.go)
}

func newConcurrentCommand(stdout io.Writer) *cobra.Command {
	f := &concurrentFlags{params: map[string]*string{}}
	c := &cobra.Command{
		Use:   "concurrent --process NAME --bins N (--balls M | --arrival-rate λ (--time T | --events E)) [--workers W | --scaling 1,2,4 | --emulate W] [flags]",
		Short: "Allocate with goroutines on shared atomic loads; measure staleness; compare with the delay model",
		Long: "Allocate with W goroutines on one shared array of atomic loads (or, --mode sharded, each\n" +
			"writing its own shard), measure the age of the information each ball decided on, and, for\n" +
			"two-choice, set the gap beside the replay of an emulated run's exact age sequence (tau-delay\n" +
			"--delay replay), the i.i.d.-ages model, two-choice, and tau-delay and b-batch at the ages' p99.\n" +
			"With --arrival-rate λ the balls also leave (the supermarket model, as balloc run's: each worker\n" +
			"draws its own uniformized events; a departure takes a ball from a uniform bin by compare-and-swap\n" +
			"only if it is non-empty; racy and cas modes; one-choice, two-choice, d-choice, one-plus-beta and\n" +
			"two-thinning, whose threshold reads the balls present from the workers' striped counts),\n" +
			"set beside the sequential supermarket run at the same λ and the mean field's fixed point.\n" +
			"Processes: " + strings.Join(concurrentProcesses(), ", ") + ".",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runConcurrent(c, f, stdout) },
	}
	fl := c.Flags()
	fl.SortFlags = false
	fl.StringVar(&f.process, "process", "", "process (required)")
	fl.StringVar(&f.bins, "bins", "", "number of bins n (required)")
	fl.StringVar(&f.balls, "balls", "", "number of balls m, below 2^32 (required, unless --arrival-rate)")
	addConcurrentDynamicFlags(fl, &f.dyn)
	for _, p := range concurrentParams {
		v := new(string)
		f.params[p.name] = v
		fl.StringVar(v, p.name, "", p.usage)
	}
	fl.StringVar(&f.workers, "workers", "0", "goroutines allocating at once (0: one per CPU)")
	fl.StringVar(&f.scaling, "scaling", "", "a comma-separated list of worker counts to run in turn, e.g. 1,2,4")
	fl.StringVar(&f.emulate, "emulate", "", "W virtual workers in one goroutine, randomly interleaved: deterministic for a seed")
	fl.StringVar(&f.mode, "mode", "racy", "racy (read, decide, add), cas (compare-and-swap, retry), local-batch, or sharded (each worker writes its own bins; others' balls reach it in batches)")
	fl.StringVar(&f.batch, "batch", "", "local-batch: decisions per publish")
	fl.StringVar(&f.layout, "layout", "packed", "packed (4 bytes a bin) or padded (a cache line a bin)")
	fl.StringVar(&f.measureEvery, "measure-every", "256", "measure the staleness of every K-th ball of each worker (0: none)")
	fl.StringVar(&f.seed, "seed", "1", "seed")
	fl.StringVar(&f.trials, "trials", "1", "runs per worker count")
	fl.BoolVar(&f.compare, "compare", true, "two-choice: set beside each run the sequential replay of its ages (emulated and --trace-ages runs), the i.i.d.-ages model, two-choice, and tau-delay and b-batch at the ages' p99, each m balls; on unless --compare=false")
	// The usage says how to turn it off; pflag would add "(default true)".
	fl.Lookup("compare").DefValue = ""
	fl.StringVar(&f.progress, "progress", "auto", "progress bar of the comparisons on stderr: auto (when it is a terminal), always or never")
	fl.BoolVar(&f.traceAges, "trace-ages", false, "racy and cas goroutine runs: stamp every ball's reads and commit with the CPU's time-stamp counter, take every ball's age from the merged commit order, and replay it (20 bytes a ball; x86-64 with an invariant TSC; each traced run follows an untraced one of the same trial, for the cost)")
	fl.StringVar(&f.saveAges, "save-ages", "", "emulated or --trace-ages, one run: write every ball's age, in ball order, to this new file (for tau-delay --delay replay --replay)")
	fl.StringVar(&f.format, "format", "table", "table or json")
	fl.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile (pprof, labelled per worker) to this file")
	fl.StringVar(&f.memprofile, "memprofile", "", "write a heap profile (pprof) to this file")
	fl.StringVar(&f.trace, "trace", "", "write an execution trace to this file")
	fl.BoolVar(&f.force, "force", false, forceHelp)
	return c
}

func runConcurrent(c *cobra.Command, f *concurrentFlags, stdout io.Writer) error {
	fl := c.Flags()
	for _, req := range []string{"process", "bins", "balls"} {
		if !fl.Changed(req) && (req != "balls" || !fl.Changed("arrival-rate")) {
			return fmt.Errorf("--%s is required (see balloc concurrent --help)", req)
		}
	}
	var com core.Common
	var err error
	if com.Bins, err = parseCountFlag("bins", f.bins); err != nil {
		return err
	}
	if fl.Changed("balls") {
		if com.Balls, err = parseCountFlag("balls", f.balls); err != nil {
			return err
		}
		if fl.Changed("arrival-rate") {
			return fmt.Errorf("--balls: a supermarket run (--arrival-rate) is as long as --time T or --events E, not a number of balls")
		}
	}
	if err := parseDynamic(fl, &f.dyn, &com); err != nil {
		return err
	}
	if com.Seed, err = parseCountFlag("seed", f.seed); err != nil {
		return err
	}
	trials, err := parseCountFlag("trials", f.trials)
	if err != nil {
		return err
	}
	if trials < 1 || trials > 1<<20 {
		return fmt.Errorf("--trials %d: want 1 to 2^20", trials)
	}
	com.Trials, com.Alpha, com.Engine = int(trials), 1, core.EngineDirect
	set := map[string]string{}
	for name, v := range f.params {
		if fl.Changed(name) {
			set[name] = *v
		}
	}
	proc, err := process.Lookup(f.process)
	if err != nil {
		return err
	}
	// A process concurrent does not run is refused by its name first: NewSpec
	// would ask for parameters concurrent has no flags for (tau-delay needs
	// --tau). With zero parameters and sizes, Check looks at the process only.
	if err := concurrency.Check(&core.Spec{Process: proc, Proc: proc.New()}); err != nil {
		return err
	}
	if fl.Changed("arrival-rate") {
		if err := concurrency.CheckDepartures(&core.Spec{Process: proc, Proc: proc.New()}); err != nil {
			return err
		}
	}
	for name := range set {
		if !proc.Takes(name) {
			return fmt.Errorf("--%s does not apply to %s", name, proc.Name)
		}
	}
	spec, err := core.NewSpec(f.process, set, com)
	if err != nil {
		return err
	}
	if err := concurrency.Check(spec); err != nil {
		return err
	}
	mode, err := concurrency.ParseMode(f.mode)
	if err != nil {
		return err
	}
	departures := spec.Dynamic.Supermarket()
	if departures {
		if err := concurrency.CheckDeparturesMode(mode); err != nil {
			return err
		}
		if f.saveAges != "" {
			return fmt.Errorf("--save-ages: the ages of a run with departures are not a tau-delay replay; leave out --save-ages or --arrival-rate")
		}
	}
	layout, err := concurrency.ParseLayout(f.layout)
	if err != nil {
		return err
	}
	var batch uint64
	if fl.Changed("batch") {
		if mode != concurrency.LocalBatch {
			return fmt.Errorf("--batch applies to --mode local-batch only")
		}
		if batch, err = parseCountFlag("batch", f.batch); err != nil {
			return err
		}
		if batch < 1 {
			return fmt.Errorf("--batch 0: want at least 1 decision per publish")
		}
	} else if mode == concurrency.LocalBatch {
		return fmt.Errorf("--mode local-batch needs --batch B")
	}
	measure, err := parseCountFlag("measure-every", f.measureEvery)
	if err != nil {
		return err
	}
	var counts []int
	emulated := fl.Changed("emulate")
	switch {
	case emulated && (fl.Changed("workers") || fl.Changed("scaling")):
		return fmt.Errorf("--emulate runs its own virtual workers: leave out --workers and --scaling")
	case fl.Changed("workers") && fl.Changed("scaling"):
		return fmt.Errorf("--workers and --scaling both set: give one")
	case emulated:
		w, err := parseCountFlag("emulate", f.emulate)
		if err != nil {
			return err
		}
		if w < 1 || w > 1<<20 {
			return fmt.Errorf("--emulate %d: want 1 to 2^20 virtual workers", w)
		}
		counts = []int{int(w)}
	case fl.Changed("scaling"):
		for _, part := range strings.Split(f.scaling, ",") {
			w, err := parseCountFlag("scaling", strings.TrimSpace(part))
			if err != nil {
				return err
			}
			if w < 1 || w > 1<<16 {
				return fmt.Errorf("--scaling %s: want worker counts from 1 to 65536", part)
			}
			counts = append(counts, int(w))
		}
	default:
		w, err := parseCountFlag("workers", f.workers)
		if err != nil {
			return err
		}
		if w > 1<<16 {
			return fmt.Errorf("--workers %d: want at most 65536", w)
		}
		counts = []int{concurrency.Workers(int(w))}
	}
	if mode == concurrency.Sharded {
		for _, w := range counts {
			if err := concurrency.CheckSharded(spec, w, emulated); err != nil {
				return err
			}
		}
	}
	traced := f.traceAges
	if traced {
		if err := concurrency.CheckTrace(mode, emulated, departures); err != nil {
			return err
		}
	}
	switch f.format {
	case "table", "json":
	default:
		return fmt.Errorf("--format %q: want table or json", f.format)
	}
	bar, err := wantBar(f.progress, c.ErrOrStderr())
	if err != nil {
		return err
	}
	rule, ok := spec.Proc.(process.Concurrent)
	comparable := ok && rule.Concurrent().Shape == process.ShapeLeast && rule.Concurrent().D == 2
	need := units.Mul(spec.Bins, layout.Bytes())
	mem := units.MemoryLimit()
	if mem.Bytes > 0 && need > mem.Bytes {
		hint := "lower --bins"
		if layout != concurrency.Packed {
			hint += " or use --layout packed (4 bytes a bin)"
		}
		return fmt.Errorf("--bins %s: the shared loads need %s, more than the %v; %s", units.FormatCount(spec.Bins), units.FormatBytes(float64(need)), mem, hint)
	}
	if mode == concurrency.LocalBatch {
		// Each local-batch worker, goroutine or virtual, keeps its own view
		// of every bin: a load and an epoch, 8 bytes a bin (allocator.go,
		// emulate.go).
		most := slices.Max(counts)
		views := units.Mul(units.Mul(8, spec.Bins), uint64(most))
		all := units.Add(need, views)
		if mem.Bytes > 0 && all > mem.Bytes {
			return fmt.Errorf("--bins %s: %d local-batch workers keep a view of every bin, %s with the loads, more than the %v; lower --bins or the workers",
				units.FormatCount(spec.Bins), most, units.FormatBytes(float64(all)), mem)
		}
		need = all
	}
	if traced {
		if err := checkTraceMemory(spec.Balls, need, mem); err != nil {
			return err
		}
	}
	record := emulated && (f.compare || f.saveAges != "") && !departures
	if record {
		// Every ball's age is kept for the replay: 4 bytes a ball.
		if all := units.Add(need, units.Mul(4, spec.Balls)); mem.Bytes > 0 && all > mem.Bytes {
			return fmt.Errorf("--balls %s: an emulated run keeps every ball's age for its replay, %s with the loads, more than the %v; lower --balls or add --compare=false",
				units.FormatCount(spec.Balls), units.FormatBytes(float64(all)), mem)
		}
	}
	var agesOut *files.Output
	if f.saveAges != "" {
		switch {
		case !emulated && !traced:
			return fmt.Errorf("--save-ages: only emulated and traced runs record every ball's age; add --emulate W or --trace-ages")
		case trials != 1:
			return fmt.Errorf("--save-ages writes one run's ages: set --trials 1")
		}
		if agesOut, err = newOutput("--save-ages", f.saveAges, f.force); err != nil {
			return err
		}
	}
	prof, err := startProfile(f.cpuprofile, f.memprofile, f.trace, f.force)
	if err != nil {
		return err
	}

	var rows []concurrentRow
	for _, w := range counts {
		for tr := range uint64(trials) {
			cfg := concurrency.Config{Spec: spec, Trial: tr, Workers: w, Mode: mode, Batch: batch,
				Layout: layout, MeasureEvery: measure, Emulate: emulated, RecordAges: record}
			var twin *concurrency.Result
			if traced {
				// The same trial untraced, just before: what tracing costs.
				if twin, err = concurrency.Run(cfg); err != nil {
					prof.finish()
					return failure{err}
				}
				cfg.TraceAges = true
			}
			res, err := concurrency.Run(cfg)
			if err != nil {
				prof.finish()
				return failure{err}
			}
			if f.saveAges != "" {
				if err := saveAges(agesOut, res.Ages); err != nil {
					prof.finish()
					return failure{err}
				}
			}
			var progress *comparisonBar
			if bar {
				progress = &comparisonBar{w: c.ErrOrStderr(), workers: w, trial: tr}
			}
			row, err := compareRun(res, spec, com, tr, f.compare && comparable && !departures, progress)
			if twin != nil {
				row.UntracedBallsPerS, row.UntracedGap, row.TracedPreempted = &twin.BallsPerS, &twin.Gap, &res.TracedPreempted
			}
			if departures {
				compareDepartures(&row, res, spec, tr, f.compare)
			}
			if err != nil {
				prof.finish()
				return failure{err}
			}
			rows = append(rows, row)
			res.Ages = nil // replayed and saved: free it before the next run
		}
	}
	if err := prof.finish(); err != nil {
		return err
	}
	if f.format == "json" {
		b, err := json.MarshalIndent(rows, "", " ")
		if err != nil {
			return failure{err}
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return nil
	}
	if departures {
		printDepartures(stdout, rows, spec, mode, layout, measure, emulated, f.compare)
		return nil
	}
	printConcurrent(stdout, rows, spec, mode, layout, measure, emulated, traced, comparable && f.compare)
	return nil
}

// concurrentRow is one concurrent run and the sequential runs set beside it:
// one JSON object per run, its headline figures at the top level.
type concurrentRow struct {
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
	// ReplayGap: tau-delay --delay replay on the run's own age sequence
	// (emulated and --trace-ages runs only); IIDGap: tau-delay --delay
	// empirical, ages drawn independently from the run's law of ages.
	ReplayGap    *float64 `json:"replay_gap"`
	IIDGap       *float64 `json:"iid_ages_gap"`
	TwoChoiceGap *float64 `json:"two_choice_gap"`
	// With --trace-ages: the balls whose traced age exceeds 1000·W (their
	// worker was descheduled), and the same trial's untraced run just
	// before, for what tracing costs.
	TracedPreempted   *uint64  `json:"traced_preempted,omitempty"`
	UntracedBallsPerS *float64 `json:"untraced_balls_per_s,omitempty"`
	UntracedGap       *float64 `json:"untraced_gap,omitempty"`
	// Tau is the age quantile the theory rows use (p99), Regime what the
	// paper's text says for it; TauDelayGap and BBatchGap the sequential
	// tau-delay --delay fixed --tau τ and b-batch --batch max(τ, 1) runs.
	// Sharded mode: the bound backpressure keeps every ball's age below
	// (concurrency.ShardedAgeBound) and the times a worker waited for it.
	AgeBound          uint64  `json:"age_bound,omitempty"`
	BackpressureWaits *uint64 `json:"backpressure_waits,omitempty"`

	Tau         uint64   `json:"tau_p99"`
	Regime      string   `json:"regime,omitempty"`
	TauDelayGap *float64 `json:"tau_delay_gap"`
	BBatchGap   *float64 `json:"b_batch_gap"`

	// With --arrival-rate (concurrentdepartures.go), its figures at the
	// top level; nil otherwise, and then none of its fields appear.
	*departuresRow

	Concurrent concurrentResult `json:"concurrent"`
	Replay     *result.Result   `json:"replay,omitempty"`
	Model      *result.Result   `json:"delay_model,omitempty"`
	TwoChoice  *result.Result   `json:"two_choice,omitempty"`
	TauDelay   *result.Result   `json:"tau_delay,omitempty"`
	BBatch     *result.Result   `json:"b_batch,omitempty"`
}

// concurrentResult is a concurrent run's result as the JSON gives it: its
// shard totals (64 ranges of bins, most of them empty when n is small) as
// {"shard": balls} of the shards that got balls.
type concurrentResult struct {
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

// compareRun sets the sequential models beside a concurrent run (when
// compare is set): the replay of its ages, i.i.d. ages, two-choice, and
// tau-delay and b-batch at the ages' p99. The sequential runs use trial
// numbers 2^20 and up, so their choices are independent of the run's.
func compareRun(res *concurrency.Result, spec *core.Spec, com core.Common, tr uint64, compare bool, bar *comparisonBar) (concurrentRow, error) {
	law, of := res.GlobalStaleness, fmt.Sprintf("every %d-th ball of each worker", res.MeasureEvery)
	if res.AgeLaw != nil {
		law, of = *res.AgeLaw, "every ball"
		if res.Traced {
			of = "every ball, from its TSC stamps"
		}
	}
	row := concurrentRow{Workers: res.Workers, Trial: tr, Gap: res.Gap, BallsPerS: res.BallsPerS, AgesOf: of,
		AgeMean: law.Mean, AgeP50: law.P50, AgeP90: law.P90, AgeP99: law.P99, AgeP999: law.P999, AgeMax: law.Max,
		Tau: law.P99, Descheduled: res.Descheduled.Count, DescheduledAgeMax: res.Descheduled.Max,
		Concurrent: concurrentResult{res, shardTotals(res.ShardTotals)}}
	if res.Mode == concurrency.Sharded.String() {
		row.AgeBound, row.BackpressureWaits = res.AgeBound, &res.BackpressureWaits
	}
	if !compare || law.Count == 0 {
		return row, nil
	}
	seq := tr + 1<<20
	runs := uint64(4) // i.i.d. ages, two-choice, tau-delay, b-batch
	if res.Ages != nil {
		runs++ // the replay
	}
	progress := bar.start(runs * spec.Balls)
	defer bar.finish()
	run := func(process string, set map[string]string, opts ...core.SpecOption) (*result.Result, *float64, error) {
		s, err := core.NewSpec(process, set, com, opts...)
		if err != nil {
			return nil, nil, err
		}
		r := engine.RunTrial(s, seq, progress)
		return r, &r.Gap, nil
	}
	var err error
	if res.Ages != nil {
		source := "emulated"
		if res.Traced {
			source = "traced"
		}
		if row.Replay, row.ReplayGap, err = run("tau-delay", map[string]string{"delay": "replay"},
			core.WithReplay(res.Ages, fmt.Sprintf("%s run (%d workers, trial %d)", source, res.Workers, tr))); err != nil {
			return row, err
		}
	}
	if row.Model, row.IIDGap, err = run("tau-delay", map[string]string{"delay": "empirical"},
		core.WithAges(law.Weights(), fmt.Sprintf("measured (%d workers)", res.Workers))); err != nil {
		return row, err
	}
	if row.TwoChoice, row.TwoChoiceGap, err = run("two-choice", nil); err != nil {
		return row, err
	}
	row.Regime = regime(row.Tau, spec.Bins)
	if row.TauDelay, row.TauDelayGap, err = run("tau-delay", map[string]string{"delay": "fixed", "tau": fmt.Sprint(row.Tau)}); err != nil {
		return row, err
	}
	if row.BBatch, row.BBatchGap, err = run("b-batch", map[string]string{"batch": fmt.Sprint(max(row.Tau, 1))}); err != nil {
		return row, err
	}
	return row, nil
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

// saveAges writes a run's age sequence for tau-delay --delay replay --replay
// into its output (checked before the run: files.Output).
func saveAges(out *files.Output, ages []uint32) error {
	if err := out.Write(func(w io.Writer) error { return process.WriteReplay(w, ages) }); err != nil {
		return fmt.Errorf("--save-ages %s: %v", out.Path(), err)
	}
	return nil
}

func printConcurrent(stdout io.Writer, rows []concurrentRow, spec *core.Spec, mode concurrency.Mode, layout concurrency.Layout, measure uint64, emulated, traced, compare bool) {
	what := "workers"
	if emulated {
		what = "emulated workers"
	}
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
	for _, r := range rows {
		cr := r.Concurrent
		run := "concurrent"
		if emulated {
			run = "emulated"
		}
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
	if traced {
		printTraceNote(stdout, rows)
	}
	if !compare {
		return
	}
	fmt.Fprintln(stdout, "\nreplay: tau-delay --delay replay, each ball reading its two bins at its own age, in ball order")
	switch {
	case traced:
		fmt.Fprintln(stdout, "(of the ages and commit order the stamps give: see the note above). i.i.d. ages:")
	default:
		fmt.Fprintln(stdout, "(exact for emulated racy runs; goroutine runs record no per-ball order without --trace-ages, so none). i.i.d. ages:")
	}
	fmt.Fprintln(stdout, "tau-delay --delay empirical with the run's law of ages, a model that drops their joint law.")

	// Means over trials per worker count, and the theory rows.
	fmt.Fprintf(stdout, "\nmeans over trials, ± 1.96 standard errors; τ = p99 of the ages, the sequential runs at that τ\n")
	tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, what+"\ttrials\tgap\treplay gap\ti.i.d.-ages gap\ttwo-choice gap\tτ (p99)\ttau-delay fixed τ gap\tb-batch b = τ gap\tregime (Los and Sauerwald 2022)")
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
			col(func(r concurrentRow) *float64 { return r.IIDGap }), col(func(r concurrentRow) *float64 { return r.TwoChoiceGap }),
			taus, col(func(r concurrentRow) *float64 { return r.TauDelayGap }), col(func(r concurrentRow) *float64 { return r.BBatchGap }),
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

// concurrentProcesses are the processes with a rule for balloc concurrent
// (process.Concurrent), in catalogue order.
func concurrentProcesses() []string {
	var names []string
	for _, e := range process.Entries() {
		if _, ok := e.New().(process.Concurrent); ok {
			names = append(names, e.Name)
		}
	}
	return names
}
