package main

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/balloc/balloc/core/sweep"
	"github.com/balloc/balloc/plot"
)

// A sweep over a list of arrival rates: every result carries its cell's
// λ (in params and in its dynamic block), each cell's results are the ones
// a sweep of that λ alone gives, summarize has a row per λ with its mean
// queue length, and plot puts λ on x and the mean queue on y.
func TestSweepOverArrivalRates(t *testing.T) {
	dir := t.TempDir()
	const head = "process = \"two-choice\"\nbins = [100]\ntime = 30\nwarmup = 3\ntrials = 3\nseed = 5\n"
	file := filepath.Join(dir, "l.toml")
	writeFile(t, file, head+"arrival_rate = [0.5, 0.8, 0.9]\n")
	sw := filepath.Join(dir, "l")
	if code, _, errs := run(t, "sweep", file, "--out", sw, "--progress", "never"); code != 0 {
		t.Fatal(errs)
	}
	sd, err := sweep.ReadFolder(sw, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	lambdas := []float64{0.5, 0.8, 0.9}
	if len(sd.Manifest.Grid) != 3 {
		t.Fatalf("%d grid points, want 3", len(sd.Manifest.Grid))
	}
	for i, rs := range sd.ByPoint() {
		gp := sd.Manifest.Grid[i]
		if gp.Params["arrival_rate"] != lambdas[i] || len(rs) != 3 {
			t.Fatalf("point %d: %v, %d results", i, gp.Params, len(rs))
		}
		for _, r := range rs {
			if r.Dynamic == nil || r.Dynamic.ArrivalRate != lambdas[i] || r.Params["arrival_rate"] != lambdas[i] || r.SpecHash != gp.SpecHash {
				t.Errorf("point %d (λ = %v): result λ %v / %v, hash %s", i, lambdas[i], r.Dynamic, r.Params["arrival_rate"], r.SpecHash)
			}
		}
	}
	// Each cell is the single-valued sweep of its λ, trial for trial.
	all := resultLines(t, sw)
	var singles []string
	for _, l := range []string{"0.5", "0.8", "0.9"} {
		f := filepath.Join(dir, "one"+l+".toml")
		writeFile(t, f, head+"arrival_rate = "+l+"\n")
		out := filepath.Join(dir, "one"+l)
		if code, _, errs := run(t, "sweep", f, "--out", out, "--progress", "never"); code != 0 {
			t.Fatal(errs)
		}
		singles = append(singles, resultLines(t, out)...)
	}
	slices.Sort(singles)
	if !slices.Equal(all, singles) {
		t.Errorf("the list sweep's results differ from the single-valued sweeps'")
	}

	// summarize: one row per λ, in the file's order, the mean queue beside.
	code, out, errs := run(t, "summarize", sw, "--format", "csv")
	if code != 0 {
		t.Fatal(errs)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for j, h := range rows[0] {
		col[h] = j
	}
	var got []float64
	for i, row := range rows[1:] {
		l, _ := strconv.ParseFloat(row[col["arrival_rate"]], 64)
		q, _ := strconv.ParseFloat(row[col["mean_queue"]], 64)
		if i == 0 || l != got[len(got)-1] {
			got = append(got, l)
			want := 0.0
			for _, r := range sd.ByPoint()[len(got)-1] {
				want += r.Dynamic.MeanQueue / 3
			}
			if math.Abs(q-want) > 1e-12*want {
				t.Errorf("λ = %v: summarize's mean queue %v, the results' %v", l, q, want)
			}
		}
	}
	if !slices.Equal(got, lambdas) {
		t.Errorf("summarize's arrival_rate column %v, want %v", got, lambdas)
	}
	if code, out, _ := run(t, "summarize", sw); code != 0 || !strings.Contains(out, "mean queue ± 95% CI") || strings.Count(out, "arrival_rate=") != 3 {
		t.Errorf("summarize table:\n%s", out)
	}

	// plot: λ on x, the mean queue on y, one point per cell, increasing.
	f := sweepFigure(t, sw, plot.Options{Kind: "gap-vs-param", X: "arrival_rate", Y: "mean-queue", FlagX: "x", FlagY: "y"})
	if len(f.Lines) != 1 || len(f.Lines[0].Points) != 3 || f.YLabel == "" || !strings.Contains(f.Title, "Mean queue") {
		t.Fatalf("figure %+v", f)
	}
	for i, p := range f.Lines[0].Points {
		if p.X != lambdas[i] || (i > 0 && p.Y <= f.Lines[0].Points[i-1].Y) {
			t.Errorf("point %d: %+v", i, p)
		}
	}
	png := filepath.Join(dir, "q.png")
	if code, _, errs := run(t, "plot", sw, "--kind", "gap-vs-param", "--y", "mean-queue", "--out", png); code != 0 {
		t.Errorf("plot --y mean-queue (x picked: arrival_rate): %s", errs)
	}
	refused(t, "--theory: no theory line for --y mean-queue", "plot", sw, "--kind", "gap-vs-param", "--y", "mean-queue", "--theory", "--out", png)
	refused(t, "--y mean-queue: only gap-vs-param and gap-vs-bins plot it", "plot", sw, "--kind", "gap-vs-balls", "--y", "mean-queue", "--out", png)
	static := makeSweep(t, "process = \"d-choice\"\nbins = [100]\nballs = [100]\n[params]\nd = [2, 3]\n")
	if code, _, errs := run(t, "plot", static, "--kind", "gap-vs-param", "--y", "mean-queue", "--out", png); code == 0 || !strings.Contains(errs, "is no supermarket run") || strings.Count(errs, "\n") != 1 {
		t.Errorf("plot --y mean-queue of a static sweep: exit %d %q", code, errs)
	}
}

// A folder swept by a single-valued file resumes under the file's list:
// the cell it holds is kept, only the new values run.
func TestSweepListResumesSingleValuedFolder(t *testing.T) {
	dir := t.TempDir()
	const head = "process = \"two-choice\"\nbins = [100]\narrival_rate = 0.9\ntime = 20\ntrials = 2\n"
	one, list := filepath.Join(dir, "one.toml"), filepath.Join(dir, "list.toml")
	writeFile(t, one, head+"update_period = 1\n")
	writeFile(t, list, head+"update_period = [0.5, 1, 2]\n")
	sw := filepath.Join(dir, "s")
	if code, _, errs := run(t, "sweep", one, "--out", sw, "--progress", "never"); code != 0 {
		t.Fatal(errs)
	}
	before := resultLines(t, sw)
	code, out, errs := run(t, "sweep", list, "--out", sw, "--progress", "never")
	if code != 0 || !strings.Contains(out, "4 trials run, 2 were already there; 3 grid points") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	recs, _, _, err := sweep.ReadResults(filepath.Join(sw, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, r := range recs[:2] {
		kept = append(kept, sweep.WithoutTiming(r))
	}
	slices.Sort(kept)
	if !slices.Equal(kept, before) {
		t.Error("the resumed folder's first trials changed")
	}
}

// A bad dynamic list on the command line: exit 2, one line naming the
// file, line and key, and no folder made.
func TestSweepDynamicListRefused(t *testing.T) {
	dir := t.TempDir()
	const head = "process = \"two-choice\"\nbins = [100]\n"
	for _, c := range []struct{ text, want string }{
		{head + "arrival_rate = [0.5, 0.5]\ntime = 10\n", "bad.toml:3: arrival_rate: lists 0.5 twice"},
		{head + "arrival_rate = [0.5, 2]\ntime = 10\n", "bad.toml:3: arrival_rate: want an arrival rate"},
		{head + "arrival_rate = 0.5\ntime = [10, 50]\nwarmup = [1, 20]\n", "bad.toml:5: warmup: --warmup 20: want less than the run"},
		{head + "balls = [100]\nupdate_period = [1, 2]\n", "bad.toml:4: update_period: --update-period: stale loads are a setting of the supermarket model"},
	} {
		path := filepath.Join(dir, "bad.toml")
		writeFile(t, path, c.text)
		out := filepath.Join(dir, "out")
		code, stdout, errs := run(t, "sweep", path, "--out", out)
		if code != 2 || stdout != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line containing %q", c.text, code, errs, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%q: %s made before the grid was refused", c.text, out)
		}
	}
}

// balloc run --plot draws the mean queue too: its points are the runs'
// mean_queue, one per d.
func TestRunPlotMeanQueue(t *testing.T) {
	tex := filepath.Join(t.TempDir(), "q.tex")
	code, out, errs := run(t, "run", "--process", "d-choice", "--d", "2,3", "--bins", "100", "--arrival-rate", "0.9", "--time", "20",
		"--format", "json", "--plot", tex, "--plot-kind", "gap-vs-param", "--y", "mean-queue")
	if code != 0 {
		t.Fatal(errs)
	}
	rs := decodeJSON(t, strings.TrimSuffix(out, "plot: "+tex+"\n"))
	_, pts := texSeries(t, tex)
	if len(rs) != 2 || len(pts) != 1 || len(pts[0]) != 2 {
		t.Fatalf("%d results, plotted %v", len(rs), pts)
	}
	for i, p := range pts[0] {
		if want := rs[i].Dynamic.MeanQueue; p.X != float64(i+2) || math.Abs(p.Y-want) > 1e-6*want {
			t.Errorf("d = %d: plotted %+v, mean_queue %v", i+2, p, want)
		}
	}
}
