package main

import (
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

// sweepData is a sweep folder read back: its manifest and results.
type sweepData struct {
	dir     string
	man     *manifest
	results []*core.Result
	torn    bool
}

func readSweep(dir string) (*sweepData, error) {
	man, err := readManifest(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: no manifest.json: not a folder balloc sweep wrote", dir)
		}
		return nil, err
	}
	recs, _, torn, err := core.ReadResults(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		return nil, err
	}
	return &sweepData{dir: dir, man: man, results: recs, torn: torn}, nil
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
		slices.SortFunc(rs, func(a, b *core.Result) int { return int(a.Trial) - int(b.Trial) })
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
		sd, err := readSweep(d)
		if err != nil {
			return err
		}
		if len(all) > 0 && !sameGrid(all[0].man, sd.man) {
			return fmt.Errorf("%s holds another sweep than %s (another grid or number of trials)", d, all[0].dir)
		}
		all = append(all, sd)
	}
	first := all[0].man
	seen := map[string]string{} // (hash/trial) → JSON without timing
	from := map[string]string{}
	var merged []*core.Result
	dups := 0
	for _, sd := range all {
		if sd.torn {
			fmt.Fprintf(stderr, "balloc merge: %s ends in a torn line; it is ignored\n", filepath.Join(sd.dir, "results.jsonl"))
		}
		for _, r := range sd.results {
			key := fmt.Sprintf("%s/%d", r.SpecHash, r.Trial)
			body := withoutTiming(r)
			if prev, ok := seen[key]; ok {
				if prev != body {
					return failure{fmt.Errorf("trial %d of grid point %s differs between %s and %s", r.Trial, r.SpecHash, from[key], sd.dir)}
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
		return int(a.Trial) - int(b.Trial)
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
	if err := os.MkdirAll(out, 0o755); err != nil {
		return failure{err}
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
		out, len(merged), total, len(all), dups, len(missing))
	for _, m := range missing {
		fmt.Fprintf(stdout, "  missing: %s\n", m)
	}
	if len(missing) > 0 {
		return failure{fmt.Errorf("%d trials missing from the merge", total-len(merged))}
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
			sd, err := readSweep(args[0])
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
