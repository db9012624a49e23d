package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/concurrency/compare"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/internal/files"
	"github.com/balloc/balloc/internal/progress"
)

// balloc concurrent: the command, its flags and their checks, and the loop
// over worker counts and trials. The processes and their parameters come
// from the catalogue (process.Rule: the parameters a rule reads and the
// sequential models it is compared with), so no process is named here;
// concurrency/compare sets the sequential runs beside each run and prints
// them.

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

// andText is "a, b and c".
func andText(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// concurrentLong is the command's help, its lists of processes read from
// the catalogue.
func concurrentLong() string {
	var names []string
	for _, e := range process.ConcurrentProcesses() {
		names = append(names, e.Name)
	}
	return "Allocate with W goroutines on one shared array of atomic loads (or, --mode sharded, each\n" +
		"writing its own shard), measure the age of the information each ball decided on, and, for a\n" +
		"rule with sequential models, set the gap beside the replay of an emulated run's exact age\n" +
		"sequence (the delayed model's --delay replay), the i.i.d.-ages model, the rule on fresh loads,\n" +
		"and the delayed and batched models at the ages' p99. Rules with models at their defaults:\n" +
		compare.ModelsText() + ".\n" +
		"With --arrival-rate λ the balls also leave (the supermarket model, as balloc run's: each worker\n" +
		"draws its own uniformized events; a departure takes a ball from a uniform bin by compare-and-swap\n" +
		"only if it is non-empty; racy and cas modes; " + andText(concurrency.DepartureProcesses()) + ",\n" +
		"a thinning rule reading the balls present from the workers' striped counts),\n" +
		"set beside the sequential supermarket run at the same λ and the mean field's fixed point.\n" +
		"Processes: " + strings.Join(names, ", ") + "."
}

func newConcurrentCommand(stdout io.Writer) *cobra.Command {
	f := &concurrentFlags{params: map[string]*string{}}
	c := &cobra.Command{
		Use:   "concurrent --process NAME --bins N (--balls M | --arrival-rate λ (--time T | --events E)) [--workers W | --scaling 1,2,4 | --emulate W] [flags]",
		Short: "Allocate with goroutines on shared atomic loads; measure staleness; compare with the delay model",
		Long:  concurrentLong(),
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runConcurrent(c, f, stdout) },
	}
	fl := c.Flags()
	fl.SortFlags = false
	fl.StringVar(&f.process, "process", "", "process (required)")
	fl.StringVar(&f.bins, "bins", "", "number of bins n (required)")
	fl.StringVar(&f.balls, "balls", "", "number of balls m, below 2^32 (required, unless --arrival-rate)")
	addConcurrentDynamicFlags(fl, &f.dyn)
	for _, p := range concurrency.RuleParams() {
		v := new(string)
		f.params[p.Name] = v
		fl.StringVar(v, p.Name, "", p.Usage)
	}
	addConcurrentRunFlags(fl, f)
	return c
}

// addConcurrentRunFlags adds the flags of how a run goes and what it
// writes.
func addConcurrentRunFlags(fl *pflag.FlagSet, f *concurrentFlags) {
	fl.StringVar(&f.workers, "workers", "0", "goroutines allocating at once (0: one per CPU)")
	fl.StringVar(&f.scaling, "scaling", "", "a comma-separated list of worker counts to run in turn, e.g. 1,2,4")
	fl.StringVar(&f.emulate, "emulate", "", "W virtual workers in one goroutine, randomly interleaved: deterministic for a seed")
	fl.StringVar(&f.mode, "mode", "racy", "racy (read, decide, add), cas (compare-and-swap, retry), local-batch, or sharded (each worker writes its own bins; others' balls reach it in batches)")
	fl.StringVar(&f.batch, "batch", "", "local-batch: decisions per publish")
	fl.StringVar(&f.layout, "layout", "packed", "packed (4 bytes a bin) or padded (a cache line a bin)")
	fl.StringVar(&f.measureEvery, "measure-every", "256", "measure the staleness of every K-th ball of each worker (0: none)")
	fl.StringVar(&f.seed, "seed", "1", "seed")
	fl.StringVar(&f.trials, "trials", "1", "runs per worker count")
	fl.BoolVar(&f.compare, "compare", true, "a rule with sequential models (see above): set beside each run the sequential replay of its ages (emulated and --trace-ages runs), the i.i.d.-ages model, the rule on fresh loads, and the delayed and batched models at the ages' p99, each m balls; on unless --compare=false")
	// The usage says how to turn it off; pflag would add "(default true)".
	fl.Lookup("compare").DefValue = ""
	fl.StringVar(&f.progress, "progress", "auto", "progress of the comparisons on stderr: auto (a bar on a terminal, else a line every 30 s), always (a bar) or never")
	fl.BoolVar(&f.traceAges, "trace-ages", false, "racy and cas goroutine runs: stamp every ball's reads and commit with the CPU's time-stamp counter, take every ball's age from the merged commit order, and replay it (20 bytes a ball; x86-64 with an invariant TSC; each traced run follows an untraced one of the same trial, for the cost)")
	fl.StringVar(&f.saveAges, "save-ages", "", "emulated or --trace-ages, one run: write every ball's age, in ball order, to this new file (for --delay replay --replay)")
	fl.StringVar(&f.format, "format", "table", "table or json")
	fl.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile (pprof, labelled per worker) to this file")
	fl.StringVar(&f.memprofile, "memprofile", "", "write a heap profile (pprof) to this file")
	fl.StringVar(&f.trace, "trace", "", "write an execution trace to this file")
	fl.BoolVar(&f.force, "force", false, forceHelp)
}

// concurrentPlan is a checked balloc concurrent command: the spec and
// everything about how its runs go, read from the flags before any work.
type concurrentPlan struct {
	spec                 *core.Spec
	com                  core.Common
	trials               uint64
	mode                 concurrency.Mode
	layout               concurrency.Layout
	batch, measure       uint64
	counts               []int // worker counts, in turn
	emulated, traced     bool
	departures, record   bool
	compare              bool            // --compare
	models               *process.Models // the rule's sequential models; nil: none
	bar                  progress.Form
	saveAges             string
	agesOut              *files.Output
	format               string
	progressTo, stdout   io.Writer
	cpu, heap, execTrace string
	force                bool
}

func runConcurrent(c *cobra.Command, f *concurrentFlags, stdout io.Writer) error {
	p, err := planConcurrent(c.Flags(), f)
	if err != nil {
		return err
	}
	p.stdout, p.progressTo = stdout, c.ErrOrStderr()
	if p.bar, err = progress.Want(f.progress, p.progressTo); err != nil {
		return err
	}
	if err := p.checkMemory(); err != nil {
		return err
	}
	if err := p.openAges(); err != nil {
		return err
	}
	prof, err := startProfile(p.cpu, p.heap, p.execTrace, p.force)
	if err != nil {
		return err
	}
	rows, err := p.runAll()
	if err != nil {
		prof.finish()
		return failure{err}
	}
	if err := prof.finish(); err != nil {
		return err
	}
	return p.write(rows)
}

// planConcurrent reads and checks every flag but --progress, in the order
// the errors have always come in.
func planConcurrent(fl *pflag.FlagSet, f *concurrentFlags) (*concurrentPlan, error) {
	p := &concurrentPlan{compare: f.compare, saveAges: f.saveAges, format: f.format,
		cpu: f.cpuprofile, heap: f.memprofile, execTrace: f.trace, force: f.force}
	var err error
	if p.com, p.trials, err = parseConcurrentCommon(fl, f); err != nil {
		return nil, err
	}
	if p.spec, err = concurrentSpec(fl, f, p.com); err != nil {
		return nil, err
	}
	if err := p.parseMode(fl, f); err != nil {
		return nil, err
	}
	if p.counts, p.emulated, err = parseWorkerCounts(fl, f); err != nil {
		return nil, err
	}
	if p.mode == concurrency.Sharded {
		for _, w := range p.counts {
			if err := concurrency.CheckSharded(p.spec, w, p.emulated); err != nil {
				return nil, err
			}
		}
	}
	if p.traced = f.traceAges; p.traced {
		if err := concurrency.CheckTrace(p.mode, p.emulated, p.departures); err != nil {
			return nil, err
		}
	}
	switch f.format {
	case "table", "json":
	default:
		return nil, fmt.Errorf("--format %q: want table or json", f.format)
	}
	p.models = p.spec.Proc.(process.Concurrent).Concurrent().Models // concurrency.Check: it is one
	p.record = p.emulated && (p.compare || p.saveAges != "") && !p.departures
	return p, nil
}

// parseConcurrentCommon reads the required flags and the common settings:
// bins, balls or the supermarket's length, seed and trials.
func parseConcurrentCommon(fl *pflag.FlagSet, f *concurrentFlags) (core.Common, uint64, error) {
	var com core.Common
	for _, req := range []string{"process", "bins", "balls"} {
		if !fl.Changed(req) && (req != "balls" || !fl.Changed("arrival-rate")) {
			return com, 0, fmt.Errorf("--%s is required (see balloc concurrent --help)", req)
		}
	}
	var err error
	if com.Bins, err = parseCountFlag("bins", f.bins); err != nil {
		return com, 0, err
	}
	if fl.Changed("balls") {
		if com.Balls, err = parseCountFlag("balls", f.balls); err != nil {
			return com, 0, err
		}
		if fl.Changed("arrival-rate") {
			return com, 0, fmt.Errorf("--balls: a supermarket run (--arrival-rate) is as long as --time T or --events E, not a number of balls")
		}
	}
	if err := parseDynamic(fl, &f.dyn, &com); err != nil {
		return com, 0, err
	}
	if com.Seed, err = parseCountFlag("seed", f.seed); err != nil {
		return com, 0, err
	}
	trials, err := parseCountFlag("trials", f.trials)
	if err != nil {
		return com, 0, err
	}
	if trials < 1 || trials > 1<<20 {
		return com, 0, fmt.Errorf("--trials %d: want 1 to 2^20", trials)
	}
	com.Trials, com.Alpha, com.Engine = int(trials), 1, core.EngineDirect
	return com, trials, nil
}

// concurrentSpec looks the process up, refuses one concurrent does not
// run, and builds the spec from the rule's parameters given.
func concurrentSpec(fl *pflag.FlagSet, f *concurrentFlags, com core.Common) (*core.Spec, error) {
	proc, err := process.Lookup(f.process)
	if err != nil {
		return nil, err
	}
	// A process concurrent does not run is refused by its name first: NewSpec
	// would ask for parameters concurrent has no flags for (tau-delay needs
	// --tau). With zero parameters and sizes, Check looks at the process only.
	bare := &core.Spec{Process: proc, Proc: proc.New()}
	if err := concurrency.Check(bare); err != nil {
		return nil, err
	}
	if fl.Changed("arrival-rate") {
		if err := concurrency.CheckDepartures(bare); err != nil {
			return nil, err
		}
	}
	set := map[string]string{}
	for name, v := range f.params {
		if fl.Changed(name) {
			if !concurrency.RuleReads(proc, name) {
				return nil, fmt.Errorf("--%s does not apply to %s", name, proc.Name)
			}
			set[name] = *v
		}
	}
	spec, err := core.NewSpec(f.process, set, com)
	if err != nil {
		return nil, err
	}
	return spec, concurrency.Check(spec)
}

// parseMode reads --mode, --layout, --batch and --measure-every.
func (p *concurrentPlan) parseMode(fl *pflag.FlagSet, f *concurrentFlags) error {
	var err error
	if p.mode, err = concurrency.ParseMode(f.mode); err != nil {
		return err
	}
	if p.departures = p.spec.Dynamic.Supermarket(); p.departures {
		if err := concurrency.CheckDeparturesMode(p.mode); err != nil {
			return err
		}
		if f.saveAges != "" {
			return fmt.Errorf("--save-ages: the ages of a run with departures are not a --delay replay; leave out --save-ages or --arrival-rate")
		}
	}
	if p.layout, err = concurrency.ParseLayout(f.layout); err != nil {
		return err
	}
	if fl.Changed("batch") {
		if p.mode != concurrency.LocalBatch {
			return fmt.Errorf("--batch applies to --mode local-batch only")
		}
		if p.batch, err = parseCountFlag("batch", f.batch); err != nil {
			return err
		}
		if p.batch < 1 {
			return fmt.Errorf("--batch 0: want at least 1 decision per publish")
		}
	} else if p.mode == concurrency.LocalBatch {
		return fmt.Errorf("--mode local-batch needs --batch B")
	}
	p.measure, err = parseCountFlag("measure-every", f.measureEvery)
	return err
}

// parseWorkerCounts reads --emulate, --scaling or --workers: the worker
// counts to run in turn, and whether they are emulated.
func parseWorkerCounts(fl *pflag.FlagSet, f *concurrentFlags) ([]int, bool, error) {
	emulated := fl.Changed("emulate")
	switch {
	case emulated && (fl.Changed("workers") || fl.Changed("scaling")):
		return nil, true, fmt.Errorf("--emulate runs its own virtual workers: leave out --workers and --scaling")
	case fl.Changed("workers") && fl.Changed("scaling"):
		return nil, false, fmt.Errorf("--workers and --scaling both set: give one")
	case emulated:
		w, err := parseCountFlag("emulate", f.emulate)
		if err != nil {
			return nil, true, err
		}
		if w < 1 || w > 1<<20 {
			return nil, true, fmt.Errorf("--emulate %d: want 1 to 2^20 virtual workers", w)
		}
		return []int{int(w)}, true, nil
	case fl.Changed("scaling"):
		var counts []int
		for _, part := range strings.Split(f.scaling, ",") {
			w, err := parseCountFlag("scaling", strings.TrimSpace(part))
			if err != nil {
				return nil, false, err
			}
			if w < 1 || w > 1<<16 {
				return nil, false, fmt.Errorf("--scaling %s: want worker counts from 1 to 65536", part)
			}
			counts = append(counts, int(w))
		}
		return counts, false, nil
	}
	w, err := parseCountFlag("workers", f.workers)
	if err != nil {
		return nil, false, err
	}
	if w > 1<<16 {
		return nil, false, fmt.Errorf("--workers %d: want at most 65536", w)
	}
	return []int{concurrency.Workers(int(w))}, false, nil
}

// checkMemory refuses a run that would not fit (concurrency.CheckMemory).
func (p *concurrentPlan) checkMemory() error {
	return concurrency.CheckMemory(p.spec, p.mode, p.layout, slices.Max(p.counts), p.traced, p.record)
}

// openAges checks --save-ages and opens its output (written after the
// run).
func (p *concurrentPlan) openAges() error {
	if p.saveAges == "" {
		return nil
	}
	switch {
	case !p.emulated && !p.traced:
		return fmt.Errorf("--save-ages: only emulated and traced runs record every ball's age; add --emulate W or --trace-ages")
	case p.trials != 1:
		return fmt.Errorf("--save-ages writes one run's ages: set --trials 1")
	}
	var err error
	p.agesOut, err = newOutput("--save-ages", p.saveAges, p.force)
	return err
}

// runAll runs every trial of every worker count, in turn, each with the
// sequential runs set beside it.
func (p *concurrentPlan) runAll() ([]compare.Row, error) {
	var rows []compare.Row
	for _, w := range p.counts {
		for tr := range p.trials {
			row, err := p.runOne(w, tr)
			if err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// runOne is one trial of W workers: the run (after the same trial
// untraced, with --trace-ages), its ages saved, and its comparisons.
func (p *concurrentPlan) runOne(w int, tr uint64) (compare.Row, error) {
	cfg := concurrency.Config{Spec: p.spec, Trial: tr, Workers: w, Mode: p.mode, Batch: p.batch,
		Layout: p.layout, MeasureEvery: p.measure, Emulate: p.emulated, RecordAges: p.record}
	var twin *concurrency.Result
	var err error
	if p.traced {
		// The same trial untraced, just before: what tracing costs.
		if twin, err = concurrency.Run(cfg); err != nil {
			return compare.Row{}, err
		}
		cfg.TraceAges = true
	}
	res, err := concurrency.Run(cfg)
	if err != nil {
		return compare.Row{}, err
	}
	if p.saveAges != "" {
		if err := saveAges(p.agesOut, res.Ages); err != nil {
			return compare.Row{}, err
		}
	}
	var shown compare.Progress
	if p.bar != progress.None {
		// The sequential runs' balls on stderr, as balloc run shows its
		// trials': a bar on a terminal, else a line every 30 s.
		shown = func(total uint64) (func(uint64), func()) {
			m := progress.Balls(p.bar, p.progressTo, total, fmt.Sprintf("comparisons, %d workers, trial %d", w, tr))
			return func(n uint64) { _ = m.Add64(int64(n)) }, func() { _ = m.Finish(); _ = m.Clear() }
		}
	}
	var models *process.Models
	if p.compare && !p.departures {
		models = p.models
	}
	row, err := compare.Run(res, p.spec, p.com, tr, models, shown)
	if twin != nil {
		row.UntracedBallsPerS, row.UntracedGap, row.TracedPreempted = &twin.BallsPerS, &twin.Gap, &res.TracedPreempted
	}
	if p.departures {
		compare.Departures(&row, res, p.spec, tr, p.compare)
	}
	res.Ages = nil // replayed and saved: free it before the next run
	return row, err
}

// write prints the rows as JSON or as tables.
func (p *concurrentPlan) write(rows []compare.Row) error {
	if p.format == "json" {
		b, err := json.MarshalIndent(rows, "", " ")
		if err != nil {
			return failure{err}
		}
		fmt.Fprintf(p.stdout, "%s\n", b)
		return nil
	}
	if p.departures {
		compare.PrintDepartures(p.stdout, rows, p.setting(), p.compare)
		return nil
	}
	var models *process.Models
	if p.compare {
		models = p.models
	}
	compare.Print(p.stdout, rows, p.setting(), models)
	return nil
}

// setting is how the runs were made, for the tables' header.
func (p *concurrentPlan) setting() compare.Setting {
	return compare.Setting{Spec: p.spec, Mode: p.mode, Layout: p.layout, Measure: p.measure, Emulated: p.emulated, Traced: p.traced}
}
