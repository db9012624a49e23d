package report

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/core/units"
)

// WindowGap is a trial's gap and max_gap over t ≥ from·m (summarize
// --gap-from): the mean of its checkpoints' gaps there, and their largest,
// a stationary level where the final state alone is one correlated draw.
// ok is false when no checkpoint lies in that window.
func WindowGap(r *result.Result, from float64, balls uint64) (gap, maxGap float64, ok bool) {
	sum, k, top := 0.0, 0, math.Inf(-1)
	for _, c := range r.Checkpoints {
		if float64(c.Balls) >= from*float64(balls) {
			sum, k, top = sum+c.Gap, k+1, max(top, c.Gap)
		}
	}
	return sum / float64(k), top, k > 0
}

// Summary is one grid point's figures as numbers. The spread and the
// interval are NaN below two trials; every figure is NaN without trials.
type Summary struct {
	Index          int         // the point's place in the manifest's grid
	Point          sweep.Point // the grid point as the manifest records it
	Trials         int         // trials found (Point.Trials were planned)
	Gaps           []float64   // each trial's gap, by trial
	Mean, SD       float64     // the gaps' mean and sample standard deviation
	CILow, CIHigh  float64     // the mean's 95% interval (Student t)
	MaxGapMean     float64     // the mean of the trials' max_gap
	MaxGapSD       float64     // their sample standard deviation
	Rate           float64     // the mean of the trials' balls/s
	Discrete       bool        // the gaps lie on one lattice of step 1: exact cells
	Cells          []Cell      // the gap distribution
	GapFrom        float64     // Read's from (NaN without it): each gap is then the mean of its checkpoints' gaps at t ≥ from·m
	Queue, QueueSE float64     // the supermarket model's time-averaged queue length, mean over trials, and its standard error √(Σ se_t²)/k from the trials' batch-means errors (NaN where no trial has one)
}

// Cell is one cell of a gap distribution: Count trials whose gap is Low
// (an exact cell, Low == High) or lies in [Low, High) (a bin of real gaps).
type Cell struct {
	Low, High float64
	Count     int
}

// trialFigures are what summarize keeps of a trial, whatever its line
// holds: its index, gap, max_gap and balls/s, and a supermarket run's mean
// queue length with its standard error.
type trialFigures struct {
	trial              uint64
	gap, maxGap, rate  float64
	supermarket        bool
	meanQueue, meanQSE float64
}

// Read reads a sweep folder's results one line at a time and
// summarizes each grid point. It keeps each trial's figures (trialFigures,
// 56 bytes) and its entry in the trial index (about 100 bytes), so its
// memory grows with the trials of the grid, not with the size of the file
// or of a line (checkpoints, histograms). With from (not NaN) each trial's
// gap is the mean of its checkpoints' gaps at t ≥ from·m (WindowGap); a
// point without a checkpoint there is an error naming it, the first such
// point in the manifest's order. Lines that are not trials of the grid are
// left out with a warning added to notes (nil: none kept).
func Read(dir string, from float64, notes *[]string) ([]Summary, error) {
	man, err := sweep.FolderManifest(dir)
	if err != nil {
		return nil, err
	}
	figs := make([][]trialFigures, len(man.Grid))
	noWindow := -1
	path := filepath.Join(dir, "results.jsonl")
	_, foreign, _, _, err := sweep.NewTrialIndex(man.Grid).Scan(path, func(p int, r *result.Result) error {
		f := trialFigures{trial: r.Trial, gap: r.Gap, maxGap: r.MaxGap, rate: r.BallsPerS}
		if r.Dynamic != nil && r.Dynamic.Model == "supermarket" {
			f.supermarket, f.meanQueue, f.meanQSE = true, r.Dynamic.MeanQueue, r.Dynamic.MeanQueueSE
		}
		if !math.IsNaN(from) {
			var ok bool
			if f.gap, f.maxGap, ok = WindowGap(r, from, man.Grid[p].Balls); !ok && (noWindow < 0 || p < noWindow) {
				noWindow = p
			}
		}
		figs[p] = append(figs[p], f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sweep.AddNote(notes, sweep.ForeignNote("summarize", path, foreign))
	if noWindow >= 0 {
		gp := man.Grid[noWindow]
		return nil, argError("gap-from", Number(from), "%s %s has no checkpoint at t ≥ %s·m (give the sweep checkpoints = K or \"log:K\")",
			gp.Process, sweep.ParamsText(gp.Params), Number(from))
	}
	for _, fs := range figs {
		slices.SortFunc(fs, func(a, b trialFigures) int { return cmp.Compare(a.trial, b.trial) })
	}
	return summaries(man, figs, from), nil
}

// summaries computes every grid point's figures, in the manifest's order,
// from its trials' figures sorted by trial (sums are taken in that order).
func summaries(man *sweep.Manifest, figs [][]trialFigures, from float64) []Summary {
	var out []Summary
	for i, rs := range figs {
		s := Summary{Index: i, Point: man.Grid[i], Trials: len(rs), Mean: math.NaN(), SD: math.NaN(),
			CILow: math.NaN(), CIHigh: math.NaN(), MaxGapMean: math.NaN(), MaxGapSD: math.NaN(), Rate: math.NaN(), GapFrom: from}
		s.Queue, s.QueueSE = meanQueue(rs)
		if len(rs) > 0 {
			var maxGaps, rates []float64
			for _, r := range rs {
				s.Gaps, maxGaps, rates = append(s.Gaps, r.gap), append(maxGaps, r.maxGap), append(rates, r.rate)
			}
			m, half := MeanCI(s.Gaps)
			s.Mean = m
			s.MaxGapMean, _ = MeanCI(maxGaps)
			s.Rate, _ = MeanCI(rates)
			if len(rs) > 1 {
				s.SD = stdDev(s.Gaps, m)
				s.MaxGapSD = stdDev(maxGaps, s.MaxGapMean)
				s.CILow, s.CIHigh = m-half, m+half
			}
			s.Discrete = onLattice(s.Gaps)
			s.Cells = gapCells(s.Gaps, s.Discrete)
		}
		out = append(out, s)
	}
	return out
}

// meanQueue is the supermarket trials' mean queue length, averaged over
// trials, with its standard error √(Σ se_t²)/k (independent trials, each
// with its batch-means error); NaN, NaN unless every trial is a
// supermarket run.
func meanQueue(rs []trialFigures) (mean, se float64) {
	if len(rs) == 0 {
		return math.NaN(), math.NaN()
	}
	ss := 0.0
	for _, r := range rs {
		if !r.supermarket {
			return math.NaN(), math.NaN()
		}
		mean += r.meanQueue
		ss += r.meanQSE * r.meanQSE
	}
	k := float64(len(rs))
	return mean / k, math.Sqrt(ss) / k
}

// hasQueue reports whether some point has a mean queue length: then the
// summaries carry it as a column.
func hasQueue(sums []Summary) bool {
	return slices.ContainsFunc(sums, func(s Summary) bool { return !math.IsNaN(s.Queue) })
}

// stdDev is the sample standard deviation of xs about their mean m.
func stdDev(xs []float64, m float64) float64 {
	ss := 0.0
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

// onLattice reports whether the gaps differ from each other by integers only
// (unit balls, whatever m/n is): then each gap value is a cell of its own.
func onLattice(gaps []float64) bool {
	for _, x := range gaps {
		if d := x - gaps[0]; math.Abs(d-math.Round(d)) > 1e-9 {
			return false
		}
	}
	return true
}

// gapCells is the distribution of the gaps: a cell per value on a lattice,
// else at most 10 bins [low, low+w) of a round width w (1, 2 or 5 × 10^k)
// starting at a multiple of w.
func gapCells(gaps []float64, discrete bool) []Cell {
	sorted := slices.Sorted(slices.Values(gaps))
	var cells []Cell
	if discrete {
		for _, x := range sorted {
			if n := len(cells); n > 0 && cells[n-1].Low == x {
				cells[n-1].Count++
				continue
			}
			cells = append(cells, Cell{Low: x, High: x, Count: 1})
		}
		return cells
	}
	lo, hi := sorted[0], sorted[len(sorted)-1]
	w := roundWidth((hi - lo) / 10)
	start := math.Floor(lo/w) * w
	for _, x := range sorted {
		k := math.Floor((x - start) / w)
		low := start + k*w
		if n := len(cells); n > 0 && cells[n-1].Low == low {
			cells[n-1].Count++
			continue
		}
		cells = append(cells, Cell{Low: low, High: low + w, Count: 1})
	}
	return cells
}

// roundWidth is the least of 1, 2, 5 × 10^k at or above x (1 for x = 0: an
// exact cell is then a bin of width 1 around a single real value).
func roundWidth(x float64) float64 {
	if !(x > 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, f := range []float64{1, 2, 5, 10} {
		if f*p >= x*(1-1e-12) {
			return f * p
		}
	}
	return 10 * p
}

// cellsText writes a distribution as shares of all trials: "2: 95%  3: 5%",
// bins as "[2.5, 3): 20%".
func cellsText(cells []Cell, trials int) string {
	var parts []string
	for _, c := range cells {
		at := Number(c.Low)
		if c.High != c.Low {
			at = "[" + Number(c.Low) + ", " + Number(c.High) + ")"
		}
		parts = append(parts, fmt.Sprintf("%s: %s%%", at, Number(100*float64(c.Count)/float64(trials))))
	}
	return strings.Join(parts, "  ")
}

// Write writes the summaries in format: a display table (table, markdown,
// latex) or numbers (csv, jsonl; NaN is an empty cell or null).
func Write(sums []Summary, format string, w io.Writer) error {
	switch format {
	case "csv":
		return summaryCSV(sums, w)
	case "jsonl":
		return summaryJSONL(sums, w)
	}
	gapHead := "gap (mean ± 95% CI)"
	if len(sums) > 0 && !math.IsNaN(sums[0].GapFrom) {
		gapHead = fmt.Sprintf("gap over t ≥ %s·m (mean ± 95%% CI)", Number(sums[0].GapFrom))
	}
	head := []string{"process", "params", "bins", "balls", "trials", gapHead, "gap: % of trials", "max_gap (mean)", "balls/s"}
	align := "llrrrlllr"
	queue := hasQueue(sums)
	if queue { // the supermarket's figure, before balls/s
		head = slices.Insert(head, len(head)-1, "mean queue ± 95% CI")
		align = "llrrrllllr"
	}
	var rows [][]string
	for _, s := range sums {
		row := []string{s.Point.Process, sweep.ParamsText(s.Point.Params), units.FormatCount(s.Point.Bins), units.FormatCount(s.Point.Balls),
			fmt.Sprintf("%d/%d", s.Trials, s.Point.Trials)}
		if s.Trials == 0 {
			rows = append(rows, append(row, slices.Repeat([]string{"–"}, len(head)-len(row))...))
			continue
		}
		interval := "–"
		if s.Trials > 1 {
			interval = fmt.Sprintf("%.3g", (s.CIHigh-s.CILow)/2)
		}
		row = append(row, Number(s.Mean)+" ± "+interval, cellsText(s.Cells, s.Trials), Number(s.MaxGapMean))
		if queue {
			q := "–"
			if !math.IsNaN(s.Queue) {
				q = Number(s.Queue) + " ± " + fmt.Sprintf("%.2g", 1.96*s.QueueSE) // batch means: a normal 95% interval
			}
			row = append(row, q)
		}
		rows = append(rows, append(row, fmt.Sprintf("%.3g", s.Rate)))
	}
	writeDisplay(head, rows, format, align, w)
	return nil
}

// writeDisplay writes a display table as an aligned table, markdown or LaTeX.
func writeDisplay(head []string, rows [][]string, format, align string, w io.Writer) {
	switch format {
	case "markdown":
		fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
		fmt.Fprintln(w, "|"+strings.Repeat("---|", len(head)))
		for _, r := range rows {
			fmt.Fprintln(w, "| "+strings.Join(r, " | ")+" |")
		}
	case "latex":
		fmt.Fprintln(w, "\\begin{tabular}{"+align+"}")
		fmt.Fprintln(w, "\\hline")
		fmt.Fprintln(w, latexRow(head))
		fmt.Fprintln(w, "\\hline")
		for _, r := range rows {
			fmt.Fprintln(w, latexRow(r))
		}
		fmt.Fprintln(w, "\\hline")
		fmt.Fprintln(w, "\\end{tabular}")
	default:
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, r := range rows {
			fmt.Fprintln(tw, strings.Join(r, "\t"))
		}
		tw.Flush()
	}
}

// paramNames is every parameter name of the grid, sorted: one column each.
func paramNames(sums []Summary) []string {
	seen := map[string]bool{}
	for _, s := range sums {
		for k := range s.Point.Params {
			seen[k] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// num writes a number for csv: in full, empty for NaN (no value).
func num(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// jnum is a number for JSON: null for NaN.
func jnum(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

// summaryCSV writes one row per grid point and cell of its gap distribution
// (tidy: the point's figures repeat on each of its rows; a point without
// trials has one row), every figure a plain number.
func summaryCSV(sums []Summary, w io.Writer) error {
	names := paramNames(sums)
	cw := csv.NewWriter(w)
	head := append(append([]string{"point", "process"}, names...), "bins", "balls", "trials", "trials_planned",
		"mean", "sd", "ci_low", "ci_high", "max_gap_mean", "balls_per_s", "gap_low", "gap_high", "count", "pct")
	from := len(sums) > 0 && !math.IsNaN(sums[0].GapFrom)
	if from {
		head = slices.Insert(head, len(head)-10, "gap_from")
	}
	queue := hasQueue(sums)
	if queue {
		head = slices.Insert(head, len(head)-4, "mean_queue", "mean_queue_se")
	}
	cw.Write(head)
	for _, s := range sums {
		row := []string{strconv.Itoa(s.Index), s.Point.Process}
		for _, k := range names {
			v, ok := s.Point.Params[k]
			row = append(row, "")
			if ok {
				row[len(row)-1] = fmt.Sprint(v)
			}
		}
		row = append(row, strconv.FormatUint(s.Point.Bins, 10), strconv.FormatUint(s.Point.Balls, 10), strconv.Itoa(s.Trials), strconv.Itoa(s.Point.Trials))
		if from {
			row = append(row, num(s.GapFrom))
		}
		row = append(row, num(s.Mean), num(s.SD), num(s.CILow), num(s.CIHigh), num(s.MaxGapMean), num(s.Rate))
		if queue {
			row = append(row, num(s.Queue), num(s.QueueSE))
		}
		if len(s.Cells) == 0 {
			cw.Write(append(row, "", "", "", ""))
		}
		for _, c := range s.Cells {
			cw.Write(append(slices.Clone(row), num(c.Low), num(c.High), strconv.Itoa(c.Count), num(100*float64(c.Count)/float64(s.Trials))))
		}
	}
	cw.Flush()
	return cw.Error()
}

// summaryJSONL writes one JSON object per grid point, its parameters as
// fields of their own and its gap distribution as an array of cells.
func summaryJSONL(sums []Summary, w io.Writer) error {
	for _, s := range sums {
		var b strings.Builder
		field := func(k string, v any) {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			vb, _ := json.Marshal(v)
			b.Write(kb)
			b.WriteByte(':')
			b.Write(vb)
		}
		field("point", s.Index)
		field("process", s.Point.Process)
		for _, k := range slices.Sorted(maps.Keys(s.Point.Params)) {
			field(k, s.Point.Params[k])
		}
		field("bins", s.Point.Bins)
		field("balls", s.Point.Balls)
		field("trials", s.Trials)
		field("trials_planned", s.Point.Trials)
		if !math.IsNaN(s.GapFrom) {
			field("gap_from", s.GapFrom)
		}
		for _, f := range []struct {
			k string
			v float64
		}{{"mean", s.Mean}, {"sd", s.SD}, {"ci_low", s.CILow}, {"ci_high", s.CIHigh}, {"max_gap_mean", s.MaxGapMean}, {"balls_per_s", s.Rate}} {
			field(f.k, jnum(f.v))
		}
		if !math.IsNaN(s.Queue) {
			field("mean_queue", s.Queue)
			field("mean_queue_se", jnum(s.QueueSE))
		}
		type cell struct {
			Low   float64 `json:"gap_low"`
			High  float64 `json:"gap_high"`
			Count int     `json:"count"`
			Pct   float64 `json:"pct"`
		}
		cells := []cell{}
		for _, c := range s.Cells {
			cells = append(cells, cell{c.Low, c.High, c.Count, 100 * float64(c.Count) / float64(s.Trials)})
		}
		field("gap_distribution", cells)
		if _, err := fmt.Fprintf(w, "{%s}\n", b.String()); err != nil {
			return err
		}
	}
	return nil
}

var latexEscaper = strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`,
	"{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`, "±", `$\pm$`, "–", "--")

func latexRow(cells []string) string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = latexEscaper.Replace(c)
	}
	return strings.Join(out, " & ") + ` \\`
}
