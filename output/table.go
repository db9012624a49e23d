package output

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
	"github.com/balloc/balloc/core/haar"
	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/theory"
	"github.com/balloc/balloc/core/units"
)

// Table is balloc run's table format: per spec a row of the gap (mean with
// its 95% interval, least and largest), max_gap, loads and balls/s; the
// blocks of the extras some processes report; the tables of balls that
// leave (the supermarket model's occupancy, --phases' states); the
// distribution of the gap; and with theory the fluid limit beside the
// simulated occupancy. It keeps per spec a summary of the trials, never
// the trials.
type Table struct {
	specs   []*core.Spec
	workers int  // said in the header: trials run in parallel
	theory  bool // the fluid limits (or the supermarket's fixed point) beside the simulation
	fluids  *Fluids
	w       *bufio.Writer
	sums    []*summary              // by spec
	dyn     [][]*result.Dynamic     // by spec: balls that leave
	phaseCk [][][]result.Checkpoint // by spec, by trial: --phases' checkpoints
}

// NewTable makes the table of specs' trials, run by workers at once, with
// the fluid limits beside them if theory.
func NewTable(specs []*core.Spec, workers int, theory bool) *Table {
	return &Table{specs: specs, workers: workers, theory: theory, fluids: NewFluids(specs),
		sums: make([]*summary, len(specs)), dyn: make([][]*result.Dynamic, len(specs)),
		phaseCk: make([][][]result.Checkpoint, len(specs))}
}

// Write writes the table of the trials added, every spec having at least
// one.
func (t *Table) Write(w io.Writer) error {
	t.w = bufio.NewWriter(w)
	t.table()
	return t.w.Flush()
}

// z975 turns a standard error of batch means (many, close to normal) into
// the half-width of a 95% interval: every ± in balloc's tables is one.
const z975 = 1.959963984540054

// g formats a figure for the table (result.Figure).
func g(x float64) string { return result.Figure(x) }

// summary is what the table reports of one spec's trials, accumulated.
type summary struct {
	trials            int
	gap, maxGap, rate result.Stream
	lo, hi            float64 // least and largest final gap
	maxLoad, minLoad  float64
	gaps              map[float64]int     // final gaps (rounded to a tenth for real weights): trials
	levels            map[float64]float64 // --theory: the fraction of bins at each load, summed over trials
	extras            []result.Tally      // the extra blocks' tallies (NewTallies)
}

// Add adds a trial of spec (an index into the Table's specs) to its
// summary; the trials of a spec may come in any order.
func (t *Table) Add(spec int, r *result.Result) {
	sm := t.sums[spec]
	if sm == nil {
		sm = &summary{lo: math.Inf(1), hi: math.Inf(-1), maxLoad: math.Inf(-1), minLoad: math.Inf(1), gaps: map[float64]int{}}
		sm.extras = NewTallies()
		if t.theory {
			sm.levels = map[float64]float64{}
		}
		t.sums[spec] = sm
	}
	sm.trials++
	sm.gap.Add(r.Gap)
	sm.maxGap.Add(r.MaxGap)
	sm.rate.Add(r.BallsPerS)
	sm.lo, sm.hi = min(sm.lo, r.Gap), max(sm.hi, r.Gap)
	sm.maxLoad, sm.minLoad = max(sm.maxLoad, r.MaxLoad), min(sm.minLoad, r.MinLoad)
	sm.gaps[gapKey(r.Gap, t.specs[spec].Weights.Unit())]++
	if sm.levels != nil {
		for _, l := range r.Histogram {
			sm.levels[l.Load] += float64(l.Count) / float64(r.Bins)
		}
	}
	for _, ta := range sm.extras {
		ta.Add(r)
	}
	if r.Dynamic != nil {
		t.dyn[spec] = append(t.dyn[spec], r.Dynamic)
		if r.Dynamic.Model == "phases" {
			t.phaseCk[spec] = append(t.phaseCk[spec], r.Checkpoints)
		}
	}
}

func (t *Table) table() {
	t.header()
	t.structures()
	tw := tabwriter.NewWriter(t.w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "process\tparams\tgap (mean ± 95% CI)\tgap min–max\tmax_gap\tmax load\tmin load\tballs/s")
	for i, sm := range t.sums {
		s := t.specs[i]
		m, half := sm.gap.CI()
		mg, _ := sm.maxGap.CI()
		rate, _ := sm.rate.CI()
		ci := fmt.Sprintf("%.3g", half)
		if sm.gap.N() < 2 {
			ci = "–" // one trial gives no interval (as summarize writes it)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s ± %s\t%s–%s\t%s\t%s\t%s\t%.3g\n", s.Process.Name, t.params(s),
			g(m), ci, g(sm.lo), g(sm.hi), g(mg), g(sm.maxLoad), g(sm.minLoad), rate)
	}
	tw.Flush()

	t.extraTables()
	t.dynamicTable()

	if t.specs[0].Trials > 1 {
		t.gapShares()
	}
	if t.theory {
		t.theoryTables()
	}
}

// header writes the run's sizes, seed, engines and workers, and why auto
// chose each engine.
func (t *Table) header() {
	s0 := t.specs[0]
	engines := string(s0.ResolvedEngine())
	for _, s := range t.specs[1:] {
		if s.ResolvedEngine() != s0.ResolvedEngine() {
			var parts []string
			for _, s := range t.specs {
				parts = appendNew(parts, s.Process.Name+" "+string(s.ResolvedEngine()))
			}
			engines = strings.Join(parts, ", ")
			break
		}
	}
	if d := s0.Dynamic; d.Supermarket() {
		fmt.Fprintf(t.w, "n = %s bins, supermarket model: %s events %s, %d trial(s) each, seed %d, engine %s, %d worker(s); the gap is max load − balls present/n, balls/s counts events\n\n",
			t.sizes(func(s *core.Spec) uint64 { return s.Bins }), t.sizes(func(s *core.Spec) uint64 { return s.Balls }), core.SupermarketStart(s0), s0.Trials, s0.Seed, engines, t.workers)
	} else if d.Deletions() {
		fmt.Fprintf(t.w, "n = %s bins, %s steps (insertions and deletions), %d trial(s) each, seed %d, engine %s, %d worker(s); the gap is max load − balls present/n, balls/s counts steps\n\n",
			t.sizes(func(s *core.Spec) uint64 { return s.Bins }), t.sizes(func(s *core.Spec) uint64 { return s.Balls }), s0.Trials, s0.Seed, engines, t.workers)
	} else {
		fmt.Fprintf(t.w, "n = %s bins, m = %s balls (m/n = %s), %d trial(s) each, seed %d, engine %s, %d worker(s)\n\n",
			t.sizes(func(s *core.Spec) uint64 { return s.Bins }), t.sizes(func(s *core.Spec) uint64 { return s.Balls }), t.perBin(),
			s0.Trials, s0.Seed, engines, t.workers)
	}
	if why := autoReasons(t.specs); why != "" {
		fmt.Fprintf(t.w, "auto engine: %s\n\n", why)
	}
}

// gapShares writes the distribution of the final gap, as shares of trials.
func (t *Table) gapShares() {
	fmt.Fprintf(t.w, "\ngap: %% of trials\n")
	tw := tabwriter.NewWriter(t.w, 0, 0, 2, ' ', 0)
	for i, sm := range t.sums {
		s := t.specs[i]
		fmt.Fprintf(tw, "  %s %s\t%s\n", s.Process.Name, t.params(s), sharesText(sm.gaps, sm.trials))
	}
	tw.Flush()
}

// theoryTables writes, per spec, the simulated fraction of bins at each
// load level beside the fluid limit's.
func (t *Table) theoryTables() {
	for i, sm := range t.sums {
		s := t.specs[i]
		if s.Dynamic.Supermarket() {
			continue // dynamicTable showed its fixed point
		}
		prof, ok := t.fluids.Of(i)
		if !ok {
			fmt.Fprintf(t.w, "\n%s: fluid limit –\n", strings.TrimSpace(s.Process.Name+" "+t.params(s)))
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
		fmt.Fprintf(t.w, "\n%s: fraction of bins with load ≥ i, simulated (mean of %d) vs %s\n",
			strings.TrimSpace(s.Process.Name+" "+t.params(s)), sm.trials, th.Model)
		fmt.Fprintf(t.w, "  first-moment estimate: the fluid limit puts n·s_i ≥ 1 up to i = %d (gap %s)\n",
			th.FirstMomentMax, g(float64(th.FirstMomentMax)-avg))
		tw := tabwriter.NewWriter(t.w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  i\ti − m/n\tsimulated\tfluid\t")
		for _, l := range th.Levels {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t\n", g(l.Load), g(l.Load-avg), Fraction(l.Simulated), Fraction(l.Fluid))
		}
		tw.Flush()
	}
}

// extraTables prints the table block of each extra kind, with a row per
// spec of the run (a block prints nothing when no spec has its figures).
func (t *Table) extraTables() {
	rows := make([]result.TallyRow, len(t.sums))
	tallies := make([][]result.Tally, len(t.sums))
	for j, sm := range t.sums {
		s := t.specs[j]
		rows[j], tallies[j] = result.TallyRow{Process: s.Process.Name, Params: t.params(s)}, sm.extras
	}
	ExtraTables(t.w, rows, tallies)
}

// Fraction writes a fraction of bins for the theory table with at least
// four significant digits: fixed-point down to 10^-3, scientific below (the
// tail levels, 7.300e-05, that fixed-point would print as 0.000073 or 0.000000).
func Fraction(x float64) string {
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

// sharesText writes counts of trials by gap as shares of all trials.
func sharesText(count map[float64]int, trials int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(count)) {
		parts = append(parts, fmt.Sprintf("%s: %s%%", g(k), g(100*float64(count[k])/float64(trials))))
	}
	return strings.Join(parts, "  ")
}

// structures describes each graph and hypergraph the run used, once.
func (t *Table) structures() {
	seen := map[any]bool{}
	for _, s := range t.specs {
		if g := s.Graph(); g != nil && !seen[g] {
			seen[g] = true
			fmt.Fprintf(t.w, "graph %s: %s", g.Spec, g.Stats())
			if g.Origin != "" {
				fmt.Fprintf(t.w, "; %s", g.Origin)
			}
			fmt.Fprintln(t.w)
		}
		if p := s.Haar(); p != nil && !seen[p] {
			seen[p] = true
			in := p.Info
			h := s.HaarSetting()
			route := h.Route
			if h.Asked == "auto" {
				route = "auto → " + route
			}
			fmt.Fprintf(t.w, "haar plan on %s (--haar-scale %s, --haar-route %s): depth %d, C = %.4g, at most %d nodes per edge law, built in %.3g s (balloc haar-info says more)\n",
				s.Graph().Spec, h.Scale, route, in.Depth, in.C, in.MaxSupport, in.Build.Seconds())
			if note := haar.IrregularNote(s.Graph()); note != "" {
				fmt.Fprintf(t.w, "  note: %s\n", note)
			}
			if note := haar.WeakDriftNote(s.Graph(), in, h.Asked); note != "" {
				fmt.Fprintf(t.w, "  note: %s\n", note)
			}
		}
		if h := s.Hypergraph(); h != nil && !seen[h] {
			seen[h] = true
			fmt.Fprintf(t.w, "hyperedges %s: %d hyperedges over %d bins", h.Spec, h.S, h.N)
			if h.K > 0 {
				fmt.Fprintf(t.w, ", %d bins each", h.K)
			}
			if h.Origin != "" {
				fmt.Fprintf(t.w, "; %s", h.Origin)
			}
			fmt.Fprintln(t.w)
		}
	}
	if len(seen) > 0 {
		fmt.Fprintln(t.w)
	}
}

// autoReasons is the line saying which engine auto chose and why, per
// process (once when all agree); empty when the user named the engine.
func autoReasons(specs []*core.Spec) string {
	var parts []string
	for _, s := range specs {
		if why := s.EngineReason(); why != "" {
			parts = appendNew(parts, fmt.Sprintf("%s %s (%s)", s.Process.Name, s.ResolvedEngine(), why))
		}
	}
	return strings.Join(parts, "; ")
}

// appendNew appends x to xs unless xs holds it already: a run of one
// process at several parameters names its engine, and why, once.
func appendNew(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// Fluids are the fluid limits of a run's specs, each computed when first
// asked for (core.FluidOf solves an ODE system).
type Fluids struct {
	specs    []*core.Spec
	profiles []*theory.Profile
}

// NewFluids returns the (not yet computed) fluid limits of specs.
func NewFluids(specs []*core.Spec) *Fluids {
	return &Fluids{specs: specs, profiles: make([]*theory.Profile, len(specs))}
}

// Of is the fluid limit of spec, false when it has none (in a mixed list
// for theory, a spec without one prints "–"); a run with balls that leave
// has none here (the supermarket's fixed point is core.SupermarketTheory).
func (f *Fluids) Of(spec int) (theory.Profile, bool) {
	if f.specs[spec].Dynamic.On() {
		return theory.Profile{}, false
	}
	if f.profiles[spec] == nil {
		prof, err := core.FluidOf(f.specs[spec])
		if err != nil {
			return theory.Profile{}, false
		}
		f.profiles[spec] = &prof
	}
	return *f.profiles[spec], true
}

// params is a spec's parameters as the rows name it, with its n when the
// run's specs differ in n (a list of bins).
func (t *Table) params(s *core.Spec) string {
	if !t.binsVary() {
		return s.ParamsText()
	}
	return strings.TrimSpace("n=" + units.FormatCount(s.Bins) + " " + s.ParamsText())
}

func (t *Table) binsVary() bool {
	return slices.ContainsFunc(t.specs, func(s *core.Spec) bool { return s.Bins != t.specs[0].Bins })
}

// sizes is the header's n or m: the value every spec shares, or the
// values of a list of bins, in the order given ("1e3, 1e4").
func (t *Table) sizes(of func(*core.Spec) uint64) string {
	var vals []string
	for _, s := range t.specs {
		if v := units.FormatCount(of(s)); !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	return strings.Join(vals, ", ")
}

// perBin is the header's m/n, that of every spec ("–" where it differs).
func (t *Table) perBin() string {
	s0 := t.specs[0]
	r := float64(s0.Balls) / float64(s0.Bins)
	for _, s := range t.specs {
		if float64(s.Balls)/float64(s.Bins) != r {
			return "–"
		}
	}
	return g(r)
}
