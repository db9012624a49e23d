package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/core/result"
	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/core/units"
)

// sweepData is a sweep folder read back: its manifest and results, each
// (grid point, trial) once.
type sweepData struct {
	dir     string
	man     *manifest
	results []*result.Result
	torn    bool
	dups    int // identical copies of a line, dropped
	// gapFrom is set by averageGaps (summarize --gap-from): the results'
	// gaps are then window means.
	gapFrom    float64
	gapFromSet bool
}

// averageGaps makes each trial's gap the mean of its checkpoints' gaps at
// t ≥ from·m, and its max_gap their largest: a stationary level, where the
// final state alone is one correlated draw. A point without a checkpoint in
// that window is an error naming it.
func (sd *sweepData) averageGaps(from float64) error {
	for i, rs := range sd.byPoint() {
		gp := sd.man.Grid[i]
		for _, r := range rs {
			sum, k, top := 0.0, 0, math.Inf(-1)
			for _, c := range r.Checkpoints {
				if float64(c.Balls) >= from*float64(gp.Balls) {
					sum, k, top = sum+c.Gap, k+1, max(top, c.Gap)
				}
			}
			if k == 0 {
				return fmt.Errorf("--gap-from %s: %s %s has no checkpoint at t ≥ %s·m (give the sweep checkpoints = K or \"log:K\")",
					g(from), gp.Process, paramsText(gp.Params), g(from))
			}
			r.Gap, r.MaxGap = sum/float64(k), top
		}
	}
	sd.gapFrom, sd.gapFromSet = from, true
	return nil
}

// readSweep reads a sweep folder. Lines outside the manifest's grid are
// left out with one warning added to notes (named for cmd; the caller
// prints them once nothing more can fail, so a refusal stays one line);
// identical copies of a line count once; two different results for one
// trial are an error.
func readSweep(dir, cmd string, notes *[]string) (*sweepData, error) {
	man, err := readManifest(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: no manifest.json: not a folder balloc sweep wrote", dir)
		}
		return nil, err
	}
	path := filepath.Join(dir, "results.jsonl")
	recs, _, torn, err := sweep.ReadResults(path)
	if err != nil {
		return nil, err
	}
	kept, dups, foreign, err := gridResults(path, recs, man.Grid)
	if err != nil {
		return nil, err
	}
	if n := foreignNote(cmd, path, foreign); n != "" && notes != nil {
		*notes = append(*notes, n)
	}
	return &sweepData{dir: dir, man: man, results: kept, torn: torn, dups: dups}, nil
}

// gridResults keeps the results of recs (read from path, line i+1 being
// recs[i]) that belong to the grid, each (spec hash, trial) once. An
// identical copy of a line (timings aside) is counted in dups and dropped; a
// different result for the same trial is an error naming both lines; a line
// whose hash is not a grid point, or whose trial is beyond the point's
// trials, is counted in foreign and left out.
func gridResults(path string, recs []*result.Result, grid []gridPoint) (kept []*result.Result, dups, foreign int, err error) {
	points := map[string]gridPoint{}
	for _, gp := range grid {
		points[gp.SpecHash] = gp
	}
	type first struct {
		line int
		sum  [32]byte
	}
	seen := map[string]first{}
	for i, r := range recs {
		gp, ok := points[r.SpecHash]
		if !ok || r.Trial >= uint64(gp.Trials) {
			foreign++
			continue
		}
		key := fmt.Sprintf("%s/%d", r.SpecHash, r.Trial)
		sum := sha256.Sum256([]byte(withoutTiming(r)))
		if prev, ok := seen[key]; ok {
			if prev.sum != sum {
				return nil, 0, 0, fmt.Errorf("%s: lines %d and %d hold different results for trial %d of %s (%s); remove the wrong one",
					path, prev.line, i+1, r.Trial, gp.describe(), r.SpecHash)
			}
			dups++
			continue
		}
		seen[key] = first{i + 1, sum}
		kept = append(kept, r)
	}
	return kept, dups, foreign, nil
}

// foreignNote says, in one line, that lines outside the grid were ignored,
// or is "" when none were.
func foreignNote(cmd, path string, foreign int) string {
	if foreign == 0 {
		return ""
	}
	return fmt.Sprintf("balloc %s: %s: %d lines are not trials of this sweep's grid (another sweep's, or beyond its trials); they are ignored", cmd, path, foreign)
}

// byPoint groups results by grid point, in the manifest's order, each
// sorted by trial.
func (sd *sweepData) byPoint() [][]*result.Result {
	out := make([][]*result.Result, len(sd.man.Grid))
	at := map[string]int{}
	for i, g := range sd.man.Grid {
		at[g.SpecHash] = i
	}
	for _, r := range sd.results {
		if i, ok := at[r.SpecHash]; ok {
			out[i] = append(out[i], r)
		}
	}
	for _, rs := range out {
		slices.SortFunc(rs, func(a, b *result.Result) int { return cmp.Compare(a.Trial, b.Trial) })
	}
	return out
}

// withoutTiming is a result's JSON with the timing fields zeroed: what two
// runs of the same trial must agree on.
func withoutTiming(r *result.Result) string {
	c := *r
	c.ElapsedS, c.BallsPerS = 0, 0
	b, _ := json.Marshal(&c)
	return string(b)
}

func newMergeCommand(stdout, stderr io.Writer) *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "merge DIR... --out DIR",
		Short: "Combine the folders of a sharded sweep; report missing and duplicated trials",
		Long: "Combine the folders of a sharded sweep; report missing and duplicated trials. A DIR that\n" +
			"is no path but holds *, ? or [ is a pattern balloc expands itself ('out/shard-*'), so\n" +
			"that any number of shards fits on one command line.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, dirs []string) error {
			if out == "" {
				return fmt.Errorf("--out is required")
			}
			return runMerge(dirs, out, stdout, stderr)
		},
	}
	c.Flags().StringVar(&out, "out", "", "the merged folder (required)")
	return c
}

func runMerge(args []string, out string, stdout, stderr io.Writer) error {
	dirs, err := expandFolders(args)
	if err != nil {
		return err
	}
	outInfo, outErr := os.Stat(out)
	var all []*sweepData
	var notes []string
	for _, d := range dirs {
		if filepath.Clean(d) == filepath.Clean(out) {
			return fmt.Errorf("--out %s is also an input", out)
		}
		if fi, err := os.Stat(d); err == nil && outErr == nil && os.SameFile(fi, outInfo) {
			return fmt.Errorf("--out %s is also an input (as %s)", out, d)
		}
		sd, err := readSweep(d, "merge", &notes)
		if err != nil {
			return err
		}
		if len(all) > 0 && !sameGrid(all[0].man, sd.man) {
			return fmt.Errorf("%s holds another sweep than %s (another grid or number of trials)", d, all[0].dir)
		}
		all = append(all, sd)
	}
	first := all[0].man
	// The merged folder: new, empty, or holding this sweep already (an
	// earlier merge), whose results then join the merge, so nothing there
	// is lost.
	if err := checkMergeOut(out, first); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	lock, err := lockFolder(out, "merge")
	if err != nil {
		return err
	}
	defer lock.release()
	if err := checkMergeOut(out, first); err != nil { // as it is now that it is ours
		return err
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err == nil {
		sd, err := readSweep(out, "merge", &notes)
		if err != nil {
			return err
		}
		all = append(all, sd)
	}
	seen := map[string][32]byte{} // (hash/trial) → digest of the JSON without timing
	from := map[string]string{}
	var merged []*result.Result
	dups := 0
	for _, sd := range all {
		if sd.torn {
			notes = append(notes, fmt.Sprintf("balloc merge: %s ends in a torn line; it is ignored", filepath.Join(sd.dir, "results.jsonl")))
		}
		dups += sd.dups
		for _, r := range sd.results {
			key := fmt.Sprintf("%s/%d", r.SpecHash, r.Trial)
			body := sha256.Sum256([]byte(withoutTiming(r)))
			if prev, ok := seen[key]; ok {
				if prev != body {
					return fmt.Errorf("trial %d of grid point %s differs between %s and %s; remove the wrong one",
						r.Trial, r.SpecHash, filepath.Join(from[key], "results.jsonl"), filepath.Join(sd.dir, "results.jsonl"))
				}
				dups++
				continue
			}
			seen[key], from[key] = body, sd.dir
			merged = append(merged, r)
		}
	}
	order := map[string]int{}
	for i, gp := range first.Grid {
		order[gp.SpecHash] = i
	}
	slices.SortFunc(merged, func(a, b *result.Result) int {
		if d := order[a.SpecHash] - order[b.SpecHash]; d != 0 {
			return d
		}
		return cmp.Compare(a.Trial, b.Trial)
	})
	var missing []string
	total := 0
	for _, gp := range first.Grid {
		var lost []string
		for t := range gp.Trials {
			total++
			if _, ok := seen[fmt.Sprintf("%s/%d", gp.SpecHash, t)]; !ok {
				lost = append(lost, fmt.Sprint(t))
			}
		}
		if len(lost) > 0 {
			missing = append(missing, fmt.Sprintf("%s (spec %s): trials %s", gp.describe(), gp.SpecHash, strings.Join(lost, ",")))
		}
	}
	printNotes(stderr, notes)
	man := *first
	man.Shard = ""
	if err := man.write(out); err != nil {
		return failure{err}
	}
	var b strings.Builder
	for _, r := range merged {
		line, _ := json.Marshal(r)
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := writeFileSynced(filepath.Join(out, "results.jsonl"), []byte(b.String())); err != nil {
		return failure{err}
	}
	fmt.Fprintf(stdout, "%s: %d of %d trials from %d folders; %d duplicated (identical, kept once); %d grid points with missing trials\n",
		out, len(merged), total, len(dirs), dups, len(missing))
	for _, m := range missing {
		fmt.Fprintf(stdout, "  missing: %s\n", m)
	}
	if len(missing) > 0 {
		return failure{fmt.Errorf("%d trials missing from the merge", total-len(merged))}
	}
	return nil
}

// checkMergeOut refuses a merge's --out folder unless it does not exist, is
// empty (but for its lock file) or holds the sweep man describes.
func checkMergeOut(out string, man *manifest) error {
	old, err := checkSweepFolder("--out", out)
	if err == nil && old != nil && !sameGrid(old, man) {
		return fmt.Errorf("--out %s holds another sweep (another grid or number of trials) than the folders merged; use a new or empty folder", out)
	}
	return err
}

// expandFolders is merge's folder arguments with patterns expanded: an
// argument that is no path but holds *, ? or [ is a shell pattern
// (filepath.Match) that balloc expands itself, in the natural order of the
// numbers in the names (shard-2 before shard-10). So a job script passes
// 'DIR/shard-*' however many shards there are, and its command line stays
// within the system's argument limit (balloc slurm's merge job).
func expandFolders(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if _, err := os.Lstat(a); err == nil || !strings.ContainsAny(a, "*?[") {
			out = append(out, a)
			continue
		}
		m, err := filepath.Glob(a)
		if err != nil {
			return nil, fmt.Errorf("%s: not a folder, and not a pattern: %v", a, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no folder matches", a)
		}
		slices.SortFunc(m, naturalCompare)
		out = append(out, m...)
	}
	return out, nil
}

// naturalCompare orders strings with their runs of digits compared as
// numbers.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func newSummarizeCommand(stdout io.Writer) *cobra.Command {
	var format, compare, gapFrom, cross string
	c := &cobra.Command{
		Use:   "summarize DIR [--format table|csv|jsonl|markdown|latex] [--compare REF.toml] [--gap-from F] [--crossover KEY=A,B]",
		Short: "Per grid point: trials, mean gap with a 95% interval, gap distribution, max_gap, balls/s",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			switch format {
			case "table", "csv", "jsonl", "markdown", "latex":
			default:
				return fmt.Errorf("--format %q: want table, csv, jsonl, markdown or latex", format)
			}
			from := math.NaN()
			if c.Flags().Changed("gap-from") {
				f, err := strconv.ParseFloat(strings.TrimSpace(gapFrom), 64)
				if err != nil || !(f >= 0 && f < 1) {
					return fmt.Errorf("--gap-from %q: want a fraction F, 0 ≤ F < 1 (each trial's gap is then the mean of its checkpoints' gaps at t ≥ F·m)", gapFrom)
				}
				from = f
			}
			var xo *crossover
			if c.Flags().Changed("crossover") {
				var err error
				if xo, err = parseCrossover(cross); err != nil {
					return err
				}
				if c.Flags().Changed("compare") || (format != "table" && format != "markdown") {
					return fmt.Errorf("--crossover prints a table (--format table or markdown), without --compare")
				}
			}
			var ref *refFile
			if c.Flags().Changed("compare") {
				var err error
				if ref, err = readRefFile(compare); err != nil {
					return err
				}
			}
			var notes []string
			sd, err := readSweep(args[0], "summarize", &notes)
			if err != nil {
				return err
			}
			if !math.IsNaN(from) {
				if err := sd.averageGaps(from); err != nil {
					return err
				}
			}
			sums := summaries(sd)
			switch {
			case xo != nil:
				err = writeCrossover(xo, sums, format, stdout)
			case ref != nil:
				var rows []compareRow
				if rows, err = ref.compare(sd.dir, sums); err == nil {
					err = writeCompare(ref, rows, format, stdout)
				}
			default:
				err = summarize(sums, format, stdout)
			}
			if err == nil {
				printNotes(c.ErrOrStderr(), notes)
			}
			return err
		},
	}
	c.Flags().StringVar(&format, "format", "table", "table, csv, jsonl (numbers, one row per gap value in csv), markdown or latex")
	c.Flags().StringVar(&gapFrom, "gap-from", "", "F: each trial's gap is the mean of its checkpoints' gaps at t ≥ F·m (a stationary level; needs checkpoints), and max_gap their largest")
	c.Flags().StringVar(&cross, "crossover", "", "KEY=A,B: per n, the gap of the points with KEY = A beside those with KEY = B (a parameter or process; their balls may differ), and where the difference changes sign, with a 95% interval")
	c.Flags().StringVar(&compare, "compare", "", "a TOML file of reference values (published figures) to set beside the simulation, with a z-score or χ² per cell")
	return c
}

// pointSummary is one grid point's figures as numbers. The spread and the
// interval are NaN below two trials.
type pointSummary struct {
	index         int
	gp            gridPoint
	trials        int
	gaps          []float64
	mean, sd      float64
	ciLow, ciHigh float64
	maxGapMean    float64
	maxGapSD      float64
	rate          float64
	discrete      bool      // the gaps lie on one lattice of step 1: exact cells
	cells         []gapCell // the gap distribution
	// gapFrom is summarize --gap-from's F (NaN without it): each trial's
	// gap is then the mean of its checkpoints' gaps at t ≥ F·m.
	gapFrom float64
	// The supermarket model's time-averaged queue length, the mean over
	// trials, and its standard error √(Σ se_t²)/k from the trials'
	// batch-means errors (NaN where no trial has one).
	queue, queueSE float64
}

// gapCell is one cell of a gap distribution: trials whose gap is low (an
// exact cell, low == high) or lies in [low, high) (a bin of real gaps).
type gapCell struct {
	low, high float64
	count     int
}

// summaries computes every grid point's figures, in the manifest's order.
func summaries(sd *sweepData) []pointSummary {
	var out []pointSummary
	for i, rs := range sd.byPoint() {
		s := pointSummary{index: i, gp: sd.man.Grid[i], trials: len(rs), mean: math.NaN(), sd: math.NaN(),
			ciLow: math.NaN(), ciHigh: math.NaN(), maxGapMean: math.NaN(), maxGapSD: math.NaN(), rate: math.NaN(), gapFrom: math.NaN()}
		if sd.gapFromSet {
			s.gapFrom = sd.gapFrom
		}
		s.queue, s.queueSE = meanQueue(rs)
		if len(rs) > 0 {
			var maxGaps, rates []float64
			for _, r := range rs {
				s.gaps, maxGaps, rates = append(s.gaps, r.Gap), append(maxGaps, r.MaxGap), append(rates, r.BallsPerS)
			}
			m, half := meanCI(s.gaps)
			s.mean = m
			s.maxGapMean, _ = meanCI(maxGaps)
			s.rate, _ = meanCI(rates)
			if len(rs) > 1 {
				s.sd = stdDev(s.gaps, m)
				s.maxGapSD = stdDev(maxGaps, s.maxGapMean)
				s.ciLow, s.ciHigh = m-half, m+half
			}
			s.discrete = onLattice(s.gaps)
			s.cells = gapCells(s.gaps, s.discrete)
		}
		out = append(out, s)
	}
	return out
}

// meanQueue is the supermarket trials' mean queue length, averaged over
// trials, with its standard error √(Σ se_t²)/k (independent trials, each
// with its batch-means error); NaN, NaN unless every trial is a
// supermarket run.
func meanQueue(rs []*result.Result) (mean, se float64) {
	if len(rs) == 0 {
		return math.NaN(), math.NaN()
	}
	ss := 0.0
	for _, r := range rs {
		if r.Dynamic == nil || r.Dynamic.Model != "supermarket" {
			return math.NaN(), math.NaN()
		}
		mean += r.Dynamic.MeanQueue
		ss += r.Dynamic.MeanQueueSE * r.Dynamic.MeanQueueSE
	}
	k := float64(len(rs))
	return mean / k, math.Sqrt(ss) / k
}

// hasQueue reports whether some point has a mean queue length: then the
// summaries carry it as a column.
func hasQueue(sums []pointSummary) bool {
	return slices.ContainsFunc(sums, func(s pointSummary) bool { return !math.IsNaN(s.queue) })
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
func gapCells(gaps []float64, discrete bool) []gapCell {
	sorted := slices.Sorted(slices.Values(gaps))
	var cells []gapCell
	if discrete {
		for _, x := range sorted {
			if n := len(cells); n > 0 && cells[n-1].low == x {
				cells[n-1].count++
				continue
			}
			cells = append(cells, gapCell{low: x, high: x, count: 1})
		}
		return cells
	}
	lo, hi := sorted[0], sorted[len(sorted)-1]
	w := roundWidth((hi - lo) / 10)
	start := math.Floor(lo/w) * w
	for _, x := range sorted {
		k := math.Floor((x - start) / w)
		low := start + k*w
		if n := len(cells); n > 0 && cells[n-1].low == low {
			cells[n-1].count++
			continue
		}
		cells = append(cells, gapCell{low: low, high: low + w, count: 1})
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
func cellsText(cells []gapCell, trials int) string {
	var parts []string
	for _, c := range cells {
		at := g(c.low)
		if c.high != c.low {
			at = "[" + g(c.low) + ", " + g(c.high) + ")"
		}
		parts = append(parts, fmt.Sprintf("%s: %s%%", at, g(100*float64(c.count)/float64(trials))))
	}
	return strings.Join(parts, "  ")
}

// summarize writes the summaries: a display table (table, markdown, latex)
// or numbers (csv, jsonl).
func summarize(sums []pointSummary, format string, w io.Writer) error {
	switch format {
	case "csv":
		return summaryCSV(sums, w)
	case "jsonl":
		return summaryJSONL(sums, w)
	}
	gapHead := "gap (mean ± 95% CI)"
	if len(sums) > 0 && !math.IsNaN(sums[0].gapFrom) {
		gapHead = fmt.Sprintf("gap over t ≥ %s·m (mean ± 95%% CI)", g(sums[0].gapFrom))
	}
	head := []string{"process", "params", "bins", "balls", "trials", gapHead, "gap: % of trials", "max_gap (mean)", "balls/s"}
	align := "llrrrlllr"
	queue := hasQueue(sums)
	if queue { // the supermarket's figure, before balls/s
		head = slices.Insert(head, len(head)-1, "mean queue ± s.e.")
		align = "llrrrllllr"
	}
	var rows [][]string
	for _, s := range sums {
		row := []string{s.gp.Process, paramsText(s.gp.Params), units.FormatCount(s.gp.Bins), units.FormatCount(s.gp.Balls),
			fmt.Sprintf("%d/%d", s.trials, s.gp.Trials)}
		if s.trials == 0 {
			rows = append(rows, append(row, slices.Repeat([]string{"–"}, len(head)-len(row))...))
			continue
		}
		interval := "–"
		if s.trials > 1 {
			interval = fmt.Sprintf("%.3g", (s.ciHigh-s.ciLow)/2)
		}
		row = append(row, g(s.mean)+" ± "+interval, cellsText(s.cells, s.trials), g(s.maxGapMean))
		if queue {
			q := "–"
			if !math.IsNaN(s.queue) {
				q = g(s.queue) + " ± " + fmt.Sprintf("%.2g", s.queueSE)
			}
			row = append(row, q)
		}
		rows = append(rows, append(row, fmt.Sprintf("%.3g", s.rate)))
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
func paramNames(sums []pointSummary) []string {
	seen := map[string]bool{}
	for _, s := range sums {
		for k := range s.gp.Params {
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
func summaryCSV(sums []pointSummary, w io.Writer) error {
	names := paramNames(sums)
	cw := csv.NewWriter(w)
	head := append(append([]string{"point", "process"}, names...), "bins", "balls", "trials", "trials_planned",
		"mean", "sd", "ci_low", "ci_high", "max_gap_mean", "balls_per_s", "gap_low", "gap_high", "count", "pct")
	from := len(sums) > 0 && !math.IsNaN(sums[0].gapFrom)
	if from {
		head = slices.Insert(head, len(head)-10, "gap_from")
	}
	queue := hasQueue(sums)
	if queue {
		head = slices.Insert(head, len(head)-4, "mean_queue", "mean_queue_se")
	}
	cw.Write(head)
	for _, s := range sums {
		row := []string{strconv.Itoa(s.index), s.gp.Process}
		for _, k := range names {
			v, ok := s.gp.Params[k]
			row = append(row, "")
			if ok {
				row[len(row)-1] = fmt.Sprint(v)
			}
		}
		row = append(row, strconv.FormatUint(s.gp.Bins, 10), strconv.FormatUint(s.gp.Balls, 10), strconv.Itoa(s.trials), strconv.Itoa(s.gp.Trials))
		if from {
			row = append(row, num(s.gapFrom))
		}
		row = append(row, num(s.mean), num(s.sd), num(s.ciLow), num(s.ciHigh), num(s.maxGapMean), num(s.rate))
		if queue {
			row = append(row, num(s.queue), num(s.queueSE))
		}
		if len(s.cells) == 0 {
			cw.Write(append(row, "", "", "", ""))
		}
		for _, c := range s.cells {
			cw.Write(append(slices.Clone(row), num(c.low), num(c.high), strconv.Itoa(c.count), num(100*float64(c.count)/float64(s.trials))))
		}
	}
	cw.Flush()
	return cw.Error()
}

// summaryJSONL writes one JSON object per grid point, its parameters as
// fields of their own and its gap distribution as an array of cells.
func summaryJSONL(sums []pointSummary, w io.Writer) error {
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
		field("point", s.index)
		field("process", s.gp.Process)
		for _, k := range slices.Sorted(maps.Keys(s.gp.Params)) {
			field(k, s.gp.Params[k])
		}
		field("bins", s.gp.Bins)
		field("balls", s.gp.Balls)
		field("trials", s.trials)
		field("trials_planned", s.gp.Trials)
		if !math.IsNaN(s.gapFrom) {
			field("gap_from", s.gapFrom)
		}
		for _, f := range []struct {
			k string
			v float64
		}{{"mean", s.mean}, {"sd", s.sd}, {"ci_low", s.ciLow}, {"ci_high", s.ciHigh}, {"max_gap_mean", s.maxGapMean}, {"balls_per_s", s.rate}} {
			field(f.k, jnum(f.v))
		}
		if !math.IsNaN(s.queue) {
			field("mean_queue", s.queue)
			field("mean_queue_se", jnum(s.queueSE))
		}
		type cell struct {
			Low   float64 `json:"gap_low"`
			High  float64 `json:"gap_high"`
			Count int     `json:"count"`
			Pct   float64 `json:"pct"`
		}
		cells := []cell{}
		for _, c := range s.cells {
			cells = append(cells, cell{c.low, c.high, c.count, 100 * float64(c.count) / float64(s.trials)})
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
