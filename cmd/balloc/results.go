package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/balloc/balloc/core"
)

// sweepData is a sweep folder read back: its manifest and results, each
// (grid point, trial) once.
type sweepData struct {
	dir     string
	man     *manifest
	results []*core.Result
	torn    bool
	dups    int // identical copies of a line, dropped
}

// readSweep reads a sweep folder. Lines outside the manifest's grid are
// left out with one warning on warn (named for cmd); identical copies of a
// line count once; two different results for one trial are an error.
func readSweep(dir, cmd string, warn io.Writer) (*sweepData, error) {
	man, err := readManifest(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: no manifest.json: not a folder balloc sweep wrote", dir)
		}
		return nil, err
	}
	path := filepath.Join(dir, "results.jsonl")
	recs, _, torn, err := core.ReadResults(path)
	if err != nil {
		return nil, err
	}
	kept, dups, foreign, err := gridResults(path, recs, man.Grid)
	if err != nil {
		return nil, err
	}
	warnForeign(warn, cmd, path, foreign)
	return &sweepData{dir: dir, man: man, results: kept, torn: torn, dups: dups}, nil
}

// gridResults keeps the results of recs (read from path, line i+1 being
// recs[i]) that belong to the grid, each (spec hash, trial) once. An
// identical copy of a line (timings aside) is counted in dups and dropped; a
// different result for the same trial is an error naming both lines; a line
// whose hash is not a grid point, or whose trial is beyond the point's
// trials, is counted in foreign and left out.
func gridResults(path string, recs []*core.Result, grid []gridPoint) (kept []*core.Result, dups, foreign int, err error) {
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

// warnForeign says, in one line, that lines outside the grid were ignored.
func warnForeign(w io.Writer, cmd, path string, foreign int) {
	if foreign > 0 && w != nil {
		fmt.Fprintf(w, "balloc %s: %s: %d lines are not trials of this sweep's grid (another sweep's, or beyond its trials); they are ignored\n", cmd, path, foreign)
	}
}

// byPoint groups results by grid point, in the manifest's order, each
// sorted by trial.
func (sd *sweepData) byPoint() [][]*core.Result {
	out := make([][]*core.Result, len(sd.man.Grid))
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
		slices.SortFunc(rs, func(a, b *core.Result) int { return cmp.Compare(a.Trial, b.Trial) })
	}
	return out
}

// withoutTiming is a result's JSON with the timing fields zeroed: what two
// runs of the same trial must agree on.
func withoutTiming(r *core.Result) string {
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
		Args:  cobra.MinimumNArgs(1),
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

func runMerge(dirs []string, out string, stdout, stderr io.Writer) error {
	var all []*sweepData
	for _, d := range dirs {
		if filepath.Clean(d) == filepath.Clean(out) {
			return fmt.Errorf("--out %s is also an input", out)
		}
		sd, err := readSweep(d, "merge", stderr)
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
		sd, err := readSweep(out, "merge", stderr)
		if err != nil {
			return err
		}
		all = append(all, sd)
	}
	seen := map[string][32]byte{} // (hash/trial) → digest of the JSON without timing
	from := map[string]string{}
	var merged []*core.Result
	dups := 0
	for _, sd := range all {
		if sd.torn {
			fmt.Fprintf(stderr, "balloc merge: %s ends in a torn line; it is ignored\n", filepath.Join(sd.dir, "results.jsonl"))
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
	slices.SortFunc(merged, func(a, b *core.Result) int {
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
			missing = append(missing, fmt.Sprintf("%s %v n=%d m=%d (%s): trials %s", gp.Process, gp.Params, gp.Bins, gp.Balls, gp.SpecHash, strings.Join(lost, ",")))
		}
	}
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
	entries, err := os.ReadDir(out)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	old, err := readManifest(out)
	switch {
	case err == nil:
		if !sameGrid(old, man) {
			return fmt.Errorf("--out %s holds another sweep (another grid or number of trials) than the folders merged; use a new or empty folder", out)
		}
		return nil
	case !os.IsNotExist(err):
		return err
	}
	for _, e := range entries {
		if e.Name() != lockName {
			return fmt.Errorf("--out %s is not empty (it holds %s) and holds no sweep; use a new or empty folder", out, e.Name())
		}
	}
	return nil
}

func newSummarizeCommand(stdout io.Writer) *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "summarize DIR [--format table|csv|markdown|latex]",
		Short: "Per grid point: trials, mean gap with a 95% interval, gap distribution, max_gap, balls/s",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			switch format {
			case "table", "csv", "markdown", "latex":
			default:
				return fmt.Errorf("--format %q: want table, csv, markdown or latex", format)
			}
			sd, err := readSweep(args[0], "summarize", c.ErrOrStderr())
			if err != nil {
				return err
			}
			return summarize(sd, format, stdout)
		},
	}
	c.Flags().StringVar(&format, "format", "table", "table, csv, markdown or latex")
	return c
}

func summarize(sd *sweepData, format string, w io.Writer) error {
	head := []string{"process", "params", "bins", "balls", "trials", "gap (mean ± 95% CI)", "gap: % of trials", "max_gap (mean)", "balls/s"}
	var rows [][]string
	for i, rs := range sd.byPoint() {
		gp := sd.man.Grid[i]
		row := []string{gp.Process, paramsText(gp.Params), core.FormatCount(gp.Bins), core.FormatCount(gp.Balls),
			fmt.Sprintf("%d/%d", len(rs), gp.Trials)}
		if len(rs) == 0 {
			rows = append(rows, append(row, "–", "–", "–", "–"))
			continue
		}
		var gaps, maxGaps, rates []float64
		for _, r := range rs {
			gaps, maxGaps, rates = append(gaps, r.Gap), append(maxGaps, r.MaxGap), append(rates, r.BallsPerS)
		}
		m, half := meanCI(gaps)
		mg, _ := meanCI(maxGaps)
		rate, _ := meanCI(rates)
		discrete := !strings.HasPrefix(fmt.Sprint(gp.Params["weights"]), "exp") // random weights: real gaps
		rows = append(rows, append(row, fmt.Sprintf("%s ± %.3g", g(m), half), gapDistribution(rs, discrete), g(mg), fmt.Sprintf("%.3g", rate)))
	}
	switch format {
	case "csv":
		fmt.Fprintln(w, strings.Join(head, ","))
		for _, r := range rows {
			for j := range r {
				if strings.ContainsAny(r[j], ",\"") {
					r[j] = `"` + strings.ReplaceAll(r[j], `"`, `""`) + `"`
				}
			}
			fmt.Fprintln(w, strings.Join(r, ","))
		}
	case "markdown":
		fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
		fmt.Fprintln(w, "|"+strings.Repeat("---|", len(head)))
		for _, r := range rows {
			fmt.Fprintln(w, "| "+strings.Join(r, " | ")+" |")
		}
	case "latex":
		fmt.Fprintln(w, "\\begin{tabular}{llrrrlllr}")
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
