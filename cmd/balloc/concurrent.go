package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/concurrency"
	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/units"
)

// concurrentParams are the process parameters balloc concurrent takes.
var concurrentParams = []string{"d", "beta", "threshold", "g"}

type concurrentFlags struct {
	process, bins, balls, seed, trials string
	workers, scaling, emulate          string
	mode, batch, layout, measureEvery  string
	format                             string
	compare                            bool
	cpuprofile, memprofile, trace      string
	params                             map[string]*string
}

func newConcurrentCommand(stdout io.Writer) *cobra.Command {
	f := &concurrentFlags{params: map[string]*string{}}
	c := &cobra.Command{
		Use:   "concurrent --process NAME --bins N --balls M [--workers W | --scaling 1,2,4 | --emulate W] [flags]",
		Short: "Allocate with goroutines on shared atomic loads; measure staleness; compare with the delay model",
		Long: "Allocate with W goroutines on one shared array of atomic loads, measure the staleness each\n" +
			"sampled ball saw, and set the gap beside the sequential tau-delay model fed the measured ages\n" +
			"and beside plain two-choice (for two-choice). Processes: one-choice, d-choice, two-choice,\n" +
			"one-plus-beta, two-thinning, g-myopic-comp.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runConcurrent(c, f, stdout) },
	}
	fl := c.Flags()
	fl.SortFlags = false
	fl.StringVar(&f.process, "process", "", "process (required)")
	fl.StringVar(&f.bins, "bins", "", "number of bins n (required)")
	fl.StringVar(&f.balls, "balls", "", "number of balls m, below 2^32 (required)")
	for _, d := range core.ParamDefs() {
		for _, name := range concurrentParams {
			if d.Name == name {
				v := new(string)
				f.params[name] = v
				fl.StringVar(v, name, "", d.Usage)
			}
		}
	}
	fl.StringVar(&f.workers, "workers", "0", "goroutines allocating at once (0: one per CPU)")
	fl.StringVar(&f.scaling, "scaling", "", "a comma-separated list of worker counts to run in turn, e.g. 1,2,4")
	fl.StringVar(&f.emulate, "emulate", "", "W virtual workers in one goroutine, randomly interleaved: deterministic for a seed")
	fl.StringVar(&f.mode, "mode", "racy", "racy (read, decide, add), cas (compare-and-swap, retry) or local-batch")
	fl.StringVar(&f.batch, "batch", "", "local-batch: decisions per publish")
	fl.StringVar(&f.layout, "layout", "packed", "packed (4 bytes a bin) or padded (a cache line a bin)")
	fl.StringVar(&f.measureEvery, "measure-every", "256", "measure the staleness of every K-th ball of each worker (0: none)")
	fl.StringVar(&f.seed, "seed", "1", "seed")
	fl.StringVar(&f.trials, "trials", "1", "runs per worker count")
	fl.BoolVar(&f.compare, "compare", true, "also run the tau-delay model with the measured ages and two-choice (two-choice only)")
	fl.StringVar(&f.format, "format", "table", "table or json")
	fl.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile (pprof, labelled per worker) to this file")
	fl.StringVar(&f.memprofile, "memprofile", "", "write a heap profile (pprof) to this file")
	fl.StringVar(&f.trace, "trace", "", "write an execution trace to this file")
	return c
}

type concurrentRow struct {
	Concurrent *concurrency.Result `json:"concurrent"`
	Model      *core.Result        `json:"delay_model,omitempty"`
	TwoChoice  *core.Result        `json:"two_choice,omitempty"`
	Tau        uint64              `json:"tau"`
}

func runConcurrent(c *cobra.Command, f *concurrentFlags, stdout io.Writer) error {
	fl := c.Flags()
	for _, req := range []string{"process", "bins", "balls"} {
		if !fl.Changed(req) {
			return fmt.Errorf("--%s is required (see balloc concurrent --help)", req)
		}
	}
	var com core.Common
	var err error
	if com.Bins, err = parseCountFlag("bins", f.bins); err != nil {
		return err
	}
	if com.Balls, err = parseCountFlag("balls", f.balls); err != nil {
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
	proc, err := core.LookupProcess(f.process)
	if err != nil {
		return err
	}
	// A process concurrent does not run is refused by its name first: NewSpec
	// would ask for parameters concurrent has no flags for (tau-delay needs
	// --tau). With zero parameters and sizes, Check looks at the process only.
	if err := concurrency.Check(&core.Spec{Process: proc}); err != nil {
		return err
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
	switch f.format {
	case "table", "json":
	default:
		return fmt.Errorf("--format %q: want table or json", f.format)
	}
	comparable := spec.Process.Kind == core.KindDChoice && spec.Params.D == 2
	need := units.Mul(spec.Bins, layout.Bytes())
	if avail := core.AvailableMemory(); avail > 0 && need > avail {
		hint := "lower --bins"
		if layout != concurrency.Packed {
			hint += " or use --layout packed (4 bytes a bin)"
		}
		return fmt.Errorf("--bins %s: the shared loads need %s, more than the %s of memory available; %s", core.FormatCount(spec.Bins), core.FormatBytes(float64(need)), core.FormatBytes(float64(avail)), hint)
	}
	prof, err := startProfile(f.cpuprofile, f.memprofile, f.trace)
	if err != nil {
		return err
	}

	var rows []concurrentRow
	for _, w := range counts {
		for tr := range uint64(trials) {
			res, err := concurrency.Run(concurrency.Config{Spec: spec, Trial: tr, Workers: w, Mode: mode, Batch: batch,
				Layout: layout, MeasureEvery: measure, Emulate: emulated})
			if err != nil {
				prof.finish()
				return failure{err}
			}
			row := concurrentRow{Concurrent: res, Tau: res.GlobalStaleness.Max}
			if f.compare && comparable && res.GlobalStaleness.Count > 0 {
				ms, err := core.NewSpec("tau-delay", map[string]string{"delay": "empirical"}, com,
					core.WithAges(res.GlobalStaleness.Weights(), fmt.Sprintf("measured (%d workers)", w)))
				if err != nil {
					prof.finish()
					return failure{err}
				}
				row.Model = core.RunTrial(ms, tr, nil)
				row.TwoChoice = core.RunTrial(spec, tr, nil)
			}
			rows = append(rows, row)
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
	what := "workers"
	if emulated {
		what = "emulated workers"
	}
	fmt.Fprintf(stdout, "%s %s: n = %s bins, m = %s balls, mode %s, layout %s, seed %d, %d CPU(s), staleness of every ball numbered a multiple of %d\n\n",
		spec.Process.Name, spec.ParamsText(), core.FormatCount(spec.Bins), core.FormatCount(spec.Balls), mode, layout, spec.Seed, runtime.NumCPU(), measure)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	head := what + "\ttrial\tballs/s\tbin staleness mean/p50/p99/max\tglobal staleness mean/p50/p99/max\tgap"
	if mode == concurrency.CAS {
		head += "\tCAS retries"
	}
	if comparable && f.compare {
		head += "\tτ-delay model gap\ttwo-choice gap\tτ (max age)"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		cr := r.Concurrent
		line := fmt.Sprintf("%d\t%d\t%.3g\t%s\t%s\t%s", cr.Workers, cr.Trial, cr.BallsPerS, distText(cr.BinStaleness), distText(cr.GlobalStaleness), g(cr.Gap))
		if mode == concurrency.CAS {
			line += fmt.Sprintf("\t%d", cr.Retries)
		}
		if r.Model != nil {
			line += fmt.Sprintf("\t%s\t%s\t%d", g(r.Model.Gap), g(r.TwoChoice.Gap), r.Tau)
		} else if comparable && f.compare {
			line += "\t–\t–\t–"
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	if comparable && f.compare {
		fmt.Fprintln(stdout, "\nτ-delay model: the sequential process reading each ball's two bins as they were a measured age")
		fmt.Fprintln(stdout, "ago (tau-delay --delay empirical); the bounds of Los and Sauerwald (2022) for τ-Delay apply with")
		fmt.Fprintln(stdout, "τ = the largest age measured.")
	}
	return nil
}

func distText(d concurrency.Dist) string {
	if d.Count == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3g/%d/%d/%d", d.Mean, d.P50, d.P99, d.Max)
}
