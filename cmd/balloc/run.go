package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/engine"
	"github.com/balloc/balloc/core/process"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/internal/files"
	"github.com/balloc/balloc/internal/progress"
	"github.com/balloc/balloc/output"
	"github.com/balloc/balloc/plot"
)

type runFlags struct {
	process                       string
	bins, balls, trials, seed     string
	ballsPerBin                   string
	checkpoints, workers          string
	engine, format, progress      string
	alpha                         string
	cpuprofile, memprofile, trace string
	theory, loads, force          bool
	plot, plotKind, plotTitle     string
	plotX, plotY                  string
	logX, logY, linearY, bands    bool
	params                        map[string]*string
	dyn                           dynamicFlags
	binList                       []uint64 // --bins, read
}

func newRunCommand(stdout, stderr io.Writer) *cobra.Command {
	f := &runFlags{params: map[string]*string{}}
	var names []string
	for _, p := range process.Entries() {
		names = append(names, fmt.Sprintf("  %-*s %s\n  %-*s %s", process.NameWidth(), p.Name, p.Summary, process.NameWidth(), "", p.Capabilities()))
	}
	c := &cobra.Command{
		Use:   "run --process NAME[,NAME...] --bins N --balls M [flags]",
		Short: "Run trials of one or more processes and report gap, loads and potentials",
		Long: "Run trials of one or more processes and report gap, loads and potentials.\n\n" +
			"Processes (--process, comma-separated to compare; all use the same seed):\n" + strings.Join(names, "\n") +
			"\n\nA list of parameter values (--g 0,1,2,4) runs each listed process once per value, or per\n" +
			"combination for several lists. Counts accept 1000000, 1_000_000, 1e6 and 10^6.",
		Args: standAloneArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runRun(c, f, stdout, stderr)
		},
	}
	fl := c.Flags()
	fl.SortFlags = false
	fl.StringVar(&f.process, "process", "", "process name, or a comma-separated list to compare (required)")
	fl.StringVar(&f.bins, "bins", "", "number of bins n, or a comma-separated list that runs each (required, except where --graph or a --hyperedges file fixes it)")
	fl.StringVar(&f.balls, "balls", "", "number of balls m (required, or --balls-per-bin)")
	fl.StringVar(&f.ballsPerBin, "balls-per-bin", "", "m/n: the balls are this many times the bins (for graphs that fix n)")
	for _, d := range process.Flags() {
		v := new(string)
		f.params[d.Name] = v
		usage := d.Usage
		if d.Default != "" {
			usage += " (default " + d.Default + ")"
		}
		if d.List {
			usage += "; a comma-separated list runs each value"
		}
		fl.StringVar(v, d.Name, "", usage)
		if d.Bool {
			fl.Lookup(d.Name).NoOptDefVal = "true"
		}
	}
	addDynamicFlags(fl, &f.dyn)
	fl.StringVar(&f.trials, "trials", "1", "independent trials per process")
	fl.StringVar(&f.seed, "seed", "1", "seed; trial k of every process uses stream (seed, k)")
	fl.StringVar(&f.engine, "engine", "auto", "auto, direct or histogram")
	fl.StringVar(&f.checkpoints, "checkpoints", "0", "snapshots at K evenly spaced ball counts, or log:K for K from n to m geometrically spaced (each costs O(n))")
	fl.StringVar(&f.alpha, "alpha", "1", "α of the exponential potential Φ_α = Σ exp(α(xᵢ − m/n))")
	fl.BoolVar(&f.theory, "theory", false, "print the fluid-limit prediction beside the simulation")
	fl.StringVar(&f.format, "format", "table", "table, json, jsonl (an object a trial), csv or jsonl-tidy (a row a trial and checkpoint, as csv)")
	fl.BoolVar(&f.loads, "loads", false, "include every bin's final load (json and jsonl only)")
	fl.StringVar(&f.plot, "plot", "", "also draw the results into this .png or .svg file, or .tex (a standalone pgfplots file)")
	fl.StringVar(&f.plotKind, "plot-kind", "gap-vs-balls", "what --plot draws: "+strings.Join(plot.Kinds, ", "))
	fl.StringVar(&f.plotTitle, "title", "", "the title of --plot (default: from the kind)")
	fl.BoolVar(&f.logX, "log-x", false, "--plot: logarithmic x axis (gap-vs-balls, gap-vs-param; gap-vs-bins always is)")
	fl.BoolVar(&f.logY, "log-y", false, "--plot: logarithmic y axis (not for gap-distribution; gap-vs-* take one by themselves when the gaps span a factor of 10 and are positive)")
	fl.BoolVar(&f.linearY, "linear-y", false, "--plot: a linear y axis even where gap-vs-* would take a log one")
	fl.BoolVar(&f.bands, "bands", false, "--plot: shade the 95% confidence interval of the mean around each line")
	fl.StringVar(&f.plotX, "x", "", "--plot-kind gap-vs-param: the parameter on the x axis, or bins or balls (default: the one the run varies)")
	fl.StringVar(&f.plotY, "y", "gap", "--plot-kind gap-vs-param, gap-vs-bins: gap (final), max-gap (largest over the checkpoints) or mean-queue (the supermarket's time-averaged queue length)")
	fl.StringVar(&f.workers, "workers", "0", "trials run in parallel (0: one per CPU); results do not depend on it")
	fl.StringVar(&f.progress, "progress", "auto", "progress on stderr: auto (a bar on a terminal, else a line every 30 s), always (a bar) or never")
	fl.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile (pprof) to this file")
	fl.StringVar(&f.memprofile, "memprofile", "", "write a heap profile (pprof) to this file")
	fl.StringVar(&f.trace, "trace", "", "write an execution trace (go tool trace) to this file")
	fl.BoolVar(&f.force, "force", false, forceHelp)
	groupRunFlags(c)
	return c
}

// plan is a validated run: everything checked, nothing started.
type plan struct {
	plot     string        // draw the results here, as plotOpts say
	plotOut  *files.Output // checked before the work
	plotOpts plot.Options
	notes    []string // said on stderr once every check has passed
	specs    []*core.Spec
	trials   int // per spec
	workers  int
	format   string
	theory   bool
	bar      progress.Form
}

// jobs is the number of trials of the run, spec by spec: job i is trial
// i mod trials of spec i / trials, made when a worker takes it, so that
// --trials 2^31 costs no list.
func (p *plan) jobs() int { return len(p.specs) * p.trials }

func (p *plan) job(i int) (spec int, trial uint64) { return i / p.trials, uint64(i % p.trials) }

func parseCountFlag(name, v string) (uint64, error) {
	x, err := units.ParseCount(v)
	if err != nil {
		return 0, fmt.Errorf("--%s %v", name, err)
	}
	return x, nil
}

// validate turns the flags into a plan, or the first error a user must fix.
func validate(c *cobra.Command, f *runFlags) (*plan, error) {
	fl := c.Flags()
	com, err := runCommon(fl, f)
	if err != nil {
		return nil, err
	}
	workers, err := parseCountFlag("workers", f.workers)
	if err != nil {
		return nil, err
	}
	if workers > 1<<16 {
		return nil, fmt.Errorf("--workers %d: want at most 65536", workers)
	}
	p := &plan{workers: concurrency.Workers(int(workers)), format: f.format, theory: f.theory}
	if err := p.setPlot(fl, f, com); err != nil {
		return nil, err
	}
	if err := checkFormat(f); err != nil {
		return nil, err
	}
	if p.bar, err = progress.Want(f.progress, c.ErrOrStderr()); err != nil {
		return nil, err
	}
	names, err := processNames(f.process)
	if err != nil {
		return nil, err
	}
	set, err := paramLists(fl, f)
	if err != nil {
		return nil, err
	}
	if err := p.expand(names, set, com, f.binList); err != nil {
		return nil, err
	}
	p.trials = com.Trials
	if err := p.checkPlot(); err != nil {
		return nil, err
	}
	if err := checkMemory(p); err != nil {
		return nil, err
	}
	if p.plot != "" {
		if p.plotOut, err = newOutput("--plot", p.plot, f.force); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// runCommon reads the settings every spec of the run shares.
func runCommon(fl *pflag.FlagSet, f *runFlags) (core.Common, error) {
	var com core.Common
	if !fl.Changed("process") {
		return com, fmt.Errorf("--process is required (see balloc run --help)")
	}
	// A graph fixes the bins, and so does a file of hyperedges, of initial
	// loads or of sampling weights.
	fileBins := strings.HasPrefix(*f.params["hyperedges"], "file:") || strings.HasPrefix(*f.params["initial"], "file:") ||
		strings.HasPrefix(*f.params["sampling"], "file:")
	if !fl.Changed("bins") && !fl.Changed("graph") && !fileBins {
		return com, fmt.Errorf("--bins is required (see balloc run --help)")
	}
	if err := parseDynamic(fl, &f.dyn, &com); err != nil {
		return com, err
	}
	if err := runSize(fl, f, &com); err != nil {
		return com, err
	}
	trials, err := parseCountFlag("trials", f.trials)
	if err != nil {
		return com, err
	}
	if why := core.TrialsRule(trials); why != "" {
		return com, fmt.Errorf("--trials %d: %s", trials, why)
	}
	com.Trials = int(trials)
	if com.Seed, err = parseCountFlag("seed", f.seed); err != nil {
		return com, err
	}
	if com.Checkpoints, com.CheckpointsLog, err = core.ParseCheckpoints(f.checkpoints); err != nil {
		return com, fmt.Errorf("--checkpoints %v", err)
	}
	if com.Alpha, err = core.ParseAlpha(f.alpha); err != nil {
		return com, fmt.Errorf("--alpha %q: want a real number", f.alpha)
	}
	if why := core.AlphaRule(com.Alpha); why != "" {
		return com, fmt.Errorf("--alpha %v: %s", com.Alpha, why)
	}
	com.Engine = core.Engine(f.engine)
	com.KeepLoads = f.loads
	return com, nil
}

// runSize reads --bins and --balls or --balls-per-bin: a supermarket run is
// as long as --time or --events, and one in --phases as its phases' steps.
func runSize(fl *pflag.FlagSet, f *runFlags, com *core.Common) error {
	switch {
	case fl.Changed("balls") && fl.Changed("balls-per-bin"):
		return fmt.Errorf("--balls-per-bin: give --balls or --balls-per-bin, not both")
	case com.Dynamic.Supermarket():
		if fl.Changed("balls") || fl.Changed("balls-per-bin") {
			return fmt.Errorf("--balls: a supermarket run (--arrival-rate) is as long as --time T or --events E, not a number of balls")
		}
	case len(com.Dynamic.Phases) > 0 && fl.Changed("balls-per-bin"):
		return fmt.Errorf("--balls-per-bin: with --phases the run is the phases' steps (--balls may give their total)")
	case len(com.Dynamic.Phases) > 0 && !fl.Changed("balls"):
		// the phases' total steps (core.Spec.checkDynamic)
	case !fl.Changed("balls") && !fl.Changed("balls-per-bin"):
		return fmt.Errorf("--balls is required (or --balls-per-bin; see balloc run --help)")
	}
	var err error
	if fl.Changed("bins") {
		if f.binList, err = binsList(f.bins); err != nil {
			return err
		}
		com.Bins = f.binList[0]
	}
	if fl.Changed("balls") {
		com.Balls, err = parseCountFlag("balls", f.balls)
		return err
	}
	if !com.Dynamic.Supermarket() && len(com.Dynamic.Phases) == 0 {
		if com.BallsPerBin, err = parseCountFlag("balls-per-bin", f.ballsPerBin); err != nil {
			return err
		}
		if com.BallsPerBin == 0 {
			return fmt.Errorf("--balls-per-bin 0: want at least 1 (or --balls 0)")
		}
	}
	return nil
}

// binsList reads --bins: a count or a comma-separated list of counts,
// each a point of the run (as a sweep file's bins), none 0 or twice.
func binsList(v string) ([]uint64, error) {
	var out []uint64
	for _, x := range strings.Split(v, ",") {
		if strings.TrimSpace(x) == "" && strings.Contains(v, ",") {
			return nil, fmt.Errorf("--bins %q: empty value in the list", v)
		}
		n, err := parseCountFlag("bins", strings.TrimSpace(x))
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("--bins 0: want at least 1 bin")
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("--bins lists %s twice", units.FormatCount(n))
		}
		out = append(out, n)
	}
	return out, nil
}

// setPlot reads --plot and the flags that shape it, which need --plot.
func (p *plan) setPlot(fl *pflag.FlagSet, f *runFlags, com core.Common) error {
	if !fl.Changed("plot") && !fl.Changed("plot-kind") {
		if fl.Changed("title") {
			return fmt.Errorf("--title %q: it titles --plot; add --plot FILE or leave out --title", f.plotTitle)
		}
		for _, name := range []string{"log-x", "log-y", "linear-y", "bands", "x", "y"} {
			if fl.Changed(name) {
				return fmt.Errorf("--%s: it shapes --plot; add --plot FILE or leave out --%s", name, name)
			}
		}
		return nil
	}
	if err := plot.CheckFile("plot-kind", f.plotKind, "plot", f.plot); err != nil {
		return err
	}
	if f.plotKind == "gap-vs-balls" && com.Checkpoints == 0 {
		return fmt.Errorf("--plot-kind gap-vs-balls needs --checkpoints K")
	}
	p.plot = f.plot
	p.plotOpts = plot.Options{Kind: f.plotKind, Title: f.plotTitle, Theory: f.theory,
		LogX: f.logX, LogY: f.logY, LinearY: f.linearY, Bands: f.bands, X: f.plotX, Y: f.plotY,
		FlagKind: "plot-kind", FlagX: "x", FlagY: "y"}
	return p.plotOpts.Check()
}

// checkFormat refuses a --format the run cannot write, or one that cannot
// hold --loads or --theory.
func checkFormat(f *runFlags) error {
	switch f.format {
	case "table", "json", "jsonl", "csv", "jsonl-tidy":
	default:
		return fmt.Errorf("--format %q: want table, json, jsonl, csv or jsonl-tidy", f.format)
	}
	if f.loads && (f.format == "table" || f.format == "csv" || f.format == "jsonl-tidy") {
		return fmt.Errorf("--loads needs --format json or jsonl (a table or tidy row has no room for n loads)")
	}
	if f.theory && (f.format == "csv" || f.format == "jsonl-tidy") {
		return fmt.Errorf("--theory needs --format table, json or jsonl")
	}
	return nil
}

// processNames splits --process into names, none empty or twice.
func processNames(v string) ([]string, error) {
	names := strings.Split(v, ",")
	for i, name := range names {
		names[i] = strings.TrimSpace(name)
		if names[i] == "" {
			return nil, fmt.Errorf("--process %q: empty name in the list", v)
		}
		if slices.Contains(names[:i], names[i]) {
			return nil, fmt.Errorf("--process lists %s twice", names[i])
		}
	}
	return names, nil
}

// paramLists reads the process parameters given, each a value or, where
// the parameter allows it, a comma-separated list of values, none empty
// or twice.
func paramLists(fl *pflag.FlagSet, f *runFlags) (map[string][]string, error) {
	set := map[string][]string{}
	for _, def := range process.Flags() {
		if !fl.Changed(def.Name) {
			continue
		}
		v := *f.params[def.Name]
		if !def.List {
			set[def.Name] = []string{v}
			continue
		}
		vals := strings.Split(v, ",")
		for i, x := range vals {
			if vals[i] = strings.TrimSpace(x); vals[i] == "" {
				return nil, fmt.Errorf("--%s %q: empty value in the list", def.Name, v)
			}
			if slices.Contains(vals[:i], vals[i]) {
				return nil, fmt.Errorf("--%s lists %s twice", def.Name, vals[i])
			}
		}
		set[def.Name] = vals
	}
	return set, nil
}

// expand makes the run's specs (sweep.Expand, as a sweep file's grid):
// every listed process once per combination of the values of the
// parameters it takes. Two combinations that make one spec are one
// experiment listed twice under two spellings (--beta 0.5,0.50): refused,
// as a sweep file's are.
func (p *plan) expand(names []string, set map[string][]string, com core.Common, bins []uint64) error {
	if len(bins) == 0 {
		bins = []uint64{com.Bins} // 0: a graph or a file fixes them
	}
	a := sweep.Axes{Processes: names, Bins: bins, Balls: []uint64{com.Balls}, Params: set,
		Dynamic: []sweep.DynamicCell{{Settings: com.Dynamic}}, Common: com}
	if com.BallsPerBin != 0 {
		a.PerBin = []uint64{com.BallsPerBin}
	}
	var th output.TheoryCheck
	e, err := sweep.Expand(a, sweep.Expansion{
		Lookup:    func(_ int, err error) error { return err },
		Spec:      func(_ sweep.Origin, err error) error { return err },
		Duplicate: sameSpec,
		Each: func(s *core.Spec) error {
			if !p.theory {
				return nil
			}
			if err := th.Add(s); err != nil {
				return fmt.Errorf("--theory: %v", err)
			}
			return nil
		},
	})
	if err != nil {
		return err
	}
	p.specs = e.Specs
	if p.theory {
		if err := th.Err(); err != nil {
			return fmt.Errorf("--theory: %v", err)
		}
	}
	for _, def := range process.Flags() {
		if _, ok := set[def.Name]; ok && !e.Used[def.Name] {
			return fmt.Errorf("%s", process.UnusedParamError(def.Name, names))
		}
	}
	return nil
}

// sameSpec refuses a spec made twice by two values of one parameter list;
// one made by two processes (an alias and its process) runs twice.
func sameSpec(prev, here sweep.Origin) error {
	for _, k := range slices.Sorted(maps.Keys(here.Combo)) {
		if prev.Combo[k] != here.Combo[k] {
			return fmt.Errorf("--%s lists %s twice (%q and %q are one value)", k, here.Combo[k], prev.Combo[k], here.Combo[k])
		}
	}
	return nil
}

// checkPlot checks what --plot needs of the specs: gap-vs-param's x, and
// load histograms for load-histogram.
func (p *plan) checkPlot() error {
	if p.plot == "" {
		return nil
	}
	if err := p.plotOpts.CheckGrid(p.gridPoints(), &p.notes); err != nil {
		return err
	}
	if p.plotOpts.Kind == "load-histogram" {
		for _, s := range p.specs {
			if !s.HasHistogram() {
				return fmt.Errorf("--plot-kind load-histogram needs load histograms; %s %s has none (random weights or --dims)", s.Process.Name, s.ParamsText())
			}
		}
	}
	return nil
}

// checkMemory refuses a run whose memory would not fit (engine.CheckRun).
func checkMemory(p *plan) error {
	return engine.CheckRun(p.specs, engine.RunUse{Workers: p.workers, Jobs: p.jobs(),
		Format: p.format, Plot: p.plot, PlotKind: p.plotOpts.Kind})
}

func runRun(c *cobra.Command, f *runFlags, stdout, stderr io.Writer) error {
	p, err := validate(c, f)
	if err != nil {
		return err
	}
	prof, err := startProfile(f.cpuprofile, f.memprofile, f.trace, f.force)
	if err != nil {
		return err
	}
	printNotes(stderr, p.notes)

	report := func(uint64) {}
	var bar *progress.Meter
	if p.bar != progress.None {
		total := uint64(0)
		for _, s := range p.specs {
			total = units.Add(total, units.Mul(s.Balls, uint64(p.trials)))
		}
		bar = progress.Balls(p.bar, stderr, total, fmt.Sprintf("%d trials", p.jobs()))
		report = func(n uint64) { _ = bar.Add64(int64(n)) }
	}

	out := newWriter(p, stdout)
	// After the first failed write (a full disk, a closed pipe) no more
	// trials start: their results could not be written either.
	var writeErr error
	done := 0
	intr := onInterrupt(stderr, func() string {
		if bar != nil {
			_ = bar.Clear()
		}
		return interruptedRun(p, done)
	})
	concurrency.Ordered(p.jobs(), p.workers, func(i int) *result.Result {
		spec, trial := p.job(i)
		return engine.RunTrial(p.specs[spec], trial, report)
	}, func(i int, r *result.Result) bool {
		intr.mu.Lock()
		defer intr.mu.Unlock()
		spec, _ := p.job(i)
		writeErr = out.add(spec, r)
		done++
		return writeErr == nil
	})
	intr.stop()
	if bar != nil {
		_ = bar.Finish()
	}
	if err := prof.finish(); err != nil {
		return err
	}
	if writeErr != nil {
		return failure{writeErr}
	}
	if err := out.finish(); err != nil {
		return failure{err}
	}
	if p.plot != "" {
		var series []plot.Series
		points := p.gridPoints()
		for i, rs := range out.kept {
			gp := points[i]
			series = append(series, plot.Series{Label: plot.SeriesLabel(gp), Results: rs, Point: gp})
		}
		// The table is out: a log axis the results cannot take is drawn
		// linear, said beside the file's name, rather than refused now.
		note, err := drawPlot(p.plotOpts, series, p.plotOut, true)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nplot: %s%s\n", p.plot, note)
	}
	return nil
}

// interruptedRun is the line Ctrl-C leaves: what of a run was lost. The
// streaming formats wrote each trial whole as it ended; the table (and
// --plot, --theory) come only at the end. A run is a function of its seed,
// so the same command gives the lost trials' numbers exactly.
func interruptedRun(p *plan, done int) string {
	lost := "nothing was printed: the table comes at the end"
	switch p.format {
	case "jsonl", "csv", "jsonl-tidy":
		lost = fmt.Sprintf("the %d above are whole, the rest are lost", done)
	case "json":
		lost = fmt.Sprintf("the JSON array above holds the %d, unclosed; the rest are lost", done)
	}
	if p.plot != "" {
		lost += ", and no plot was drawn"
	}
	return fmt.Sprintf("balloc run: interrupted after %d of %d trials: %s; the same command reruns them with the same numbers", done, p.jobs(), lost)
}

// gridPoints are the specs as a sweep's grid points, for the plot.
func (p *plan) gridPoints() []sweep.Point {
	var out []sweep.Point
	for _, s := range p.specs {
		out = append(out, sweep.Point{Process: s.Process.Name, Params: s.ParamsMap(), Bins: s.Bins, Balls: s.Balls, Trials: s.Trials})
	}
	return out
}

// standAloneArgs refuses positional arguments. The likeliest one is the value
// of a flag that may stand alone (--probe-all means --probe-all=true), written
// after a space: then say how to write it.
func standAloneArgs(_ *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	for _, v := range strings.Split(args[0], ",") {
		if _, err := strconv.ParseBool(v); err != nil {
			return fmt.Errorf("unexpected argument %q: balloc run takes flags only", args[0])
		}
	}
	var bools []string
	for _, d := range process.Flags() {
		if d.Bool {
			bools = append(bools, "--"+d.Name)
		}
	}
	return fmt.Errorf("unexpected argument %q: %s may stand alone, so a value for them follows \"=\", as in %s=%s",
		args[0], strings.Join(bools, " and "), bools[0], args[0])
}
