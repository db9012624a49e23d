package main

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/balloc/balloc/core"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/core/units"
	"github.com/balloc/balloc/output"
)

// writer formats results as they arrive, in trial order, and keeps
// nothing per trial: jsonl, csv and json stream (the output package), the
// table accumulates a summary per spec. Only --plot keeps the trials,
// trimmed to what a plot reads.
type writer struct {
	p        *plan
	w        *bufio.Writer
	stream   *output.Stream          // json, jsonl, csv
	sums     []*summary              // by spec, for the table
	kept     [][]*result.Result      // by spec, for --plot
	profiles []*theory.Profile       // fluid limits, computed on first use
	dyn      [][]*result.Dynamic     // by spec: balls that leave (dynamic.go)
	phaseCk  [][][]result.Checkpoint // by spec, by trial: --phases' checkpoints (dynamic.go)
}

// summary is what the table reports of one spec's trials, accumulated.
type summary struct {
	trials            int
	gap, maxGap, rate stream
	lo, hi            float64 // least and largest final gap
	maxLoad, minLoad  float64
	gaps              map[float64]int     // final gaps (rounded to a tenth for real weights): trials
	levels            map[float64]float64 // --theory: the fraction of bins at each load, summed over trials
	extras            []result.Tally      // the extra blocks' tallies (output.NewTallies)
}

// stream is the tables' mean and 95% interval over trials.
type stream = result.Stream

func newWriter(p *plan, out io.Writer) *writer {
	w := &writer{p: p, w: bufio.NewWriter(out), sums: make([]*summary, len(p.specs)),
		kept: make([][]*result.Result, len(p.specs)), profiles: make([]*theory.Profile, len(p.specs)),
		dyn: make([][]*result.Dynamic, len(p.specs)), phaseCk: make([][][]result.Checkpoint, len(p.specs))}
	if p.format != "table" {
		st, err := output.NewStream(out, p.format, p.specs)
		if err != nil {
			panic(err) // validate accepted only table and output.Formats
		}
		w.stream = st
	}
	return w
}

// profile is the fluid limit of spec, false when it has none (a mixed
// --theory list: validate refused a list where no spec has one).
func (w *writer) profile(spec int) (theory.Profile, bool) {
	if w.p.specs[spec].Dynamic.On() {
		return theory.Profile{}, false // the supermarket's fixed point is dynamic.go's
	}
	if w.profiles[spec] == nil {
		prof, err := core.FluidOf(w.p.specs[spec])
		if err != nil {
			return theory.Profile{}, false
		}
		w.profiles[spec] = &prof
	}
	return *w.profiles[spec], true
}

func (w *writer) add(spec int, r *result.Result) error {
	s := w.p.specs[spec]
	if w.p.theory && w.p.format != "table" && s.Dynamic.Supermarket() {
		r.Dynamic.FixedPoint, _ = core.SupermarketTheory(s)
	}
	if w.p.theory && w.p.format != "table" {
		if prof, ok := w.profile(spec); ok {
			r.Theory = result.CompareTheory(prof, s.Bins, []result.Histogram{r.Histogram})
		}
	}
	if w.p.plot != "" {
		w.kept[spec] = append(w.kept[spec], plotted(r, w.p.plotOpts.Kind))
	}
	if w.stream != nil {
		return w.stream.Write(r)
	}
	w.summarize(spec, r)
	return nil
}

// summarize adds a trial to its spec's summary.
func (w *writer) summarize(spec int, r *result.Result) {
	sm := w.sums[spec]
	if sm == nil {
		sm = &summary{lo: math.Inf(1), hi: math.Inf(-1), maxLoad: math.Inf(-1), minLoad: math.Inf(1), gaps: map[float64]int{}}
		sm.extras = output.NewTallies()
		if w.p.theory {
			sm.levels = map[float64]float64{}
		}
		w.sums[spec] = sm
	}
	sm.trials++
	sm.gap.Add(r.Gap)
	sm.maxGap.Add(r.MaxGap)
	sm.rate.Add(r.BallsPerS)
	sm.lo, sm.hi = min(sm.lo, r.Gap), max(sm.hi, r.Gap)
	sm.maxLoad, sm.minLoad = max(sm.maxLoad, r.MaxLoad), min(sm.minLoad, r.MinLoad)
	sm.gaps[gapKey(r.Gap, w.p.specs[spec].Weights.Unit())]++
	if sm.levels != nil {
		for _, l := range r.Histogram {
			sm.levels[l.Load] += float64(l.Count) / float64(r.Bins)
		}
	}
	for _, t := range sm.extras {
		t.Add(r)
	}
	if r.Dynamic != nil {
		w.dyn[spec] = append(w.dyn[spec], r.Dynamic)
		if r.Dynamic.Model == "phases" {
			w.phaseCk[spec] = append(w.phaseCk[spec], r.Checkpoints)
		}
	}
}

// plotted is what --plot reads of a result: the gaps, the average, the bins,
// and the checkpoints or histogram where the kind draws them.
func plotted(r *result.Result, kind string) *result.Result {
	k := &result.Result{Gap: r.Gap, MaxGap: r.MaxGap, Average: r.Average, Bins: r.Bins}
	switch kind {
	case "gap-vs-balls":
		k.Checkpoints = r.Checkpoints
	case "load-histogram":
		k.Histogram = r.Histogram
	}
	if r.Dynamic != nil { // --y mean-queue reads the model and the queue
		k.Dynamic = &result.Dynamic{Model: r.Dynamic.Model, MeanQueue: r.Dynamic.MeanQueue}
	}
	return k
}

func (w *writer) finish() error {
	if w.stream != nil {
		return w.stream.Finish()
	}
	w.table()
	return w.w.Flush()
}

// csvHeader are the columns every CSV row has (output.CSVHeader).
var csvHeader = output.CSVHeader

// g formats a figure for the table (result.Figure).
func g(x float64) string { return result.Figure(x) }

// autoReasons is the line saying which engine auto chose and why, per
// process (once when all agree); empty when the user named the engine.
func autoReasons(specs []*core.Spec) string {
	var parts []string
	for _, s := range specs {
		if why := s.EngineReason(); why != "" {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", s.Process.Name, s.ResolvedEngine(), why))
		}
	}
	return strings.Join(parts, "; ")
}

func (w *writer) table() {
	s0 := w.p.specs[0]
	engines := string(s0.ResolvedEngine())
	for _, s := range w.p.specs[1:] {
		if s.ResolvedEngine() != s0.ResolvedEngine() {
			var parts []string
			for _, s := range w.p.specs {
				parts = append(parts, s.Process.Name+" "+string(s.ResolvedEngine()))
			}
			engines = strings.Join(parts, ", ")
			break
		}
	}
	if d := s0.Dynamic; d.Supermarket() {
		fmt.Fprintf(w.w, "n = %s bins, supermarket model: %s events %s, %d trial(s) each, seed %d, engine %s, %d worker(s); the gap is max load − balls present/n, balls/s counts events\n\n",
			units.FormatCount(s0.Bins), units.FormatCount(s0.Balls), core.SupermarketStart(s0), s0.Trials, s0.Seed, engines, w.p.workers)
	} else if d.Deletions() {
		fmt.Fprintf(w.w, "n = %s bins, %s steps (insertions and deletions), %d trial(s) each, seed %d, engine %s, %d worker(s); the gap is max load − balls present/n, balls/s counts steps\n\n",
			units.FormatCount(s0.Bins), units.FormatCount(s0.Balls), s0.Trials, s0.Seed, engines, w.p.workers)
	} else {
		fmt.Fprintf(w.w, "n = %s bins, m = %s balls (m/n = %s), %d trial(s) each, seed %d, engine %s, %d worker(s)\n\n",
			units.FormatCount(s0.Bins), units.FormatCount(s0.Balls), g(float64(s0.Balls)/float64(s0.Bins)),
			s0.Trials, s0.Seed, engines, w.p.workers)
	}
	if why := autoReasons(w.p.specs); why != "" {
		fmt.Fprintf(w.w, "auto engine: %s\n\n", why)
	}
	w.structures()
	tw := tabwriter.NewWriter(w.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "process\tparams\tgap (mean ± 95% CI)\tgap min–max\tmax_gap\tmax load\tmin load\tballs/s")
	for i, sm := range w.sums {
		s := w.p.specs[i]
		m, half := sm.gap.CI()
		mg, _ := sm.maxGap.CI()
		rate, _ := sm.rate.CI()
		ci := fmt.Sprintf("%.3g", half)
		if sm.gap.N() < 2 {
			ci = "–" // one trial gives no interval (as summarize writes it)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s ± %s\t%s–%s\t%s\t%s\t%s\t%.3g\n", s.Process.Name, s.ParamsText(),
			g(m), ci, g(sm.lo), g(sm.hi), g(mg), g(sm.maxLoad), g(sm.minLoad), rate)
	}
	tw.Flush()

	w.extraTables()
	w.dynamicTable()

	if s0.Trials > 1 {
		fmt.Fprintf(w.w, "\ngap: %% of trials\n")
		tw = tabwriter.NewWriter(w.w, 0, 0, 2, ' ', 0)
		for i, sm := range w.sums {
			s := w.p.specs[i]
			fmt.Fprintf(tw, "  %s %s\t%s\n", s.Process.Name, s.ParamsText(), gapShares(sm.gaps, sm.trials))
		}
		tw.Flush()
	}

	if w.p.theory {
		for i, sm := range w.sums {
			s := w.p.specs[i]
			if s.Dynamic.Supermarket() {
				continue // dynamicTable showed its fixed point
			}
			prof, ok := w.profile(i)
			if !ok {
				fmt.Fprintf(w.w, "\n%s: fluid limit –\n", strings.TrimSpace(s.Process.Name+" "+s.ParamsText()))
				continue
			}
			// CompareTheory picks the levels from the least and largest
			// load of any trial; the simulated fractions are the sums kept.
			loads := slices.Sorted(maps.Keys(sm.levels))
			var ends result.Histogram
			if len(loads) > 0 {
				ends = result.Histogram{{Load: loads[0], Count: 1}, {Load: loads[len(loads)-1], Count: 1}}
			}
			th := result.CompareTheory(prof, s.Bins, []result.Histogram{ends})
			for k := range th.Levels {
				sim := 0.0
				for _, load := range loads {
					if load >= th.Levels[k].Load {
						sim += sm.levels[load]
					}
				}
				th.Levels[k].Simulated = sim / float64(sm.trials)
			}
			avg := float64(s.Balls) / float64(s.Bins)
			fmt.Fprintf(w.w, "\n%s: fraction of bins with load ≥ i, simulated (mean of %d) vs %s\n",
				strings.TrimSpace(s.Process.Name+" "+s.ParamsText()), sm.trials, th.Model)
			fmt.Fprintf(w.w, "  first-moment estimate: the fluid limit puts n·s_i ≥ 1 up to i = %d (gap %s)\n",
				th.FirstMomentMax, g(float64(th.FirstMomentMax)-avg))
			tw = tabwriter.NewWriter(w.w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "  i\ti − m/n\tsimulated\tfluid\t")
			for _, l := range th.Levels {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t\n", g(l.Load), g(l.Load-avg), fraction(l.Simulated), fraction(l.Fluid))
			}
			tw.Flush()
		}
	}
}

// extraTables prints the table block of each extra kind, with a row per
// spec of the run (a block prints nothing when no spec has its figures).
func (w *writer) extraTables() {
	rows := make([]result.TallyRow, len(w.sums))
	tallies := make([][]result.Tally, len(w.sums))
	for j, sm := range w.sums {
		s := w.p.specs[j]
		rows[j], tallies[j] = result.TallyRow{Process: s.Process.Name, Params: s.ParamsText()}, sm.extras
	}
	output.ExtraTables(w.w, rows, tallies)
}

// fraction writes a fraction of bins for the theory table with at least
// four significant digits: fixed-point down to 10^-3, scientific below (the
// tail levels, 7.300e-05, that fixed-point would print as 0.000073 or 0.000000).
func fraction(x float64) string {
	switch {
	case x == 0:
		return "0"
	case x >= 1e-3:
		return strconv.FormatFloat(x, 'f', 6, 64)
	}
	return strconv.FormatFloat(x, 'e', 3, 64)
}

// gapKey is the value a final gap is tabulated under: itself, or rounded
// to a tenth when real-valued (random weights).
func gapKey(x float64, discrete bool) float64 {
	if !discrete {
		return math.Round(x*10) / 10
	}
	return x
}

// gapShares writes counts of trials by gap as shares of all trials.
func gapShares(count map[float64]int, trials int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(count)) {
		parts = append(parts, fmt.Sprintf("%s: %s%%", g(k), g(100*float64(count[k])/float64(trials))))
	}
	return strings.Join(parts, "  ")
}

// structures describes each graph and hypergraph the run used, once.
func (w *writer) structures() {
	seen := map[any]bool{}
	for _, s := range w.p.specs {
		if g := s.Graph(); g != nil && !seen[g] {
			seen[g] = true
			fmt.Fprintf(w.w, "graph %s: %s", g.Spec, g.Stats())
			if g.Origin != "" {
				fmt.Fprintf(w.w, "; %s", g.Origin)
			}
			fmt.Fprintln(w.w)
		}
		if p := s.Haar(); p != nil && !seen[p] {
			seen[p] = true
			in := p.Info
			h := s.HaarSetting()
			route := h.Route
			if h.Asked == "auto" {
				route = "auto → " + route
			}
			fmt.Fprintf(w.w, "haar plan on %s (--haar-scale %s, --haar-route %s): depth %d, C = %.4g, at most %d nodes per edge law, built in %.3g s (balloc haar-info says more)\n",
				s.Graph().Spec, h.Scale, route, in.Depth, in.C, in.MaxSupport, in.Build.Seconds())
			if note := irregularNote(s.Graph()); note != "" {
				fmt.Fprintf(w.w, "  note: %s\n", note)
			}
			if note := weakDriftNote(s.Graph(), in, h.Asked); note != "" {
				fmt.Fprintf(w.w, "  note: %s\n", note)
			}
		}
		if h := s.Hypergraph(); h != nil && !seen[h] {
			seen[h] = true
			fmt.Fprintf(w.w, "hyperedges %s: %d hyperedges over %d bins", h.Spec, h.S, h.N)
			if h.K > 0 {
				fmt.Fprintf(w.w, ", %d bins each", h.K)
			}
			if h.Origin != "" {
				fmt.Fprintf(w.w, "; %s", h.Origin)
			}
			fmt.Fprintln(w.w)
		}
	}
	if len(seen) > 0 {
		fmt.Fprintln(w.w)
	}
}
