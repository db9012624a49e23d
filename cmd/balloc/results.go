package main

import (
	"cmp"
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
	"github.com/balloc/balloc/core/units"
)

// sweepData is a sweep folder read back whole, for the readers that draw
// every trial (plot): its manifest and results, each (grid point, trial)
// once. summarize and merge stream instead (readSummaries, runMerge).
type sweepData struct {
	dir     string
	man     *manifest
	results []*result.Result
	torn    bool
	dups    int // identical copies of a line, dropped
}

// windowGap is a trial's gap and max_gap over t ≥ from·m (summarize
// --gap-from): the mean of its checkpoints' gaps there, and their largest,
// a stationary level where the final state alone is one correlated draw.
// ok is false when no checkpoint lies in that window.
func windowGap(r *result.Result, from float64, balls uint64) (gap, maxGap float64, ok bool) {
	sum, k, top := 0.0, 0, math.Inf(-1)
	for _, c := range r.Checkpoints {
		if float64(c.Balls) >= from*float64(balls) {
			sum, k, top = sum+c.Gap, k+1, max(top, c.Gap)
		}
	}
	return sum / float64(k), top, k > 0
}

// readSweep reads a sweep folder. Lines outside the manifest's grid are
// left out with one warning added to notes (named for cmd; the caller
// prints them once nothing more can fail, so a refusal stays one line);
// identical copies of a line count once; two different results for one
// trial are an error.
func readSweep(dir, cmd string, notes *[]string) (*sweepData, error) {
	man, err := readSweepManifest(dir)
	if err != nil {
		return nil, err
	}
	kept, dups, torn, err := readResultsOf(dir, filepath.Join(dir, "results.jsonl"), man.Grid, cmd, notes)
	if err != nil {
		return nil, err
	}
	return &sweepData{dir: dir, man: man, results: kept, torn: torn, dups: dups}, nil
}

// readSweepManifest reads the manifest of a folder that must hold a sweep.
func readSweepManifest(dir string) (*manifest, error) {
	man, err := readManifest(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: no manifest.json: not a folder balloc sweep wrote", dir)
		}
		return nil, err
	}
	return man, nil
}

// addNote adds note to notes unless it is "" or notes is nil.
func addNote(notes *[]string, note string) {
	if note != "" && notes != nil {
		*notes = append(*notes, note)
	}
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

// runMerge merges sweep folders in two passes over their results files, one
// line at a time: the first checks every line and indexes the first copy of
// each trial (trialIndex: about 100 bytes a trial), the second reads those
// lines back by offset in the manifest's order and writes them. Its memory
// grows with the trials of the grid, not with the size of the files.
func runMerge(args []string, out string, stdout, stderr io.Writer) error {
	dirs, err := expandFolders(args)
	if err != nil {
		return err
	}
	outInfo, outErr := os.Stat(out)
	var notes []string
	type folder struct {
		dir  string
		man  *manifest
		torn bool
	}
	var all []folder
	var ix *trialIndex
	dups, kept := 0, 0
	scan := func(f *folder) error {
		path := filepath.Join(f.dir, "results.jsonl")
		d, foreign, _, torn, err := ix.scan(path, func(int, *result.Result) error {
			kept++
			return nil
		})
		if err != nil {
			return err
		}
		addNote(&notes, foreignNote("merge", path, foreign))
		f.torn, dups = torn, dups+d
		return nil
	}
	for _, d := range dirs {
		if filepath.Clean(d) == filepath.Clean(out) {
			return fmt.Errorf("--out %s is also an input", out)
		}
		if fi, err := os.Stat(d); err == nil && outErr == nil && os.SameFile(fi, outInfo) {
			return fmt.Errorf("--out %s is also an input (as %s)", out, d)
		}
		man, err := readSweepManifest(d)
		if err != nil {
			return err
		}
		if len(all) > 0 && !sameGrid(all[0].man, man) {
			return fmt.Errorf("%s holds another sweep than %s (another grid or number of trials)", d, all[0].dir)
		}
		if ix == nil {
			ix = newTrialIndex(man.Grid)
		}
		f := folder{dir: d, man: man}
		if err := scan(&f); err != nil {
			return err
		}
		all = append(all, f)
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
		man, err := readSweepManifest(out)
		if err != nil {
			return err
		}
		f := folder{dir: out, man: man}
		if err := scan(&f); err != nil {
			return err
		}
		all = append(all, f)
	}
	for _, f := range all {
		if f.torn {
			notes = append(notes, fmt.Sprintf("balloc merge: %s ends in a torn line; it is ignored", filepath.Join(f.dir, "results.jsonl")))
		}
	}
	// Each point's trials present, ascending: the order of the merged file.
	present := make([][]uint64, len(first.Grid))
	for k := range ix.seen {
		present[k.point] = append(present[k.point], k.trial)
	}
	var missing []string
	total := 0
	for p, gp := range first.Grid {
		slices.Sort(present[p])
		total += gp.Trials
		if lost := missingTrials(present[p], uint64(gp.Trials)); lost != "" {
			missing = append(missing, fmt.Sprintf("%s (spec %s): trials %s", gp.describe(), gp.SpecHash, lost))
		}
	}
	printNotes(stderr, notes)
	man := *first
	man.Shard = ""
	if err := man.write(out); err != nil {
		return failure{err}
	}
	if err := writeMerged(filepath.Join(out, "results.jsonl"), ix, present); err != nil {
		return failure{err}
	}
	fmt.Fprintf(stdout, "%s: %d of %d trials from %d folders; %d duplicated (identical, kept once); %d grid points with missing trials\n",
		out, kept, total, len(dirs), dups, len(missing))
	for _, m := range missing {
		fmt.Fprintf(stdout, "  missing: %s\n", m)
	}
	if len(missing) > 0 {
		return failure{fmt.Errorf("%d trials missing from the merge", total-kept)}
	}
	return nil
}

// maxListedMissing bounds the trials a merge lists as missing for one grid
// point; the rest are counted.
const maxListedMissing = 1000

// missingTrials lists the trials below trials absent from present (sorted,
// each below trials), as "3,5,9": the first maxListedMissing of them, then
// how many more; "" when none is missing.
func missingTrials(present []uint64, trials uint64) string {
	if uint64(len(present)) == trials {
		return ""
	}
	var lost []string
	next := uint64(0) // the next trial not yet accounted for
	for i := 0; i <= len(present) && len(lost) < maxListedMissing; i++ {
		upto := trials // after the last trial present, the gap up to trials
		if i < len(present) {
			upto = present[i]
		}
		for ; next < upto && len(lost) < maxListedMissing; next++ {
			lost = append(lost, strconv.FormatUint(next, 10))
		}
		next = upto + 1
	}
	text := strings.Join(lost, ",")
	if n := trials - uint64(len(present)); n > uint64(len(lost)) {
		text += fmt.Sprintf(" and %d more", n-uint64(len(lost)))
	}
	return text
}

// writeMerged writes the merged results file: each trial's first line, in
// the manifest's order and by trial, read back from where the index found
// it and written as balloc writes a result (decoded, then encoded).
func writeMerged(path string, ix *trialIndex, present [][]uint64) error {
	files := make([]*os.File, len(ix.paths))
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	var buf []byte
	return writeSyncedStream(path, func(w io.Writer) error {
		for p, trials := range present {
			for _, t := range trials {
				at := ix.seen[trialKey{p, t}]
				if files[at.src] == nil {
					f, err := os.Open(ix.paths[at.src])
					if err != nil {
						return err
					}
					files[at.src] = f
				}
				buf = slices.Grow(buf[:0], at.size)[:at.size]
				if _, err := files[at.src].ReadAt(buf, at.off); err != nil {
					return fmt.Errorf("%s: %v (changed while merging?)", ix.paths[at.src], err)
				}
				var r result.Result
				if err := json.Unmarshal(buf[:at.size-1], &r); err != nil {
					return fmt.Errorf("%s:%d: changed while merging: %v", ix.paths[at.src], at.line, err)
				}
				line, err := result.Encode(&r)
				if err != nil {
					return err
				}
				if _, err := w.Write(append(line, '\n')); err != nil {
					return err
				}
			}
		}
		return nil
	})
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
			sums, err := readSummaries(args[0], from, &notes)
			if err != nil {
				return err
			}
			switch {
			case xo != nil:
				err = writeCrossover(xo, sums, format, stdout)
			case ref != nil:
				var rows []compareRow
				if rows, err = ref.compare(args[0], sums); err == nil {
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

// trialFigures are what summarize keeps of a trial, whatever its line
// holds: its index, gap, max_gap and balls/s, and a supermarket run's mean
// queue length with its standard error.
type trialFigures struct {
	trial              uint64
	gap, maxGap, rate  float64
	supermarket        bool
	meanQueue, meanQSE float64
}

// readSummaries reads a sweep folder's results one line at a time and
// summarizes each grid point. It keeps each trial's figures (trialFigures,
// 56 bytes) and its entry in the trial index (about 100 bytes), so its
// memory grows with the trials of the grid, not with the size of the file
// or of a line (checkpoints, histograms). With from (not NaN) each trial's
// gap is the mean of its checkpoints' gaps at t ≥ from·m (windowGap); a
// point without a checkpoint there is an error naming it, the first such
// point in the manifest's order.
func readSummaries(dir string, from float64, notes *[]string) ([]pointSummary, error) {
	man, err := readSweepManifest(dir)
	if err != nil {
		return nil, err
	}
	figs := make([][]trialFigures, len(man.Grid))
	noWindow := -1
	path := filepath.Join(dir, "results.jsonl")
	_, foreign, _, _, err := newTrialIndex(man.Grid).scan(path, func(p int, r *result.Result) error {
		f := trialFigures{trial: r.Trial, gap: r.Gap, maxGap: r.MaxGap, rate: r.BallsPerS}
		if r.Dynamic != nil && r.Dynamic.Model == "supermarket" {
			f.supermarket, f.meanQueue, f.meanQSE = true, r.Dynamic.MeanQueue, r.Dynamic.MeanQueueSE
		}
		if !math.IsNaN(from) {
			var ok bool
			if f.gap, f.maxGap, ok = windowGap(r, from, man.Grid[p].Balls); !ok && (noWindow < 0 || p < noWindow) {
				noWindow = p
			}
		}
		figs[p] = append(figs[p], f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	addNote(notes, foreignNote("summarize", path, foreign))
	if noWindow >= 0 {
		gp := man.Grid[noWindow]
		return nil, fmt.Errorf("--gap-from %s: %s %s has no checkpoint at t ≥ %s·m (give the sweep checkpoints = K or \"log:K\")",
			g(from), gp.Process, paramsText(gp.Params), g(from))
	}
	for _, fs := range figs {
		slices.SortFunc(fs, func(a, b trialFigures) int { return cmp.Compare(a.trial, b.trial) })
	}
	return summaries(man, figs, from), nil
}

// summaries computes every grid point's figures, in the manifest's order,
// from its trials' figures sorted by trial (sums are taken in that order).
func summaries(man *manifest, figs [][]trialFigures, from float64) []pointSummary {
	var out []pointSummary
	for i, rs := range figs {
		s := pointSummary{index: i, gp: man.Grid[i], trials: len(rs), mean: math.NaN(), sd: math.NaN(),
			ciLow: math.NaN(), ciHigh: math.NaN(), maxGapMean: math.NaN(), maxGapSD: math.NaN(), rate: math.NaN(), gapFrom: from}
		s.queue, s.queueSE = meanQueue(rs)
		if len(rs) > 0 {
			var maxGaps, rates []float64
			for _, r := range rs {
				s.gaps, maxGaps, rates = append(s.gaps, r.gap), append(maxGaps, r.maxGap), append(rates, r.rate)
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
